package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.report.Npz;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * User mistakes that ended in a stack trace (exit 1) or leaked a Java class name or a library's help link: each is
 * now one line in words with exit status 2, and a full disk says what to do for the command at hand.
 */
class UserMistakesTest {
    /** A Java class name or a link a message must not carry. */
    static final Pattern LEAK =
            Pattern.compile("(?:java|javax|com|org|ai|sun)\\.[a-z]+\\.|\\b[A-Z]\\w*(?:Exception|Error)\\b|https?://");

    static void assertInWords(CliTest.Run r, String mustContain) {
        CliTest.assertOneLineError(r, mustContain);
        assertFalse(LEAK.matcher(r.err()).find(), "a class name or link in: " + r.err());
    }

    /** {@code kernel --model mlp-quickstart MORE --out OUT} refused before any work for the free disk at OUT. */
    static void refusedForDisk(Path out, String... more) {
        java.util.List<String> a = new java.util.ArrayList<>(java.util.List.of("kernel", "--model", "mlp-quickstart"));
        a.addAll(java.util.List.of(more));
        a.addAll(java.util.List.of("--out", out.toString()));
        assertInWords(CliTest.run(a.toArray(String[]::new)), "not enough free disk: --out " + out);
    }

    static String[] tinyTrain(Path out, String... more) {
        String[] base = {
            "train", "--model", "mlp-quickstart", "--n", "2", "--test", "1", "--epochs", "1", "--out", out.toString()
        };
        String[] a = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, a, base.length, more.length);
        return a;
    }

    @Test
    void unknownTrainingChoicesAreNamedNotNullPointers(@TempDir Path dir) throws Exception {
        assertInWords(
                CliTest.run(tinyTrain(dir.resolve("a"), "--schedule", "linear")), "field 'schedule' must be one of");
        assertInWords(CliTest.run(tinyTrain(dir.resolve("b"), "--optimizer", "rmsprop")), "field 'optimizer'");
        assertInWords(CliTest.run(tinyTrain(dir.resolve("c"), "--loss", "hinge")), "field 'loss'");
        Path spec = dir.resolve("t.json");
        Files.writeString(spec, "{\"schedule\": \"linear\"}");
        assertInWords(CliTest.run(tinyTrain(dir.resolve("d"), "--train-spec", spec.toString())), "(got linear)");
    }

    @Test
    void hugePaddingAndWidthsAreRefusedNotOverflowed(@TempDir Path dir) throws Exception {
        assertInWords(
                CliTest.run(tinyTrain(dir.resolve("a"), "--pad", "1000")), "pad 1000: 2000 images of 1×2028×2028");
        Path wide = dir.resolve("wide.json");
        Files.writeString(
                wide, "{\"name\":\"wide\",\"arch\":\"mlp\",\"input\":[784],\"widths\":[100000,100000],\"outputs\":10}");
        assertInWords(
                CliTest.run(
                        "kernel",
                        "--model",
                        wide.toString(),
                        "--n",
                        "2",
                        "--out",
                        dir.resolve("k.npz").toString()),
                "a parameter of 10000000000 values is more than one array holds");
        assertInWords(
                CliTest.run(
                        "train",
                        "--model",
                        wide.toString(),
                        "--n",
                        "2",
                        "--out",
                        dir.resolve("t").toString()),
                "reduce the model's widths");
    }

    @Test
    void regressOnNonFiniteKernelsNamesTheEntry(@TempDir Path dir) throws Exception {
        float[] k = {2, 1, 1, 2};
        float[] kt = {1, 0.5f};
        for (String bad : List.of("ntk", "ntk_test", "y1")) {
            Path f = dir.resolve(bad + ".npz");
            float[] a = k.clone();
            float[] b = kt.clone();
            int[] y = {0, 1};
            Npz npz = new Npz();
            if (bad.equals("ntk")) {
                a[3] = Float.NaN;
            } else if (bad.equals("ntk_test")) {
                b[0] = Float.POSITIVE_INFINITY;
            }
            npz.put("ntk", a, 2, 2).put("ntk_test", b, 1, 2);
            if (bad.equals("y1")) {
                npz.put("y1", new float[] {0, Float.NaN}, 2);
            } else {
                npz.put("y1", y, 2);
            }
            npz.put("y2", new int[] {1}, 1).write(f);
            assertInWords(
                    CliTest.run(
                            "regress",
                            "--kernel",
                            f.toString(),
                            "--out",
                            dir.resolve("r-" + bad).toString()),
                    "'" + bad + "' has 1 non-finite entry");
        }
    }

    @Test
    void fileProblemsAreSaidInWords(@TempDir Path dir) throws Exception {
        assertInWords(
                CliTest.run("kernel", "--model", "mlp-quickstart", "--n", "2", "--out", "/proc/x/K.npz"),
                "no such file or directory");
        assertInWords(
                CliTest.run(
                        "kernel",
                        "--model",
                        "mlp-quickstart",
                        "--n",
                        "2",
                        "--weights",
                        "/proc/x",
                        "--out",
                        dir.resolve("k.npz").toString()),
                "/proc/x");
        Path spec = dir.resolve("t.json");
        Files.writeString(spec, "{\"lr\": [1]}");
        assertInWords(CliTest.run(tinyTrain(dir.resolve("a"), "--train-spec", spec.toString())), "t.json: bad value");
        // a damaged checksums.json in both checkpoints: Gson's message carries its troubleshooting link
        Path run = dir.resolve("run");
        assertEquals(
                0, CliTest.run(ReliabilityTest.tiny("--out", run.toString())).code());
        for (String c : List.of("checkpoint", "checkpoint.prev")) {
            Files.writeString(run.resolve(c).resolve("checksums.json"), "{\"weights.npz\": ");
        }
        assertInWords(CliTest.run("train", "--resume", run.toString()), "checksums.json is damaged");
    }

    @Command(name = "kernel")
    static final class Failing implements Callable<Integer> {
        private static RuntimeException failure;

        @Override
        public Integer call() {
            throw failure;
        }
    }

    static CliTest.Run failing(String name, RuntimeException e) {
        Failing.failure = e;
        CommandLine cl = Main.configure(new CommandLine(new Failing()).setCommandName(name));
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));
        return new CliTest.Run(cl.execute(), "", err.toString());
    }

    @Test
    void aFullDiskSaysWhatToDoForTheCommandAtHand() {
        RuntimeException full = new UncheckedIOException(new IOException("No space left on device"));
        CliTest.Run k = failing("kernel", full);
        assertEquals(1, k.code());
        assertTrue(k.err().strip().endsWith("free some space and run the command again"), k.err());
        assertFalse(k.err().contains("resume"), k.err());
        CliTest.Run t = failing("train", full);
        assertTrue(t.err().contains("free some space and resume the run (ntk4j train --resume DIR)"), t.err());
        // a memory-mapped spill file on a full disk: the JVM's SIGBUS error, not a stack trace
        CliTest.Run m = failing(
                "kernel",
                new RuntimeException(new InternalError("a fault occurred in an unsafe memory access operation")));
        assertEquals(1, m.code());
        assertTrue(m.err().startsWith("ntk4j: error: I/O error on a memory-mapped file"), m.err());
        CliTest.Run io =
                failing("kernel", new UncheckedIOException(new java.nio.file.AccessDeniedException("/x/K.npz")));
        assertEquals(
                "ntk4j: error: I/O error: permission denied: /x/K.npz", io.err().strip());
    }

    @Test
    void spillDirOnAFullDiskIsRefusedBeforeAnyWork(@TempDir Path dir) throws Exception {
        // a 1 MiB file system, as the hostile pass used; needs root to mount (skipped elsewhere)
        Path small = dir.resolve("small");
        Files.createDirectories(small);
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", small.toString())
                .redirectErrorStream(true)
                .start();
        Assumptions.assumeTrue(mount.waitFor() == 0, "cannot mount a small tmpfs here");
        try {
            // 200×200×10×10 float32 = 15.3 MiB: over --memory 12m, so accumulated on disk in --spill-dir
            CliTest.Run r = CliTest.run(
                    "kernel",
                    "--model",
                    "mlp-quickstart",
                    "--n",
                    "200",
                    "--mode",
                    "full",
                    "--memory",
                    "12m",
                    "--spill-dir",
                    small.toString(),
                    "--out",
                    dir.resolve("K.npz").toString());
            assertInWords(r, "not enough free disk");
            assertTrue(r.err().contains("the kernels accumulated on disk (--spill-dir " + small + ")"), r.err());
            // and the output itself on a full disk
            refusedForDisk(small.resolve("K.npz"), "--n", "200", "--mode", "full");
            // a kernel that fits (50×50 float32), beside what does not: the inputs and 269,322 float32 parameters
            refusedForDisk(small.resolve("K.npz"), "--n", "50");
            // the pNTK of 600 images: 1.4 MB of kernel
            refusedForDisk(small.resolve("P.npz"), "--n", "600", "--approx", "pntk");
            // 600 × 512 float32 features (1.2 MB), and 600 × 600 Nyström features
            refusedForDisk(small.resolve("S.npz"), "--n", "600", "--approx", "sketch:512");
            refusedForDisk(small.resolve("N.npz"), "--n", "600", "--approx", "nystrom:600");
            try (var left = Files.list(small)) {
                assertEquals(0, left.count(), "nothing is written before the check");
            }
        } finally {
            new ProcessBuilder("umount", small.toString()).start().waitFor();
        }
    }
}
