package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** User mistakes give exit status 2 and exactly one line naming the bad value. */
class CliTest {
    record Run(int code, String out, String err) {}

    /** One 4×4 shard (tiles of 2) of the quickstart MLP's kernel into the store {@code store}. */
    static Run tinyShard(java.nio.file.Path store) {
        return run(
                "kernel",
                "--model",
                "mlp-quickstart",
                "--n",
                "4",
                "--tile",
                "2",
                "--shard-size",
                "4",
                "--rows",
                "0:4",
                "--cols",
                "0:4",
                "--out",
                store.toString());
    }

    static Run run(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    static void assertOneLineError(Run r, String mustContain) {
        assertEquals(2, r.code(), r.err());
        String e = r.err().strip();
        assertFalse(e.contains("\n"), "error must be one line: " + e);
        assertTrue(e.startsWith("ntk4j: error: "), e);
        assertTrue(e.contains(mustContain), "'" + e + "' should mention " + mustContain);
    }

    @Test
    void unknownModelNameListsTheAvailableOnes(@TempDir Path dir) {
        assertOneLineError(
                run(
                        "kernel",
                        "--model",
                        "resnet-9000",
                        "--out",
                        dir.resolve("k.npz").toString()),
                "unknown model 'resnet-9000'");
    }

    @Test
    void badSpecFieldIsNamed(@TempDir Path dir) throws Exception {
        Path spec = dir.resolve("bad.json");
        Files.writeString(spec, "{\"arch\":\"mlp\",\"input\":[784],\"widht\":[10],\"outputs\":10}");
        assertOneLineError(
                run(
                        "kernel",
                        "--model",
                        spec.toString(),
                        "--out",
                        dir.resolve("k.npz").toString()),
                "unknown field 'widht'");
        Files.writeString(spec, "{\"arch\":\"mlp\",\"input\":[784],\"widths\":[-3],\"outputs\":10}");
        assertOneLineError(
                run(
                        "kernel",
                        "--model",
                        spec.toString(),
                        "--out",
                        dir.resolve("k.npz").toString()),
                "field 'widths'");
        Files.writeString(spec, "{\"arch\":\"mlp\",");
        assertOneLineError(
                run(
                        "kernel",
                        "--model",
                        spec.toString(),
                        "--out",
                        dir.resolve("k.npz").toString()),
                "not valid JSON");
    }

    @Test
    void impossibleOptionsAreRejected(@TempDir Path dir) {
        String out = dir.resolve("k.npz").toString();
        assertOneLineError(run("kernel", "--model", "mlp-quickstart", "--mode", "sideways", "--out", out), "--mode");
        assertOneLineError(run("kernel", "--model", "mlp-quickstart", "--n", "999999", "--out", out), "--n 999999");
        assertOneLineError(run("kernel", "--model", "mlp-quickstart", "--memory", "lots", "--out", out), "--memory");
        assertOneLineError(run("kernel", "--model", "mlp-quickstart", "--memory", "1k", "--out", out), "memory budget");
        assertOneLineError(run("kernel", "--model", "mlp-quickstart", "--tf32", "maybe", "--out", out), "--tf32");
        assertOneLineError(
                run(
                        "train",
                        "--model",
                        "mlp-quickstart",
                        "--lr",
                        "-1",
                        "--out",
                        dir.resolve("r").toString()),
                "field 'lr'");
        assertOneLineError(run("train", "--resume", dir.resolve("nothing").toString()), "not a run folder");
        assertOneLineError(
                run(
                        "train",
                        "--model",
                        "mlp-quickstart",
                        "--dataset",
                        "imagenet",
                        "--out",
                        dir.resolve("r").toString()),
                "imagenet");
        assertOneLineError(
                run(
                        "train",
                        "--model",
                        "mlp-quickstart",
                        "--probe",
                        "ntk,ncc",
                        "--out",
                        dir.resolve("r").toString()),
                "unknown probe 'ncc'");
        assertOneLineError(
                run("reproduce", "silent-alignmnet", "--out", dir.resolve("r").toString()),
                "unknown study 'silent-alignmnet'");
        assertFalse(Files.exists(dir.resolve("k.npz")), "no output after a failed run");
    }

    @Test
    void perClassKernelIsBalancedOrderedByClassAndHasBlockMetrics(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("k.npz");
        Run r = run(
                "kernel", "--model", "mlp-quickstart", "--per-class", "3", "--mode", "full", "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        com.google.gson.JsonObject side = com.google.gson.JsonParser.parseString(
                        Files.readString(dir.resolve("k.json")))
                .getAsJsonObject();
        assertEquals(30, side.get("n").getAsInt());
        // the TF32 switch is recorded: default off, which changes nothing on the CPU
        assertEquals("off (no effect on the CPU)", side.get("tf32").getAsString());
        com.google.gson.JsonObject metrics = side.getAsJsonObject("metrics");
        // at initialisation an MLP's NTK is close to Θ ∝ I_O per sample pair: γ_d > γ_c, γ_n > 0, small off-diagonal
        // blocks
        assertTrue(metrics.get("gamma_d").getAsDouble() > metrics.get("gamma_c").getAsDouble(), metrics.toString());
        assertTrue(metrics.get("off_diagonal_blocks_over_gamma_d").getAsDouble() < 0.2, metrics.toString());
        assertTrue(metrics.has("theta_c_over_d"), "every class has 3 samples: label awareness is defined");
        try (NDManagerHolder h = new NDManagerHolder()) {
            int[] y = h.labels(out);
            for (int i = 1; i < y.length; i++) {
                assertTrue(y[i - 1] <= y[i], "ordered by class");
            }
        }
        assertOneLineError(
                run("kernel", "--model", "mlp-quickstart", "--per-class", "0", "--out", out.toString()), "--per-class");
    }

    /** Reads y1 back from an NPZ with DJL. */
    static final class NDManagerHolder implements AutoCloseable {
        final ai.djl.ndarray.NDManager m = ai.djl.ndarray.NDManager.newBaseManager();

        int[] labels(Path npz) throws java.io.IOException {
            try (var is = Files.newInputStream(npz)) {
                for (ai.djl.ndarray.NDArray a : ai.djl.ndarray.NDList.decode(m, is)) {
                    if ("y1".equals(a.getName())) {
                        return a.toIntArray();
                    }
                }
            }
            throw new AssertionError("no y1 in " + npz);
        }

        @Override
        public void close() {
            m.close();
        }
    }

    @Test
    void regressionSetsNeedMseAndNoClassProbes(@TempDir Path dir) throws Exception {
        Path spec = dir.resolve("lin.json");
        Files.writeString(spec, "{\"arch\": \"linear\", \"input\": [30], \"widths\": [10], \"outputs\": 1}");
        String out = dir.resolve("r").toString();
        assertOneLineError(
                run(
                        "train",
                        "--model",
                        spec.toString(),
                        "--dataset",
                        "whitened-linear-d30",
                        "--loss",
                        "ce",
                        "--out",
                        out),
                "needs loss mse");
        assertOneLineError(
                run(
                        "train",
                        "--model",
                        spec.toString(),
                        "--dataset",
                        "whitened-linear-d30",
                        "--loss",
                        "mse",
                        "--probe",
                        "nc",
                        "--out",
                        out),
                "needs class labels");
        Path k = dir.resolve("k.npz");
        Run r = run(
                "kernel",
                "--model",
                spec.toString(),
                "--dataset",
                "whitened-linear-d30",
                "--n",
                "50",
                "--out",
                k.toString());
        assertEquals(0, r.code(), r.err());
        String side = Files.readString(dir.resolve("k.json"));
        double a = com.google.gson.JsonParser.parseString(side)
                .getAsJsonObject()
                .getAsJsonObject("metrics")
                .get("alignment")
                .getAsDouble();
        assertTrue(a > 0 && a < 1, "alignment with the regression targets: " + a);
        try (var zip = new java.util.zip.ZipFile(k.toFile())) {
            assertTrue(zip.getEntry("y1.npy").getSize() > 50 * 4, "y1 holds the 50 float targets");
        }
    }

    @Test
    void trainWithAllProbesLogsAndPlotsThem(@TempDir Path dir) throws Exception {
        Path r = dir.resolve("run");
        Run res = run(
                "train",
                "--model",
                "mlp-quickstart",
                "--dataset",
                "mnist-subset",
                "--n",
                "20",
                "--epochs",
                "2",
                "--probe",
                "ntk,nc,nfa",
                "--probe-set",
                "3",
                "--out",
                r.toString());
        assertEquals(0, res.code(), res.err());
        java.util.List<String> lines = Files.readAllLines(r.resolve("metrics.jsonl"));
        // probes at init and after each of the 2 epochs
        assertEquals(
                3, lines.stream().filter(l -> l.contains("\"probe\":\"nc\"")).count(), String.join("\n", lines));
        assertEquals(
                3,
                lines.stream()
                        .filter(l -> l.contains("\"probe\":\"ntk\"") && l.contains("kernel_distance_from_init"))
                        .count());
        assertEquals(
                3,
                lines.stream()
                        .filter(l -> l.contains("\"probe\":\"nfa\"") && l.contains("nfc.dense1"))
                        .count());
        assertEquals(
                2, lines.stream().filter(l -> l.contains("cnfc.dense1")).count(), "C-NFC is undefined at W = W(0)");
        for (String png : new String[] {
            "neural-collapse.png",
            "kernel-distance.png",
            "kernel-change.png",
            "kernel-velocity.png",
            "ntk-spectrum.png",
            "alignment.png",
            "label-awareness.png",
            "feature-ansatz.png"
        }) {
            assertTrue(Files.size(r.resolve(png)) > 1000, png);
        }
        assertTrue(Files.readString(r.resolve("report.html")).contains("neural-collapse.png"));
    }

    @Test
    void kernelCommandWritesNpzWithSidecar(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("k.npz");
        Run r = run(
                "kernel",
                "--model",
                "mlp-quickstart",
                "--n",
                "20",
                "--test",
                "5",
                "--per-layer",
                "--mode",
                "full",
                "--out",
                out.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.size(out) > 20 * 20 * 100 * 4, "NPZ holds the full kernel");
        String side = Files.readString(dir.resolve("k.json"));
        assertTrue(side.contains("\"dense1\": \"structured"), side);
        com.google.gson.JsonObject metrics =
                com.google.gson.JsonParser.parseString(side).getAsJsonObject().getAsJsonObject("metrics");
        double a = metrics.get("centered_alignment").getAsDouble();
        assertTrue(a > 0 && a < 1, "centred alignment of an NTK with one-hot labels lies in (0, 1): " + a);
        double rank = metrics.get("effective_rank").getAsDouble();
        assertTrue(rank >= 1 && rank <= 20, "effective rank in [1, N]: " + rank);
        try (var zip = new java.util.zip.ZipFile(out.toFile())) {
            for (String e : new String[] {
                "ntk.npy", "ntk.dense1.npy", "ntk_test.npy", "x1.npy", "y1.npy", "x2.npy", "dense1.weight.npy"
            }) {
                assertTrue(zip.getEntry(e) != null, "missing " + e);
            }
        }
    }
}
