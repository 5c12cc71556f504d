package org.ntk4j.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.cli.Main;
import picocli.CommandLine;

/**
 * Issue #11 items 2, 3, 4 and the kernel part of 6: {@code ntk4j kernel} clobbers nothing, checks its
 * output before computing, publishes NPZ and sidecar as one run, removes its temporaries and those
 * of dead processes, and rejects impossible option values with one line and exit 2. Driven through
 * the CLI in-process on tiny kernels (mlp-quickstart on 8 mnist-subset images).
 */
class KernelFilesTest {
    record Run(int code, String out, String err) {}

    static Run run(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    static Run kernel(Path out, String... extra) {
        List<String> a = new java.util.ArrayList<>(List.of(
                "kernel",
                "--model",
                "mlp-quickstart",
                "--dataset",
                "mnist-subset",
                "--n",
                "8",
                "--out",
                out.toString()));
        a.addAll(List.of(extra));
        return run(a.toArray(String[]::new));
    }

    static void assertOneLineError(Run r, String mustContain) {
        assertEquals(2, r.code(), r.err());
        String e = r.err().strip();
        assertFalse(e.contains("\n"), "error must be one line: " + e);
        assertTrue(e.startsWith("ntk4j: error: "), e);
        assertTrue(e.contains(mustContain), "'" + e + "' should mention " + mustContain);
    }

    @Test
    void refusesToOverwriteWithoutForce(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("K.npz");
        assertEquals(0, kernel(out, "--seed", "0").code());
        byte[] first = Files.readAllBytes(out);
        assertOneLineError(kernel(out, "--seed", "1"), "--force");
        assertArrayEquals(first, Files.readAllBytes(out), "K.npz must be untouched");
        assertEquals(0, kernel(out, "--seed", "1", "--force").code());
        assertFalse(java.util.Arrays.equals(first, Files.readAllBytes(out)), "--force replaces it");
    }

    @Test
    void neverReplacesAForeignSidecar(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("run");
        Files.createDirectories(run);
        String modelJson = "{\"arch\": \"mlp\", \"widths\": [784, 16, 10]}\n";
        Files.writeString(run.resolve("model.json"), modelJson);
        assertOneLineError(kernel(run.resolve("model.npz")), "not an ntk4j kernel sidecar");
        assertOneLineError(kernel(run.resolve("model.npz"), "--force"), "not an ntk4j kernel sidecar");
        assertEquals(modelJson, Files.readString(run.resolve("model.json")));
        assertFalse(Files.exists(run.resolve("model.npz")));
    }

    @Test
    void unwritableOutIsAnErrorBeforeAnyWork(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("a-file");
        Files.writeString(file, "x");
        long t0 = System.nanoTime();
        // a big kernel: found before computing, it fails at once
        Run r = run(
                "kernel",
                "--model",
                "mlp-quickstart",
                "--dataset",
                "mnist-subset",
                "--n",
                "2000",
                "--mode",
                "full",
                "--out",
                file.resolve("K.npz").toString());
        assertOneLineError(r, "cannot write");
        assertTrue((System.nanoTime() - t0) / 1e9 < 20, "checked before computing");
    }

    @Test
    void npzAndSidecarDescribeTheSameRun(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("K.npz");
        assertEquals(0, kernel(out, "--seed", "3").code());
        String json = Files.readString(dir.resolve("K.json"));
        String sha =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(out)));
        assertTrue(json.contains("\"npz_sha256\": \"" + sha + "\""), "sidecar carries the NPZ's SHA-256: " + json);
        assertTrue(json.contains("\"format\": \"ntk4j-kernel\""), json);
        try (ZipFile z = new ZipFile(out.toFile())) {
            ZipEntry e = z.getEntry("meta.json.npy");
            assertTrue(e != null, "the NPZ holds its sidecar as meta.json");
            String meta;
            try (InputStream in = z.getInputStream(e)) {
                byte[] b = in.readAllBytes();
                int header = 10 + ((b[8] & 0xff) | (b[9] & 0xff) << 8);
                meta = new String(b, header, b.length - header, StandardCharsets.UTF_8);
            }
            assertTrue(meta.contains("\"seed\": 3") && meta.contains("\"n\": 8"), meta);
        }
        try (var s = Files.list(dir)) {
            assertEquals(
                    List.of("K.json", "K.npz"),
                    s.map(p -> p.getFileName().toString()).sorted().toList(),
                    "no temporaries left");
        }
    }

    @Test
    void staleSpillAndTemporariesOfDeadProcessesAreRemoved(@TempDir Path dir) throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        long dead = p.pid();
        long live = ProcessHandle.current().pid();
        Path deadSpill = dir.resolve(".ntk4j-pid" + dead + ".spill");
        Files.createDirectories(deadSpill);
        Files.writeString(deadSpill.resolve("ntk4j-kernel-1.f32"), "stale");
        Path deadTmp = dir.resolve(".K.npz.ntk4j-pid" + dead + ".npz");
        Files.writeString(deadTmp, "stale");
        Path liveTmp = dir.resolve(".other.npz.ntk4j-pid" + live + ".npz");
        Files.writeString(liveTmp, "in use");
        assertEquals(0, kernel(dir.resolve("K.npz")).code());
        assertFalse(Files.exists(deadSpill), "dead process's spill removed");
        assertFalse(Files.exists(deadTmp), "dead process's temporary removed");
        assertTrue(Files.exists(liveTmp), "a live process's file is kept");
    }

    @Test
    void spillFilesGoToSpillDirAndAreRemoved(@TempDir Path dir) throws Exception {
        Path spill = dir.resolve("spill");
        // the 200×200×10×10 output (15.3 MiB) exceeds --memory 12m: refused, or with --spill-dir accumulated on disk
        assertOneLineError(
                run(
                        "kernel",
                        "--model",
                        "mlp-quickstart",
                        "--dataset",
                        "mnist-subset",
                        "--n",
                        "200",
                        "--mode",
                        "full",
                        "--memory",
                        "12m",
                        "--out",
                        dir.resolve("K.npz").toString()),
                "output kernels alone need 15.3 MiB");
        Run r = run(
                "kernel",
                "--model",
                "mlp-quickstart",
                "--dataset",
                "mnist-subset",
                "--n",
                "200",
                "--mode",
                "full",
                "--memory",
                "12m",
                "--spill-dir",
                spill.toString(),
                "--out",
                dir.resolve("K.npz").toString());
        assertEquals(0, r.code(), r.err());
        try (var s = Files.list(spill)) {
            assertEquals(List.of(), s.toList(), "spill directory emptied");
        }
        try (var s = Files.list(dir)) {
            assertEquals(
                    List.of("K.json", "K.npz", "spill"),
                    s.map(q -> q.getFileName().toString()).sorted().toList());
        }
        // the metrics' row slabs (3 × 200² × 10² float64) cannot sit beside the tiles in 12m: the kernel is still
        // computed and the sidecar says why the metrics are not
        String sidecar = Files.readString(dir.resolve("K.json"));
        assertTrue(sidecar.contains("\"skipped\": \"not computed: their working set"), sidecar);
    }

    @Test
    void impossibleValuesAreOneLineErrors(@TempDir Path dir) {
        Path out = dir.resolve("K.npz");
        assertOneLineError(kernel(out, "--test", "-1"), "--test");
        assertOneLineError(run("kernel", "--model", "mlp-quickstart", "--n", "0", "--out", out.toString()), "--n");
        assertOneLineError(kernel(out, "--memory", "-1g"), "--memory");
        assertOneLineError(kernel(out, "--memory", "0"), "--memory");
        assertOneLineError(kernel(out, "--memory", "99999999999g"), "--memory");
        assertOneLineError(
                run("kernel", "--model", "mlp-quickstart", "--per-class", "0", "--out", out.toString()), "--per-class");
        assertOneLineError(kernel(out, "--pad", "-1"), "--pad");
        assertFalse(Files.exists(out));
    }

    @Test
    void tooSmallBudgetNamesTheSmallestThatWorksInSensibleUnits(@TempDir Path dir) {
        Path out = dir.resolve("K.npz");
        Run r = kernel(out, "--memory", "1k");
        assertOneLineError(r, "memory budget");
        assertFalse(r.err().contains(" 0 MiB"), r.err());
        assertTrue(r.err().matches("(?s).*at least [0-9.]+ (KiB|MiB).*"), r.err());
        // the full kernel of 2000 images (1.5 GiB float32) does not fit 256m, whatever the tiles
        Run full = run(
                "kernel",
                "--model",
                "mlp-quickstart",
                "--dataset",
                "mnist-subset",
                "--n",
                "2000",
                "--mode",
                "full",
                "--memory",
                "256m",
                "--out",
                out.toString());
        assertOneLineError(full, "output kernels alone need 1.49 GiB");
        assertTrue(full.err().contains("--spill-dir"), full.err());
        assertFalse(Files.exists(out));
    }

    @Test
    void sigtermRemovesSpillAndTemporaries(@TempDir Path dir) throws Exception {
        Path spill = dir.resolve("spill");
        Path out = dir.resolve("out");
        List<String> cmd = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dai.djl.offline=true",
                "-Dai.djl.pytorch.num_threads=1",
                "-Dntk4j.root=" + System.getProperty("ntk4j.root", "."),
                "-Djava.awt.headless=true",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "kernel",
                "--model",
                "mlp-quickstart",
                "--dataset",
                "mnist-subset",
                "--n",
                "1000",
                "--mode",
                "full",
                "--memory",
                "96m",
                "--spill-dir",
                spill.toString(),
                "--out",
                out.resolve("K.npz").toString()));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("log").toFile())
                .start();
        try {
            long deadline = System.nanoTime() + 120_000_000_000L;
            boolean spilling = false;
            while (!spilling && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(100);
                if (Files.isDirectory(spill)) {
                    try (var s = Files.walk(spill)) {
                        // the spill file, named by TempFiles: .ntk4j-kernel.f32.ntk4j-pid<PID>@<host>.<k>.tmp
                        spilling = s.anyMatch(f -> f.getFileName().toString().contains("ntk4j-kernel.f32"));
                    }
                }
            }
            assertTrue(spilling, "the kernel spills: " + Files.readString(dir.resolve("log")));
            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        } finally {
            p.destroyForcibly();
        }
        try (var s = Files.list(spill)) {
            assertEquals(List.of(), s.toList(), "spill directory emptied on SIGTERM");
        }
        try (var s = Files.list(out)) {
            assertEquals(List.of(), s.toList(), "no output, no temporaries");
        }
    }
}
