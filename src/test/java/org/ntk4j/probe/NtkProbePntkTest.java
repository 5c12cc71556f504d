package org.ntk4j.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;
import org.ntk4j.approx.ApproxSpec;
import org.ntk4j.approx.Pntk;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.metrics.KernelMetrics;
import org.ntk4j.model.Network;
import org.ntk4j.report.NpzReader;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.testing.TinyMlp;
import org.ntk4j.train.Arrays2;

/**
 * The NTK probe on the pseudo-NTK ({@code approx(pntk)}): the kernel it keeps is the pNTK of the same weights, in
 * float64 the block mean (1/O) Σ_{o,p} Θ_op of the Jacobian path's full kernel (an independent derivation) and the
 * {@link Pntk} kernel to 1e-10, in float32 the {@link Pntk} kernel to 1e-6; it is not the traced kernel; its metrics
 * are computed on it; the first record's error against the traced kernel / O is what the two kernels give.
 */
class NtkProbePntkTest {
    private static double max(double[] v) {
        double m = 0;
        for (double d : v) {
            m = Math.max(m, Math.abs(d));
        }
        return m;
    }

    private static double[] kept(Path run, long step, String entry) {
        return new NpzReader(run.resolve(NtkProbe.kernelFile(step))).read(entry).data();
    }

    /** 12 Gaussian points of shape (2, 3), three classes of four. */
    private static LabelledSet tinySet() {
        Random r = new Random(5);
        float[] x = new float[12 * 6];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) r.nextGaussian();
        }
        int[] y = new int[12];
        for (int i = 0; i < 12; i++) {
            y[i] = i % 3;
        }
        return new LabelledSet("gauss", x, new int[] {2, 3}, y, 3);
    }

    @Test
    void float64ProbeKeepsTheBlockMeanOfTheFullKernel(@TempDir Path dir) {
        LabelledSet set = tinySet();
        int n = set.size();
        int o = 3;
        try (NDManager m = NDManager.newBaseManager();
                Network net = TinyMlp.TANH_16.build(m, 11)) {
            NtkProbe probe = NtkProbe.builder(set)
                    .runFolder(new RunFolder(dir))
                    .approx(ApproxSpec.parse("pntk"))
                    .build();
            Map<String, Object> r = probe.run(net, 0, 0);
            assertEquals("pntk", r.get("kernel"));
            double[] p = kept(dir, 0, "ntk");
            assertEquals(n * n, p.length);
            double scale = max(p);

            NDArray x = Arrays2.inputs(m, net, set, 0, n);
            KernelResult full = Ntk.of(net)
                    .mode(Mode.FULL)
                    .method(Method.JACOBIAN)
                    .float64()
                    .compute(x);
            double[] f = full.total().toDoubleArray();
            KernelResult direct = Pntk.compute(net, Ntk.of(net).float64().toOptions(), x, null);
            double[] d = direct.total().toDoubleArray();
            double dd = 0;
            double tt = 0;
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    double trace = 0;
                    for (int a = 0; a < o; a++) {
                        trace += f[((i * n + j) * o + a) * o + a];
                        for (int b = 0; b < o; b++) {
                            s += f[((i * n + j) * o + a) * o + b];
                        }
                    }
                    assertEquals(s / o, p[i * n + j], 1e-10 * scale, "block mean at " + i + "," + j);
                    assertEquals(d[i * n + j], p[i * n + j], 1e-10 * scale, "Pntk at " + i + "," + j);
                    double e = p[i * n + j] - trace / o;
                    dd += e * e;
                    tt += (trace / o) * (trace / o);
                }
            }
            double rel = Math.sqrt(dd / tt);
            assertTrue(rel > 1e-3, "the pNTK is not the traced kernel / O: relative error " + rel);
            assertEquals(
                    rel,
                    (double) r.get(NtkProbe.APPROX_ERROR + ".relative_frobenius_error"),
                    1e-9 * rel,
                    "the recorded error is ‖pNTK − traced/O‖_F / ‖traced/O‖_F");

            // per-layer pNTKs sum to the total (every parameter belongs to one layer)
            double[] sum = new double[n * n];
            int layers = 0;
            for (String name : new NpzReader(dir.resolve(NtkProbe.kernelFile(0))).names()) {
                if (name.startsWith("ntk.")) {
                    double[] l = kept(dir, 0, name);
                    for (int i = 0; i < sum.length; i++) {
                        sum[i] += l[i];
                    }
                    layers++;
                }
            }
            assertEquals(3, layers, "three dense layers");
            for (int i = 0; i < sum.length; i++) {
                assertEquals(p[i], sum[i], 1e-10 * scale, "per-layer sum at " + i);
            }
            full.release();
            direct.release();
        }
    }

    @Test
    void float32ProbeMeasuresThePntkNotTheTracedKernel(@TempDir Path dir) {
        LabelledSet set = Preprocess.balancedSample(Datasets.load("mnist-subset", Split.TRAIN), 2, 7);
        int n = set.size();
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ModelSpec.resolve("mlp-quickstart"), 0, m)) {
            RunFolder run = new RunFolder(dir);
            NtkProbe probe = NtkProbe.builder(set)
                    .runFolder(run)
                    .approx(ApproxSpec.parse("pntk"))
                    .build();
            assertEquals("pntk", probe.kernelName());
            Map<String, Object> r0 = probe.run(net, 0, 0);
            double[] p = kept(dir, 0, "ntk");
            NDArray x = Arrays2.inputs(m, net, set, 0, n);
            KernelResult direct = Pntk.compute(net, Ntk.of(net).toOptions(), x, null);
            double[] d = direct.total().toDoubleArray();
            double scale = max(d);
            for (int i = 0; i < d.length; i++) {
                assertEquals(d[i], p[i], 1e-6 * scale, "Pntk at " + i);
            }
            direct.release();

            // the metrics are those of the pNTK: the alignment recomputed on the kept kernel
            double[][] k = new double[n][];
            for (int i = 0; i < n; i++) {
                k[i] = java.util.Arrays.copyOfRange(p, i * n, (i + 1) * n);
            }
            Map<String, Object> again = new LinkedHashMap<>();
            KernelMetrics.alignment(again, k, KernelMetrics.targets(set, n), KernelMetrics.targetColumns(set));
            assertEquals(
                    (double) again.get(KernelMetrics.ALIGNMENT),
                    (double) r0.get(KernelMetrics.ALIGNMENT),
                    1e-6,
                    "alignment of the pNTK");

            // and not those of the traced kernel: the traced probe's kernel differs
            Path tracedDir = dir.resolve("traced");
            new NtkProbe(set, new RunFolder(tracedDir)).run(net, 0, 0);
            double[] t = kept(tracedDir, 0, "ntk");
            double dd = 0;
            double tt = 0;
            for (int i = 0; i < t.length; i++) {
                double e = p[i] - t[i] / net.outputs();
                dd += e * e;
                tt += t[i] / net.outputs() * t[i] / net.outputs();
            }
            double rel = Math.sqrt(dd / tt);
            assertTrue(rel > 1e-3, "pNTK against traced / O: " + rel);
            assertEquals(rel, (double) r0.get(NtkProbe.APPROX_ERROR + ".relative_frobenius_error"), 1e-4 * rel);
            assertNotNull(r0.get(NtkProbe.APPROX_ERROR + ".approx_regression_accuracy"), "labels: accuracies");
            assertTrue(
                    ((String) r0.get(KernelMetrics.LAYER_CKA + "_skipped")).contains("pNTK"),
                    "layer CKA skipped with a note naming the pNTK");
            assertTrue(((List<?>) r0.get(NtkProbe.APPROX_ERROR + ".exact_eigenvalues")).size() > 1);

            // the error is measured once, at the run's first probe; a resumed probe does not measure it again
            NtkProbeTest.perturb(net, 1.3);
            Map<String, Object> r1 = probe.run(net, 5, 1);
            assertEquals("pntk", r1.get("kernel"));
            assertFalse(r1.containsKey(NtkProbe.APPROX_ERROR + ".relative_frobenius_error"));
            assertTrue((double) r1.get("relative_change_from_init") > 0, "the pNTK moved");
            NtkProbe resumed = NtkProbe.builder(set)
                    .runFolder(run)
                    .approx(ApproxSpec.parse("pntk"))
                    .build();
            Map<String, Object> s1 = resumed.run(net, 5, 1);
            assertFalse(s1.containsKey(NtkProbe.APPROX_ERROR + ".relative_frobenius_error"));
            assertEquals(
                    (double) r1.get("relative_change_from_init"),
                    (double) s1.get("relative_change_from_init"),
                    1e-12,
                    "a resumed pNTK probe continues from the kept pNTKs");
        }
    }

    @Test
    void theBuilderRefusesWhatThePntkCannotGive() {
        LabelledSet set = tinySet();
        UserException e =
                assertThrows(UserException.class, () -> NtkProbe.builder(set).approx(ApproxSpec.parse("nystrom:4")));
        assertTrue(e.getMessage().contains("pntk only"), e.getMessage());
        e = assertThrows(UserException.class, () -> NtkProbe.builder(set)
                .approx(ApproxSpec.parse("pntk"))
                .layerCka(true)
                .build());
        assertTrue(e.getMessage().contains("layer CKA"), e.getMessage());
        assertEquals("traced", NtkProbe.builder(set).build().kernelName());
    }
}
