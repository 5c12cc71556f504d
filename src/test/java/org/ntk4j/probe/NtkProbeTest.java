package org.ntk4j.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.ModelSpec;

/**
 * The NTK probe's motion metrics: at initialisation nothing has moved; after the weights change the
 * change, distance and velocity follow their definitions on the kernels the probe saved; and a probe
 * created afresh on the same run folder (a resumed run) reads its first and latest kernels back and
 * logs exactly what the uninterrupted probe logged.
 */
class NtkProbeTest {
    static void perturb(Network net, double factor) {
        Param p = net.trainableParams().get(0);
        p.set(p.value().mul(factor));
    }

    @Test
    void changeAndVelocityContinueAcrossAResume(@TempDir Path dir) {
        LabelledSet probe = Preprocess.balancedSample(Datasets.load("mnist-subset", Split.TEST), 2, 7);
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ModelSpec.resolve("mlp-quickstart"), 0, m)) {
            RunFolder run = new RunFolder(dir);
            NtkProbe live = new NtkProbe(probe, run);
            Map<String, Object> r0 = live.run(net, 0, 0);
            assertEquals(0.0, (double) r0.get("relative_change_from_init"), 0);
            assertEquals(0.0, (double) r0.get("kernel_distance_from_init"), 0);
            assertFalse(r0.containsKey("kernel_velocity"), "no velocity before a second kernel");
            double rank = (double) r0.get("effective_rank");
            assertTrue(rank >= 1 && rank <= probe.size(), "effective rank in [1, n]: " + rank);
            assertEquals(Math.min(NtkProbe.EIGENVALUES, probe.size()), ((List<?>) r0.get("eigenvalues")).size());

            perturb(net, 1.3);
            Map<String, Object> r10 = live.run(net, 10, 0);
            double moved = (double) r10.get("relative_change_from_init");
            assertTrue(moved > 0.01, "scaling the first layer by 1.3 moves the kernel: " + moved);
            assertEquals(
                    (double) r10.get("kernel_distance_from_init") / 10,
                    (double) r10.get("kernel_velocity"),
                    1e-15,
                    "velocity since the previous probe = distance / steps when the previous probe is the first");

            perturb(net, 0.8);
            Map<String, Object> r20 = live.run(net, 20, 1);

            NtkProbe resumed = new NtkProbe(probe, run);
            Map<String, Object> s20 = resumed.run(net, 20, 1);
            for (String key :
                    new String[] {"relative_change_from_init", "kernel_distance_from_init", "kernel_velocity"}) {
                assertEquals(
                        (double) r20.get(key), (double) s20.get(key), 1e-12 * Math.abs((double) r20.get(key)), key);
            }
        }
    }

    private static java.util.Map<String, ai.djl.ndarray.NDArray> read(NDManager m, Path file) {
        java.util.Map<String, ai.djl.ndarray.NDArray> byName = new java.util.LinkedHashMap<>();
        for (ai.djl.ndarray.NDArray a : org.ntk4j.io.Weights.read(file, m)) {
            byName.put(a.getName(), a);
        }
        return byName;
    }

    /**
     * Each saved probe kernel is recomputed, outside the probe, from probe-inputs.npz and the weights in
     * its own ntk-step file (loaded into a network of another seed); weights-init.npz is the network
     * that spec and seed build; a resumed probe leaves both run-level files as they were.
     */
    @Test
    void probeKernelsRecomputeFromTheSavedInputsAndWeights(@TempDir Path dir) throws Exception {
        LabelledSet probe = Preprocess.balancedSample(Datasets.load("mnist-subset", Split.TEST), 2, 7);
        ModelSpec spec = ModelSpec.resolve("mlp-quickstart");
        RunFolder run = new RunFolder(dir);
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(spec, 0, m)) {
            NtkProbe live = new NtkProbe(probe, run);
            live.run(net, 0, 0);
            perturb(net, 1.3);
            live.run(net, 10, 1);
        }
        Path inputs = dir.resolve(NtkProbe.INPUTS);
        Path init = dir.resolve(NtkProbe.WEIGHTS_INIT);
        assertTrue(java.nio.file.Files.isRegularFile(inputs), "probe-inputs.npz written");
        assertTrue(java.nio.file.Files.isRegularFile(init), "weights-init.npz written");
        try (NDManager m = NDManager.newBaseManager()) {
            java.util.Map<String, ai.djl.ndarray.NDArray> in = read(m, inputs);
            ai.djl.ndarray.NDArray x = in.get("x");
            assertEquals(
                    new ai.djl.ndarray.types.Shape(probe.size(), 1, 28, 28),
                    x.getShape(),
                    "x laid out as the kernel NPZ's x1");
            org.junit.jupiter.api.Assertions.assertArrayEquals(probe.features(), x.toFloatArray());
            org.junit.jupiter.api.Assertions.assertArrayEquals(
                    probe.labels(), in.get("y").toIntArray());

            try (Network fresh = Network.build(spec, 0, m)) {
                java.util.Map<String, ai.djl.ndarray.NDArray> w0 = read(m, init);
                assertEquals(fresh.params().size(), w0.size());
                for (Param p : fresh.params()) {
                    org.junit.jupiter.api.Assertions.assertArrayEquals(
                            p.value().toFloatArray(),
                            w0.get(p.name()).toFloatArray(),
                            p.name() + ": weights-init = the network spec and seed build");
                }
            }

            for (long step : new long[] {0, 10}) {
                Path file = dir.resolve(String.format("ntk-step%06d.npz", step));
                java.util.Map<String, ai.djl.ndarray.NDArray> saved = read(m, file);
                try (Network other = Network.build(spec, 12345, m)) {
                    other.loadParameters(file, true);
                    org.ntk4j.kernel.KernelResult k = org.ntk4j.kernel.Ntk.of(other)
                            .mode(org.ntk4j.kernel.factor.Mode.TRACE)
                            .perLayer()
                            .compute(x);
                    java.util.Map<String, org.ntk4j.kernel.KernelMatrix> kernels = new java.util.LinkedHashMap<>();
                    kernels.put("ntk", k.total());
                    k.layers().forEach((name, km) -> kernels.put("ntk." + name, km));
                    for (var e : kernels.entrySet()) {
                        float[] stored = saved.get(e.getKey()).toFloatArray();
                        double[][] again = e.getValue().traced();
                        double scale = 0;
                        for (float v : stored) {
                            scale = Math.max(scale, Math.abs(v));
                        }
                        int n = probe.size();
                        for (int i = 0; i < n; i++) {
                            for (int j = 0; j < n; j++) {
                                assertEquals(
                                        stored[i * n + j],
                                        again[i][j],
                                        2e-7 * scale,
                                        file.getFileName() + " " + e.getKey() + "[" + i + "," + j + "] recomputed");
                            }
                        }
                    }
                }
            }
        }

        byte[] inputsBefore = java.nio.file.Files.readAllBytes(inputs);
        byte[] initBefore = java.nio.file.Files.readAllBytes(init);
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(spec, 3, m)) {
            new NtkProbe(probe, run).run(net, 20, 2); // a resumed run, with other weights
        }
        org.junit.jupiter.api.Assertions.assertArrayEquals(inputsBefore, java.nio.file.Files.readAllBytes(inputs));
        org.junit.jupiter.api.Assertions.assertArrayEquals(initBefore, java.nio.file.Files.readAllBytes(init));
    }

    /**
     * Eq. 5 of the Equilibrium Hypothesis as the probe logs it equals {@link org.ntk4j.metrics.LayerCka#perLayer} of a FULL
     * per-layer kernel computed here on the same weights and points, at init and after the weights moved; the
     * traced-centred alignment is logged under its own name, equal to the old key, and is a different number.
     */
    @Test
    void layerCkaIsEq5OfTheFullKernelOnTheSamePoints() {
        LabelledSet probe = Preprocess.balancedSample(Datasets.load("mnist-subset", Split.TRAIN), 2, 7);
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ModelSpec.resolve("mlp-quickstart"), 0, m)) {
            NtkProbe p = NtkProbe.builder(probe).layerCka(true).build();
            for (long step : new long[] {0, 10}) {
                if (step > 0) {
                    perturb(net, 1.3);
                }
                Map<String, Object> r = p.run(net, step, (int) step);
                org.ntk4j.kernel.KernelResult full = org.ntk4j.kernel.Ntk.of(net)
                        .mode(org.ntk4j.kernel.factor.Mode.FULL)
                        .perLayer()
                        .compute(org.ntk4j.train.Arrays2.inputs(m, net, probe, 0, probe.size()));
                double[] direct = org.ntk4j.metrics.LayerCka.perLayer(full, probe.labels(), 10);
                String[] names = org.ntk4j.metrics.LayerCka.layerNames(full);
                assertEquals(3, names.length);
                boolean differs = false;
                for (int l = 0; l < names.length; l++) {
                    Object logged = r.get("layer_cka." + names[l]);
                    assertTrue(logged instanceof Double, "layer_cka." + names[l] + " logged: " + r.keySet());
                    // same weights, points and code path: equal up to float64 summation order
                    assertEquals(
                            direct[l], (double) logged, 1e-9 * Math.abs(direct[l]), "step " + step + " " + names[l]);
                    assertTrue(direct[l] > 0 && direct[l] < 1, names[l] + ": A_l in (0, 1): " + direct[l]);
                    double traced = (double) r.get("traced_centred_alignment." + names[l]);
                    assertEquals(
                            (double) r.get("centered_alignment." + names[l]), traced, 0, "old key kept, same value");
                    differs |= Math.abs(traced - direct[l]) > 0.01;
                }
                assertTrue(differs, "Eq. 5 is not the traced-centred alignment");
                assertEquals(
                        org.ntk4j.metrics.LayerCka.of(full.total(), probe.labels(), 10),
                        (double) r.get("layer_cka"),
                        1e-9,
                        "Eq. 4 of the whole network");
            }
            Map<String, Object> skipped =
                    NtkProbe.builder(probe).layerCkaMax(199).build().run(net, 0, 0);
            assertFalse(skipped.containsKey("layer_cka"), "N·O = 200 > 199: not computed");
            assertTrue(
                    ((String) skipped.get("layer_cka_skipped")).contains("200"),
                    String.valueOf(skipped.get("layer_cka_skipped")));
        }
    }
}
