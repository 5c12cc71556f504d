package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.ejml.data.DMatrixRMaj;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.report.Npz;
import org.ntk4j.theory.KernelRegression;

/**
 * {@code ntk4j regress} end to end on the bundled mnist-subset: {@code kernel --mode trace --test} writes the NPZ,
 * {@code regress} reads it; the oracle decodes the same NPZ with DJL's own NPZ decoder and runs
 * {@link KernelRegression} directly.
 */
class RegressCommandTest {
    static NDList decode(NDManager m, Path f) throws Exception {
        try (InputStream is = Files.newInputStream(f)) {
            return NDList.decode(m, is);
        }
    }

    static DMatrixRMaj matrix(NDList l, String name) {
        var a = l.get(name);
        double[] v = a.toType(ai.djl.ndarray.types.DataType.FLOAT64, false).toDoubleArray();
        long[] s = a.getShape().getShape();
        return new DMatrixRMaj((int) s[0], v.length / (int) s[0], true, v);
    }

    static DMatrixRMaj oneHot(NDList l, String name, int classes) {
        int[] y = l.get(name).toIntArray();
        DMatrixRMaj t = new DMatrixRMaj(y.length, classes);
        for (int i = 0; i < y.length; i++) {
            t.set(i, y[i], 1);
        }
        return t;
    }

    @Test
    void regressMatchesKernelRegressionOnTheKernelFile(@TempDir Path dir) throws Exception {
        Path k = dir.resolve("k.npz");
        CliTest.Run kr = CliTest.run(
                "kernel",
                "--model",
                "mlp-quickstart",
                "--n",
                "40",
                "--test",
                "20",
                "--mode",
                "trace",
                "--out",
                k.toString());
        assertEquals(0, kr.code(), kr.err());
        Path out = dir.resolve("reg");
        CliTest.Run r = CliTest.run("regress", "--kernel", k.toString(), "--out", out.toString(), "--ridge", "1e-6");
        assertEquals(0, r.code(), r.err());
        var json = com.google.gson.JsonParser.parseString(Files.readString(out.resolve("results.json")))
                .getAsJsonObject();
        assertTrue(Files.size(out.resolve("report.html")) > 200);
        try (NDManager m = NDManager.newBaseManager()) {
            NDList l = decode(m, k);
            DMatrixRMaj train = matrix(l, "ntk");
            DMatrixRMaj test = matrix(l, "ntk_test");
            int classes = 10;
            DMatrixRMaj y = oneHot(l, "y1", classes);
            DMatrixRMaj ridge = train.copy();
            for (int i = 0; i < ridge.numRows; i++) {
                ridge.add(i, i, 1e-6);
            }
            DMatrixRMaj f =
                    new KernelRegression(ridge).testPrediction(test, y, null, null, 1, Double.POSITIVE_INFINITY);
            NDList p = decode(m, out.resolve("predictions.npz"));
            DMatrixRMaj got = matrix(p, "f_test");
            assertEquals(20, got.numRows);
            assertEquals(classes, got.numCols);
            double scale = 0;
            for (int i = 0; i < f.getNumElements(); i++) {
                scale = Math.max(scale, Math.abs(f.get(i)));
            }
            for (int i = 0; i < f.getNumElements(); i++) {
                // float32 predictions.npz: relative 1e-5 of the largest prediction
                assertEquals(f.get(i), got.get(i), 1e-5 * scale + 1e-7, "f_test[" + i + "]");
            }
            int[] y2 = l.get("y2").toIntArray();
            int ok = 0;
            for (int i = 0; i < y2.length; i++) {
                int best = 0;
                for (int c = 1; c < classes; c++) {
                    if (f.get(i, c) > f.get(i, best)) {
                        best = c;
                    }
                }
                ok += best == y2[i] ? 1 : 0;
            }
            assertEquals(ok / 20.0, json.get("test_accuracy").getAsDouble(), 1e-12);
            // near-interpolation of the train set with a 1e-6 ridge
            assertTrue(json.get("train_mse").getAsDouble() < 1e-3, json.toString());
        }
    }

    @Test
    void userMistakesAreOneLine(@TempDir Path dir) throws Exception {
        CliTest.assertOneLineError(
                CliTest.run("regress", "--kernel", dir.resolve("none.npz").toString()), "does not exist");
        Path f = dir.resolve("x.npz");
        new Npz().put("v", new float[] {1, 2}, 2).write(f);
        CliTest.assertOneLineError(CliTest.run("regress", "--kernel", f.toString()), "no entry 'ntk'");
        CliTest.assertOneLineError(CliTest.run("regress", "--kernel", f.toString(), "--time", "soon"), "--time");
        CliTest.Run h = CliTest.run("regress", "--help");
        assertEquals(0, h.code());
        assertTrue(h.out().contains("--kernel") && h.out().contains("--ridge"), h.out());
        assertFalse(h.out().isBlank());
    }
}
