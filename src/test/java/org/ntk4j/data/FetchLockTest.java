package org.ntk4j.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;

/** Two fetches of one dataset never overlap: the second waits for the first. */
class FetchLockTest {
    @Test
    void aSecondFetchWaitsForTheFirst(@TempDir Path data) throws Exception {
        Files.createDirectories(data);
        Path lock = data.resolve(".ntk4j-fetch-mnist.lock");
        Process holder = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        FileLockHolder.class.getName(),
                        lock.toString())
                .redirectErrorStream(true)
                .start();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try {
            assertEquals("locked\n", new String(holder.getInputStream().readNBytes(7), StandardCharsets.US_ASCII));
            CompletableFuture<Throwable> f = CompletableFuture.supplyAsync(() -> {
                try {
                    new DataFetcher(data, new PrintStream(log, true, StandardCharsets.UTF_8))
                            .fetch("mnist", data.resolve("none.tgz"));
                    return null;
                } catch (RuntimeException e) {
                    return e;
                }
            });
            Thread.sleep(1500);
            assertFalse(f.isDone(), "waits while the other fetch holds the lock");
            assertTrue(log.toString(StandardCharsets.UTF_8).contains("another fetch of it is running"), log.toString());
            holder.destroyForcibly();
            Throwable t = f.get(30, TimeUnit.SECONDS);
            assertTrue(t instanceof UserException && t.getMessage().contains("none.tgz"), String.valueOf(t));
        } finally {
            holder.destroyForcibly();
            holder.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
