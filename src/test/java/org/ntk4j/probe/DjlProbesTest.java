package org.ntk4j.probe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.ParameterStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.ejml.data.DMatrixRMaj;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.metrics.FeatureAnsatz;
import org.ntk4j.metrics.NeuralCollapse;
import org.ntk4j.model.DjlParams;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.model.TangentLayer;
import org.ntk4j.report.Figure;
import org.ntk4j.report.NpzReader;
import org.ntk4j.spec.ModelSpec;

/**
 * All three probes on a DJL model, as a DJL user runs them: a DJL CNN trained by EasyTrain with the NTK, neural
 * collapse and feature-ansatz probes and a run folder ({@link DjlCnnRun}) logs every probe at initialisation and each
 * epoch end, keeps its weights under qualified names (two DJL layers both own a "weight"), and writes its report;
 * neural collapse matches a direct computation on the DJL block's own penultimate outputs; the feature ansatz and
 * the penultimate features of a DJL MLP equal those of the same network built from a spec; and without XChart on the
 * classpath (a consumer's case) the same run writes data files instead of line-chart PNGs and fails nowhere.
 */
class DjlProbesTest {
    @Test
    void aDjlCnnWithAllThreeProbesAndARunFolder(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            List<Map<String, Object>> recs = DjlCnnRun.run(dir, m).records();
            for (String p : List.of("ntk", "nc", "nfa")) {
                assertEquals(
                        List.of(0L, 3L, 6L),
                        recs.stream()
                                .filter(r -> p.equals(r.get("probe")))
                                .map(r -> (Long) r.get("step"))
                                .toList(),
                        p + " at initialisation and after each of the 2 epochs of 3 steps");
            }
            assertFalse(recs.toString().contains("[D@"), "records print their values: " + recs);
            Map<String, Object> ntk0 = recs.get(0);
            assertTrue(ntk0.get("eigenvalues") instanceof List<?> l && !l.isEmpty(), "eigenvalues as a list");
            assertTrue(
                    String.valueOf(ntk0.get("layer_cka_skipped")).startsWith("off"),
                    "layer CKA is off in a probe made from the library");
            Map<String, Object> nfaEnd = last(recs, "nfa");
            for (String k : List.of("nfc.05Linear", "nfc.07Linear", "cnfc.05Linear", "cnfc.07Linear")) {
                assertTrue(nfaEnd.get(k) instanceof Double d && d > -1 && d <= 1 + 1e-12, k + " in " + nfaEnd);
            }

            // the weights at step 0 under qualified names (DJL names both layers' arrays "weight")
            List<String> names = new NpzReader(dir.resolve(NtkProbe.WEIGHTS_INIT)).names();
            assertEquals(
                    List.of(
                            "01Conv2d.weight",
                            "01Conv2d.bias",
                            "05Linear.weight",
                            "05Linear.bias",
                            "07Linear.weight",
                            "07Linear.bias"),
                    names);
            assertTrue(Files.isRegularFile(dir.resolve("ntk-step000006.npz")));
            Map<String, Figure> figs = Figure.read(dir);
            for (String f : List.of(
                    "loss-steps.png",
                    "alignment.png",
                    "neural-collapse.png",
                    "feature-ansatz.png",
                    "ntk-heatmap-init.png",
                    "ntk-heatmap.png")) {
                assertTrue(figs.containsKey(f), f + " in " + figs.keySet());
            }
            String html = Files.readString(dir.resolve("report.html"));
            assertTrue(html.contains("NC1 / NC2 / NC3 / NC4 at end"), "neural collapse in the summary");
            assertTrue(html.contains("<h2>Provenance</h2>") && html.contains("DJL"), "provenance");
        }
    }

    @Test
    void neuralCollapseOfADjlCnnIsThatOfTheBlocksOwnPenultimateOutputs(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            // train as above, then measure the trained block directly
            List<double[]> direct = new ArrayList<>();
            List<double[]> probed = new ArrayList<>();
            double[] stats = new double[3];
            LabelledSet data = DjlCnnRun.data();
            DjlProbeListener probes = DjlCnnRun.run(dir, m, block -> {
                try (NDManager sub = m.newSubManager()) {
                    Network net = Network.ofBlock(block, DjlCnnRun.SAMPLE, sub);
                    probed.addAll(List.of(NeuralCollapseProbe.features(net.features(), data)));
                    direct.addAll(List.of(penultimate(block, sub, data)));
                    TangentLayer cl = net.classifier();
                    NeuralCollapse nc = NeuralCollapse.of(
                            direct.toArray(new double[0][]),
                            data.labels(),
                            NeuralCollapseProbe.matrix(cl.weight().value(), 1.0),
                            NeuralCollapseProbe.values(cl.bias().value(), 1.0));
                    stats[0] = nc.nc1Papyan();
                    stats[1] = nc.nc2();
                    stats[2] = nc.nc4();
                }
            });
            for (int i = 0; i < direct.size(); i++) {
                assertArrayEquals(direct.get(i), probed.get(i), 1e-6, "sample " + i);
            }
            Map<String, Object> end = last(probes.records(), "nc");
            assertEquals(stats[0], (Double) end.get("nc1_papyan"), 1e-6 * Math.abs(stats[0]));
            assertEquals(stats[1], (Double) end.get("nc2"), 1e-6);
            assertEquals(stats[2], (Double) end.get("nc4"), 1e-12);
        }
    }

    @Test
    void featureAnsatzAndFeaturesOfADjlMlpEqualThoseOfItsSpecTwin() {
        try (NDManager m = NDManager.newBaseManager()) {
            SequentialBlock block = new SequentialBlock()
                    .add(Linear.builder().setUnits(7).build())
                    .add(Activation.tanhBlock())
                    .add(Linear.builder().setUnits(3).build());
            block.initialize(m, DataType.FLOAT64, new Shape(1, 6));
            Network djl = Network.ofBlock(block, new Shape(6), m);
            ModelSpec spec = ModelSpec.parse(
                    "{\"arch\":\"mlp\",\"input\":[6],\"widths\":[7],\"outputs\":3,\"activation\":\"tanh\","
                            + "\"parameterization\":\"standard\"}",
                    "test");
            try (Network twin = Network.build(spec, 1, m, DataType.FLOAT64)) {
                DjlParams.copy(block, twin);
                Map<String, DMatrixRMaj> w0djl = FeatureAnsatz.weights(djl);
                Map<String, DMatrixRMaj> w0twin = FeatureAnsatz.weights(twin);
                // the same update of the first layer in both
                NDArray w = block.getChildren()
                        .get(0)
                        .getValue()
                        .getParameters()
                        .get(0)
                        .getValue()
                        .getArray();
                w.muli(m.full(new Shape(), 1.25f, DataType.FLOAT64));
                Param p = twin.trainableParams().get(0);
                p.set(p.value().mul(m.full(new Shape(), 1.25f, DataType.FLOAT64)));

                Random r = new Random(9);
                double[] v = new double[10 * 6];
                for (int i = 0; i < v.length; i++) {
                    v[i] = r.nextGaussian();
                }
                NDArray x = m.create(v, new Shape(10, 6)).duplicate();
                List<FeatureAnsatz.Layer> a = FeatureAnsatz.measure(djl, x, w0djl);
                List<FeatureAnsatz.Layer> b = FeatureAnsatz.measure(twin, x, w0twin);
                assertEquals(
                        List.of("01Linear", "03Linear"),
                        a.stream().map(FeatureAnsatz.Layer::name).toList());
                assertEquals(b.size(), a.size());
                for (int l = 0; l < a.size(); l++) {
                    assertEquals(b.get(l).nfc(), a.get(l).nfc(), 1e-10, "NFC of layer " + l);
                    assertEquals(b.get(l).centred().nfc(), a.get(l).centred().nfc(), 1e-10, "C-NFC of layer " + l);
                }
                LabelledSet d =
                        new LabelledSet("x", toFloats(v), new int[] {6}, new int[] {0, 1, 2, 0, 1, 2, 0, 1, 2, 0}, 3);
                double[][] hd = NeuralCollapseProbe.features(djl.features(), d);
                double[][] ht = NeuralCollapseProbe.features(twin.features(), d);
                for (int i = 0; i < hd.length; i++) {
                    assertArrayEquals(ht[i], hd[i], 1e-6, "penultimate features of sample " + i);
                }
            }
        }
    }

    @Test
    void withoutXChartOnTheClasspathPlotsBecomeDataFiles(@TempDir Path dir) throws Exception {
        List<String> cp = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            if (!e.contains("xchart") && !e.contains("pdfbox") && !e.contains("graphics2d")) {
                cp.add(e);
            }
        }
        String javaCmd = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(
                        javaCmd,
                        "-Xmx1g",
                        "-Djava.awt.headless=true",
                        "-Dai.djl.offline=true",
                        "-Dai.djl.pytorch.num_threads=1",
                        "-cp",
                        String.join(java.io.File.pathSeparator, cp),
                        DjlCnnRun.class.getName(),
                        dir.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(5, TimeUnit.MINUTES));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("xchart false"), "XChart really absent: " + out);
        assertFalse(Files.exists(dir.resolve("alignment.png")), "no line-chart PNG");
        for (String f : List.of("alignment.csv", "loss-steps.csv", "neural-collapse.csv", "feature-ansatz.csv")) {
            assertTrue(Files.isRegularFile(dir.resolve(f)), f);
        }
        String csv = Files.readString(dir.resolve("neural-collapse.csv"));
        assertTrue(csv.startsWith("step,"), csv);
        assertEquals(4, csv.strip().split("\n").length, "a header and one row per probe (steps 0, 3, 6)");
        assertTrue(Files.isRegularFile(dir.resolve("ntk-heatmap.png")), "heatmaps are drawn without XChart");
        String html = Files.readString(dir.resolve("report.html"));
        assertTrue(html.contains("data-fig=") && html.contains("alignment.csv"), "the report still charts them");
    }

    private static Map<String, Object> last(List<Map<String, Object>> recs, String probe) {
        Map<String, Object> out = null;
        for (Map<String, Object> r : recs) {
            if (probe.equals(r.get("probe"))) {
                out = r;
            }
        }
        return out;
    }

    /** The outputs of every child but the last, run by DJL itself (eval mode). */
    private static double[][] penultimate(SequentialBlock block, NDManager m, LabelledSet data) {
        NDArray x = m.create(data.features(), new Shape(data.size(), 1, 8, 8));
        ParameterStore ps = new ParameterStore(m, false);
        NDList h = new NDList(x);
        List<Block> children = block.getChildren().values();
        for (Block c : children.subList(0, children.size() - 1)) {
            h = c.forward(ps, h, false);
        }
        NDArray out = h.singletonOrThrow();
        int width = (int) out.getShape().get(1);
        float[] v = out.toFloatArray();
        double[][] r = new double[data.size()][width];
        for (int i = 0; i < r.length; i++) {
            for (int j = 0; j < width; j++) {
                r[i][j] = v[i * width + j];
            }
        }
        return r;
    }

    private static float[] toFloats(double[] v) {
        float[] f = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            f[i] = (float) v[i];
        }
        return f;
    }
}
