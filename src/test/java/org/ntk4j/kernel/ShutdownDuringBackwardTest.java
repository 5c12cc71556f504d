package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run stopped by SIGTERM while libtorch is inside a backward pass exits with status 143, not a SIGSEGV: the JVM's
 * exit runs libtorch's static destructors, and a thread still in backward then crashed (about one SIGTERM in two on
 * ResNet-20 before {@link org.ntk4j.util.NativeWork}; two hs_err files seen under {@code timeout}). Five child JVMs
 * ({@link SignalDuringBackward}) each send themselves SIGTERM while their main thread is in {@code torchBackward};
 * on the unguarded code the chance that all five survive is about 1/32.
 */
class ShutdownDuringBackwardTest {
    @Test
    void sigtermDuringBackwardExitsCleanly(@TempDir Path dir) throws Exception {
        String spec = Files.readString(Path.of("models/resnet20.json"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (int run = 1; run <= 5; run++) {
            Path log = dir.resolve("run" + run + ".log");
            Process p = new ProcessBuilder(List.of(
                            java,
                            "-Xmx512m",
                            "-XX:ErrorFile=" + dir.resolve("hs_err_%p.log"),
                            "-Dai.djl.offline=true",
                            "-Dai.djl.pytorch.num_threads=1",
                            "-cp",
                            System.getProperty("java.class.path"),
                            SignalDuringBackward.class.getName(),
                            spec,
                            "4"))
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            boolean done = p.waitFor(120, TimeUnit.SECONDS);
            if (!done) {
                p.destroyForcibly();
            }
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertTrue(done, "run " + run + " did not end: " + out);
            assertTrue(out.contains("SIGTERM during backward"), "run " + run + " never reached backward: " + out);
            assertFalse(out.contains("A fatal error"), "run " + run + " crashed: " + out);
            assertEquals(143, p.exitValue(), "run " + run + ": " + out);
        }
        try (var s = Files.list(dir)) {
            assertTrue(s.noneMatch(f -> f.getFileName().toString().startsWith("hs_err")), "a crash log was written");
        }
    }
}
