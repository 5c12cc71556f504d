package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.report.NpzReader;

/**
 * {@code ntk4j kernel --approx} end to end on the bundled mnist-subset: the NPZ holds features (never N×N) or the
 * pNTK, the sidecar the error against the exact kernel, {@code regress} reads both; user mistakes are one line.
 */
class ApproxCliTest {
    static JsonObject sidecar(Path npz) throws Exception {
        String name = npz.getFileName().toString().replace(".npz", ".json");
        return JsonParser.parseString(Files.readString(npz.resolveSibling(name)))
                .getAsJsonObject();
    }

    static CliTest.Run kernel(Path out, String approx, String... more) {
        java.util.List<String> a = new java.util.ArrayList<>(java.util.List.of(
                "kernel",
                "--model",
                "mlp-quickstart",
                "--n",
                "24",
                "--test",
                "8",
                "--approx",
                approx,
                "--out",
                out.toString()));
        a.addAll(java.util.List.of(more));
        return CliTest.run(a.toArray(String[]::new));
    }

    @Test
    void nystromWritesFeaturesAndItsErrorAndRegressReadsThem(@TempDir Path dir) throws Exception {
        Path k = dir.resolve("k.npz");
        CliTest.Run r = kernel(k, "nystrom:8", "--explain");
        assertEquals(0, r.code(), r.err());
        NpzReader npz = new NpzReader(k);
        assertTrue(!npz.has("ntk"), "no N×N kernel in a Nyström file");
        NpzReader.Array f = npz.read("features");
        assertEquals(24, f.rows());
        assertTrue(f.cols() >= 1 && f.cols() <= 8, "rank " + f.cols());
        assertEquals(8, npz.read("features_test").rows());
        assertEquals(8, npz.read("landmarks").data().length);
        JsonObject a = sidecar(k).getAsJsonObject("approx");
        assertEquals("nystrom:8:uniform", a.get("spec").getAsString());
        JsonObject e = a.getAsJsonObject("error");
        assertEquals(24, e.get("holdout_rows").getAsInt());
        double err = e.get("relative_frobenius_error").getAsDouble();
        assertTrue(err > 0 && err < 1, "error " + err);
        assertTrue(e.has("exact_regression_accuracy") && e.has("approx_eigenvalues"), e.toString());
        CliTest.Run g = CliTest.run(
                "regress", "--kernel", k.toString(), "--out", dir.resolve("reg").toString());
        assertEquals(0, g.code(), g.err());
        String res = Files.readString(dir.resolve("reg/results.json"));
        assertTrue(res.contains("\"test_accuracy\""), res);
    }

    /** With every image a landmark in float64, Nyström is the exact kernel: the held-out error is rounding. */
    @Test
    void allLandmarksInFloat64HaveNoError(@TempDir Path dir) throws Exception {
        Path k = dir.resolve("k.npz");
        CliTest.Run r = kernel(k, "nystrom:24", "--dtype", "float64");
        assertEquals(0, r.code(), r.err());
        double err = sidecar(k)
                .getAsJsonObject("approx")
                .getAsJsonObject("error")
                .get("relative_frobenius_error")
                .getAsDouble();
        // features stored as float32: ~1e-7 relative per entry
        assertTrue(err < 1e-5, "error " + err);
    }

    @Test
    void pntkWritesAnNxNKernelThatRegressReads(@TempDir Path dir) throws Exception {
        Path k = dir.resolve("p.npz");
        CliTest.Run r = kernel(k, "pntk");
        assertEquals(0, r.code(), r.err());
        NpzReader npz = new NpzReader(k);
        assertEquals(24, npz.read("ntk").rows());
        assertEquals(8, npz.read("ntk_test").rows());
        JsonObject a = sidecar(k).getAsJsonObject("approx");
        assertTrue(a.get("reference").getAsString().contains("divided by O"), a.toString());
        double align = a.getAsJsonObject("error").get("alignment").getAsDouble();
        assertTrue(align > 0.5 && align <= 1 + 1e-9, "alignment " + align);
        CliTest.Run g = CliTest.run(
                "regress", "--kernel", k.toString(), "--out", dir.resolve("reg").toString());
        assertEquals(0, g.code(), g.err());
    }

    @Test
    void mistakesAreOneLine(@TempDir Path dir) {
        Path k = dir.resolve("k.npz");
        CliTest.assertOneLineError(kernel(k, "nystrom:0"), "the rank must be >= 1");
        CliTest.assertOneLineError(kernel(k, "nystrom:100"), "only 24 train images");
        CliTest.assertOneLineError(kernel(k, "nystrom:8:kmeans"), "'kmeans' is not uniform or leverage");
        CliTest.assertOneLineError(kernel(k, "pntk", "--mode", "full"), "--approx computes traced kernels");
        CliTest.assertOneLineError(kernel(k, "pntk", "--approx-holdout", "1"), "--approx-holdout must be >= 2");
        CliTest.assertOneLineError(kernel(k, "nystrom:auto", "--approx-error", "2"), "--approx-error must be");
        CliTest.assertOneLineError(
                CliTest.run(
                        "kernel",
                        "--model",
                        "mlp-quickstart",
                        "--n",
                        "4",
                        "--approx-holdout",
                        "5",
                        "--out",
                        k.toString()),
                "apply with --approx");
        assertTrue(!Files.exists(k), "nothing written on a mistake");
    }
}
