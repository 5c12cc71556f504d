package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Test helper: an {@code ntk4j} command in its own JVM, optionally stopped (by TempFiles' test hook
 * {@code -Dntk4j.test.holdTemp}) right after it created the temporary whose name contains a given text, so that a
 * test can kill it there (SIGKILL) or start a second run against it.
 */
record Child(Process process, Path log) {

    /** Starts {@code ntk4j args...}; {@code hold} (or null) names the temporary to stop at; extra JVM flags first. */
    static Child start(Path log, String hold, List<String> jvm, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dai.djl.offline=true",
                "-Dai.djl.pytorch.num_threads=1",
                "-Dai.djl.pytorch.num_interop_threads=1",
                "-Dntk4j.root=" + System.getProperty("ntk4j.root", "."),
                "-Djava.awt.headless=true",
                "-Dpicocli.ansi=false"));
        if (hold != null) {
            cmd.add("-Dntk4j.test.holdTemp=" + hold);
        }
        cmd.addAll(jvm);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        return new Child(p, log);
    }

    /** Waits until the child stopped at its temporary; returns that temporary's path. */
    Path held() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log)) {
                for (String line : Files.readAllLines(log)) {
                    if (line.startsWith("ntk4j-temp ")) {
                        return Path.of(line.substring("ntk4j-temp ".length()));
                    }
                }
            }
            assertTrue(process.isAlive(), "the child ended before its temporary: " + output());
            Thread.sleep(20);
        }
        throw new AssertionError("the child did not reach its temporary: " + output());
    }

    /** SIGKILL, and wait for it to be gone. */
    void kill() throws Exception {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Waits for the exit status. */
    int exit() throws Exception {
        assertTrue(process.waitFor(300, TimeUnit.SECONDS), "the child did not finish: " + output());
        return process.exitValue();
    }

    String output() {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
