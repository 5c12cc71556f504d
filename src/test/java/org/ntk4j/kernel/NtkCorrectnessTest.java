package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.testing.FiniteDifferences;
import org.ntk4j.testing.TinyMlp;

/**
 * The kernel paths against each other in float64: the generic Jacobian path against central finite
 * differences, and the structured path against the Jacobian path, in every mode, per layer and per
 * parameter, for X1 = X2 and X1 ≠ X2.
 *
 * <p>Tolerances. Jacobian vs structured: the same sums in a different order in float64, so
 * agreement is ~1e-15 relative; 1e-10 leaves room for summation order over ~10³ terms while still
 * catching any missing factor (a wrong scale or a dropped bias is an O(1) error). Finite differences
 * on a smooth (tanh) net with step h = 1e-5: truncation error ~h²·|f'''| ≈ 1e-10 and rounding
 * ~1e-16/h ≈ 1e-11 per derivative, so a relative kernel error below 1e-7 is a safe bound.
 */
class NtkCorrectnessTest {
    static NDManager manager;

    @BeforeAll
    static void setUp() {
        manager = NDManager.newBaseManager();
    }

    @AfterAll
    static void tearDown() {
        manager.close();
    }

    static Network net(String activation, String param, boolean bias, double sigmaB) {
        return new TinyMlp(7, 5, 3, activation, param, 1.3, sigmaB, bias).build(manager, 42);
    }

    static NDArray inputs(int n, long seed) {
        return TinyMlp.inputs(manager, n, seed);
    }

    @Test
    void jacobianMatchesFiniteDifferences() {
        try (Network net = net("tanh", "ntk", true, 0.7)) {
            NDArray x1 = inputs(3, 1);
            NDArray x2 = inputs(2, 2);
            KernelResult k = Ntk.of(net)
                    .mode(Mode.FULL)
                    .method(Method.JACOBIAN)
                    .float64()
                    .compute(x1, x2);
            double[][][][] fd = FiniteDifferences.ntk(net, x1, x2, 1e-5, manager);
            FiniteDifferences.Gap gap = FiniteDifferences.gap(k.total(), fd);
            double maxDiff = gap.maxDiff();
            double maxRef = gap.maxRef();
            assertTrue(maxRef > 0.1, "kernel should be non-trivial");
            assertTrue(maxDiff / maxRef < 1e-7, "jacobian vs finite differences: relative error " + maxDiff / maxRef);
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "relu:standard:true",
                "tanh:ntk:true",
                "erf:ntk:false",
                "linear:standard:false",
                "quadratic:ntk:true"
            })
    void structuredMatchesJacobianInEveryMode(String config) {
        String[] c = config.split(":");
        try (Network net = net(c[0], c[1], Boolean.parseBoolean(c[2]), 0.5)) {
            NDArray x1 = inputs(5, 3);
            NDArray x2 = inputs(4, 4);
            for (Mode mode : Mode.values()) {
                for (boolean symmetric : new boolean[] {true, false}) {
                    NDArray b = symmetric ? null : x2;
                    // small memory budget forces several tiles, exercising the tiling and the mirroring
                    KernelResult s = Ntk.of(net)
                            .mode(mode)
                            .method(Method.STRUCTURED)
                            .parameterParts()
                            .float64()
                            .memory(4000)
                            .compute(x1, b);
                    KernelResult j = Ntk.of(net)
                            .mode(mode)
                            .method(Method.JACOBIAN)
                            .parameterParts()
                            .float64()
                            .compute(x1, b);
                    String what = config + " " + mode + (symmetric ? " X1=X1" : " X1≠X2");
                    assertTrue(
                            s.total().relativeError(j.total()) < 1e-10,
                            what + ": total rel err " + s.total().relativeError(j.total()));
                    assertEquals(j.layers().keySet(), s.layers().keySet(), what);
                    for (String key : j.layers().keySet()) {
                        double err =
                                s.layers().get(key).relativeError(j.layers().get(key));
                        assertTrue(err < 1e-10, what + " " + key + ": rel err " + err);
                    }
                }
            }
        }
    }

    @Test
    void perLayerKernelsSumToTotalAndModesAreConsistent() {
        try (Network net = net("relu", "standard", true, 0.3)) {
            NDArray x1 = inputs(4, 5);
            KernelResult full = Ntk.of(net).mode(Mode.FULL).perLayer().float64().compute(x1);
            KernelResult trace =
                    Ntk.of(net).mode(Mode.TRACE).perLayer().float64().compute(x1);
            KernelResult diag = Ntk.of(net).mode(Mode.DIAGONAL).float64().compute(x1);
            KernelResult mean =
                    Ntk.of(net).mode(Mode.TRACE).meanNormalised().float64().compute(x1);
            assertEquals(
                    List.of("dense1", "dense2", "dense3"),
                    List.copyOf(full.layers().keySet()));
            double[][] fromFull = full.total().traced();
            for (int i = 0; i < 4; i++) {
                for (int j = 0; j < 4; j++) {
                    double sumLayers = 0;
                    for (KernelMatrix l : trace.layers().values()) {
                        sumLayers += l.get(i, j);
                    }
                    assertEquals(trace.total().get(i, j), sumLayers, 1e-12 * Math.abs(sumLayers) + 1e-14);
                    assertEquals(trace.total().get(i, j), fromFull[i][j], 1e-12 * Math.abs(fromFull[i][j]));
                    assertEquals(
                            trace.total().get(i, j), diag.total().traced()[i][j], 1e-12 * Math.abs(fromFull[i][j]));
                    assertEquals(trace.total().get(i, j) / 3, mean.total().get(i, j), 1e-12 * Math.abs(fromFull[i][j]));
                    // symmetry Θ[i,j,o,p] = Θ[j,i,p,o]
                    for (int a = 0; a < 3; a++) {
                        for (int b = 0; b < 3; b++) {
                            assertEquals(
                                    full.total().get(i, j, a * 3 + b),
                                    full.total().get(j, i, b * 3 + a),
                                    1e-12);
                        }
                    }
                }
            }
        }
    }

    /**
     * Lou, Mingard &amp; Hayou, Equilibrium Hypothesis, Eq. 7: the traced Θ_l of a dense layer is (c_w²·A1A2ᵀ + c_b²) ⊙
     * Σ_o Δ1_oΔ2_oᵀ.
     */
    @Test
    void denseLayerKernelIsForwardTimesBackwardFactor() {
        try (Network net = net("tanh", "ntk", true, 0.4)) {
            NDArray x1 = inputs(5, 8);
            NDArray x2 = inputs(3, 9);
            KernelResult k = Ntk.of(net)
                    .mode(Mode.TRACE)
                    .perLayer()
                    .factorKernels()
                    .float64()
                    .compute(x1, x2);
            assertEquals(6, k.factorKernels().size());
            for (org.ntk4j.model.Module l : net.parameterLayers()) {
                org.ntk4j.model.TangentLayer t = (org.ntk4j.model.TangentLayer) l;
                KernelMatrix theta = k.layers().get(l.name());
                KernelMatrix fw = k.factorKernels().get(l.name() + ".forward");
                KernelMatrix bw = k.factorKernels().get(l.name() + ".backward");
                for (int i = 0; i < 5; i++) {
                    for (int j = 0; j < 3; j++) {
                        double expected =
                                (t.weightScale() * t.weightScale() * fw.get(i, j) + t.biasScale() * t.biasScale())
                                        * bw.get(i, j);
                        assertEquals(expected, theta.get(i, j), 1e-12 * Math.abs(expected) + 1e-15, l.name());
                    }
                }
            }
        }
    }

    /**
     * The Θ^h of Seleznova et al., Neural (Tangent Kernel) Collapse: the NTK of the penultimate features h, through the
     * parameters before the classifier.
     */
    @Test
    void lastLayerFeaturesKernel() {
        try (Network net = net("tanh", "standard", true, 0.5)) {
            Network h = net.features();
            assertEquals(5, h.outputs());
            assertEquals(
                    List.of("dense1", "dense2"),
                    h.parameterLayers().stream()
                            .map(org.ntk4j.model.Module::name)
                            .toList());
            NDArray x = inputs(4, 10);
            // f = W_L h + b_L
            org.ntk4j.model.Dense last =
                    (org.ntk4j.model.Dense) net.parameterLayers().get(2);
            double[] hv = FiniteDifferences.eval(h, x, manager);
            double[] f = FiniteDifferences.eval(net, x, manager);
            double[] w = last.weight().value().toDoubleArray();
            double[] b = last.bias().value().toDoubleArray();
            for (int i = 0; i < 4; i++) {
                for (int o = 0; o < 3; o++) {
                    double s = b[o];
                    for (int k = 0; k < 5; k++) {
                        s += w[o * 5 + k] * hv[i * 5 + k];
                    }
                    assertEquals(f[i * 3 + o], s, 1e-12);
                }
            }
            KernelResult st = Ntk.of(h)
                    .mode(Mode.FULL)
                    .method(Method.STRUCTURED)
                    .float64()
                    .compute(x);
            KernelResult jac =
                    Ntk.of(h).mode(Mode.FULL).method(Method.JACOBIAN).float64().compute(x);
            assertTrue(st.total().relativeError(jac.total()) < 1e-10);
            double[][][][] fd = FiniteDifferences.ntk(h, x, x, 1e-5, manager);
            double maxRef = 0;
            double maxDiff = 0;
            for (int i = 0; i < 4; i++) {
                for (int j = 0; j < 4; j++) {
                    for (int a = 0; a < 5; a++) {
                        for (int c = 0; c < 5; c++) {
                            maxRef = Math.max(maxRef, Math.abs(fd[i][j][a][c]));
                            maxDiff = Math.max(
                                    maxDiff,
                                    Math.abs(fd[i][j][a][c] - jac.total().get(i, j, a * 5 + c)));
                        }
                    }
                }
            }
            assertTrue(maxDiff / maxRef < 1e-7, "Θ^h vs finite differences: " + maxDiff / maxRef);
            h.close();
            assertEquals(3, net.parameterLayers().size(), "closing the view leaves the network intact");
            net.forward(x.duplicate(), org.ntk4j.model.Forward.eval(manager));
        }
    }

    /** Kernels accumulated in memory-mapped files equal the heap ones (float32 storage: 1e-6 relative). */
    @Test
    void onDiskKernelsEqualHeapKernels(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        try (Network net = net("relu", "standard", true, 0.2)) {
            NDArray x1 = inputs(6, 12);
            KernelResult heap =
                    Ntk.of(net).mode(Mode.FULL).perLayer().memory(5000).compute(x1);
            KernelResult disk = Ntk.of(net)
                    .mode(Mode.FULL)
                    .perLayer()
                    .memory(5000)
                    .onDisk(dir)
                    .compute(x1);
            assertTrue(disk.total().onDisk() && !heap.total().onDisk());
            assertTrue(disk.total().relativeError(heap.total()) < 1e-6);
            for (String k : heap.layers().keySet()) {
                assertTrue(disk.layers().get(k).relativeError(heap.layers().get(k)) < 1e-6, k);
            }
            try (var files = java.nio.file.Files.list(dir)) {
                assertEquals(4, files.count(), "one mapped file per kernel (total + 3 layers)");
            }
            disk.total().release();
            disk.layers().values().forEach(KernelMatrix::release);
            try (var files = java.nio.file.Files.list(dir)) {
                assertEquals(0, files.count(), "released kernels delete their files");
            }
        }
    }
}
