package org.ntk4j.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;

/** One writer per output: refused while another process (or job) holds it, taken over once its holder is gone. */
class OutputLockTest {
    static Process holder(Path output) throws Exception {
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        OutputLockHolder.class.getName(),
                        output.toString())
                .redirectErrorStream(true)
                .start();
        String line = new String(p.getInputStream().readNBytes(7), StandardCharsets.US_ASCII);
        assertEquals("locked\n", line, "the holder took the lock");
        return p;
    }

    @Test
    void aSecondWriterIsRefusedWithTheOwnerThenTakesOverAKilledOne(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("K.npz");
        Process p = holder(out);
        try {
            UserException e = assertThrows(UserException.class, () -> OutputLock.acquire(out, "--out K.npz"));
            assertTrue(
                    e.getMessage().startsWith("--out K.npz is being written by process " + p.pid() + "@"),
                    e.getMessage());
        } finally {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        assertTrue(Files.exists(OutputLock.lockFile(out)), "a killed holder leaves its lock file, holding no lock");
        try (OutputLock l = OutputLock.acquire(out, "--out K.npz")) {
            assertTrue(Files.readString(l.file())
                    .startsWith(ProcessHandle.current().pid() + "@"));
        }
        assertFalse(Files.exists(OutputLock.lockFile(out)), "deleted on release");
    }

    @Test
    void aSecondJobOfThisProcessIsRefusedAndTheFirstKeepsItsLock(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("K.npz");
        try (OutputLock first = OutputLock.acquire(out, "--out K.npz")) {
            UserException e = assertThrows(UserException.class, () -> OutputLock.acquire(out, "--out K.npz"));
            assertTrue(e.getMessage().contains("another job of this process"), e.getMessage());
            // the refused attempt opened no descriptor of the lock file (closing one would drop this process's lock):
            // another process still cannot take it
            Process p = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            OutputLockHolder.class.getName(),
                            out.toString())
                    .redirectErrorStream(true)
                    .start();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the other process gave up");
            String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(
                    said.contains("is being written by process "
                            + ProcessHandle.current().pid()),
                    said);
            assertTrue(Files.exists(first.file()));
        }
    }
}
