package org.ntk4j.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.testing.FiniteDifferences;

/**
 * Exact NTKs of tiny conv nets through the generic Jacobian path against central finite differences
 * of f over every trainable parameter, in float64, for X1 ≠ X2, full mode (all output pairs).
 *
 * <p>The nets use tanh (smooth) and batch-norm in eval mode with non-trivial running statistics (set
 * by one training-mode forward on another batch first). Max-pooling is piecewise linear, but with
 * random inputs no window has a tie, so with step h = 1e-5 no window's argmax switches. Error
 * budget as NtkCorrectnessTest: truncation ~h²·|f'''| ≈ 1e-10, rounding ~1e-16/h ≈ 1e-11 per
 * derivative, so relative kernel errors below 1e-7 are safe and a wrong factor (O(1)) is caught.
 * The structured method (Dense readout from tangent factors, convs and BN through the Jacobian)
 * must agree with the pure Jacobian path to 1e-10.
 */
@Tag("slow")
class ConvNtkTest {
    static NDManager manager;

    @BeforeAll
    static void setUp() {
        manager = NDManager.newBaseManager();
    }

    @AfterAll
    static void tearDown() {
        manager.close();
    }

    static final String COMMON =
            "\"input\":[2,6,6],\"outputs\":2,\"activation\":\"tanh\",\"sigmaW\":1.2,\"sigmaB\":0.4,";

    @ParameterizedTest
    @ValueSource(
            strings = {
                // conv → BN(eval) → tanh → max-pool → dense, NTK parameterisation with biases
                "{\"arch\":\"cnn\",\"channels\":[3],\"batchNorm\":true,\"pool\":\"max\",\"parameterization\":\"ntk\"}",
                // two convs with average pooling and a hidden dense layer, standard parameterisation
                "{\"arch\":\"cnn\",\"channels\":[2,3],\"pool\":\"avg\",\"head\":[4],\"initializer\":\"torch_default\"}",
                // ResNet: stem, identity block, strided block with a 1×1 conv + BN projection (option B)
                "{\"arch\":\"resnet\",\"depth\":6,\"channels\":[2,3],\"parameterization\":\"ntk\"}",
                // ResNet with option-A (subsample + zero-pad) shortcut, standard parameterisation
                "{\"arch\":\"resnet\",\"depth\":6,\"channels\":[2,4],\"shortcut\":\"pad\",\"initializer\":\"he\"}",
                // DenseNet: one BN-tanh-conv layer per block, two transitions with 2×2 average pooling
                "{\"arch\":\"densenet\",\"depth\":7,\"growth\":2,\"channels\":[2],\"initializer\":\"lecun\"}"
            })
    void jacobianMatchesFiniteDifferences(String json) {
        ModelSpec spec = ModelSpec.parse(json.replace("{\"arch\"", "{" + COMMON + "\"arch\""), "test");
        try (Network net = Network.build(spec, 7, manager, DataType.FLOAT64)) {
            warmRunningStats(net);
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
            assertTrue(maxRef > 1e-3, "kernel should be non-trivial: " + maxRef);
            // kernels run in eval mode: the running statistics must be untouched
            for (Param p : net.params()) {
                if (p.role() == Param.Role.RUNNING_MEAN) {
                    double[] before = p.value().toDoubleArray();
                    Ntk.of(net).mode(Mode.TRACE).method(Method.JACOBIAN).compute(x1, x2);
                    assertTrue(java.util.Arrays.equals(before, p.value().toDoubleArray()), p.name() + " changed");
                    assertTrue(java.util.Arrays.stream(before).anyMatch(v -> v != 0), p.name() + " should be warmed");
                    break;
                }
            }
            assertTrue(
                    maxDiff / maxRef < 1e-7,
                    json + ": jacobian vs finite differences, relative error " + maxDiff / maxRef);

            KernelResult s = Ntk.of(net)
                    .mode(Mode.FULL)
                    .method(Method.STRUCTURED)
                    .perLayer()
                    .float64()
                    .compute(x1, x2);
            double err = s.total().relativeError(k.total());
            assertTrue(err < 1e-10, json + ": structured vs jacobian, relative error " + err);
        }
    }

    /**
     * The structured conv factor (per-sample gradients from im2col patches and batched output
     * gradients) against the Jacobian path, per parameter, in every mode, for X1 = X1 and X1 ≠ X2:
     * the same sums in another order in float64, so 1e-10 relative (a wrong scale, stride, padding
     * or patch order is an O(1) error). Covers strides 1 and 2, 1×1 and 3×3 kernels, padding, no
     * bias (BN-followed convs), bias, and both parameterisations.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"arch\":\"cnn\",\"channels\":[3],\"batchNorm\":true,\"pool\":\"max\",\"parameterization\":\"ntk\"}",
                "{\"arch\":\"cnn\",\"channels\":[2,3],\"pool\":\"avg\",\"head\":[4],\"initializer\":\"torch_default\"}",
                "{\"arch\":\"resnet\",\"depth\":6,\"channels\":[2,3],\"parameterization\":\"ntk\"}",
                "{\"arch\":\"wrn\",\"depth\":10,\"widen\":1,\"parameterization\":\"ntk\",\"bias\":true}",
                "{\"arch\":\"densenet\",\"depth\":7,\"growth\":2,\"channels\":[2],\"initializer\":\"lecun\"}"
            })
    void structuredConvMatchesJacobianInEveryMode(String json) {
        ModelSpec spec = ModelSpec.parse(json.replace("{\"arch\"", "{" + COMMON + "\"arch\""), "test");
        try (Network net = Network.build(spec, 11, manager, DataType.FLOAT64)) {
            warmRunningStats(net);
            NDArray x1 = inputs(4, 3);
            NDArray x2 = inputs(3, 4);
            assertTrue(
                    Ntk.of(net)
                            .method(Method.STRUCTURED)
                            .plan(4, 3)
                            .layer(net.parameterLayers().get(0).name())
                            .structured(),
                    "first conv should take the structured path");
            // every layer (conv, eval batch-norm, dense) has tangent factors, so AUTO takes the batched pass for all
            assertTrue(
                    Ntk.of(net).plan(4, 3).layers().stream().allMatch(l -> l.method() == Method.STRUCTURED),
                    () -> "AUTO plan: " + Ntk.of(net).plan(4, 3));
            for (Mode mode : Mode.values()) {
                for (boolean symmetric : new boolean[] {true, false}) {
                    NDArray b = symmetric ? null : x2;
                    KernelResult j = Ntk.of(net)
                            .mode(mode)
                            .method(Method.JACOBIAN)
                            .parameterParts()
                            .float64()
                            .compute(x1, b);
                    for (boolean pairs : new boolean[] {false, true}) {
                        KernelResult s = Ntk.of(net)
                                .mode(mode)
                                .method(Method.STRUCTURED)
                                .convPairs(pairs)
                                .parameterParts()
                                .float64()
                                .memory(json.contains("wrn") ? 1 << 24 : 200_000)
                                .compute(x1, b);
                        String what =
                                json + " " + mode + (symmetric ? " X1=X1" : " X1≠X2") + (pairs ? " pairs" : " rows");
                        double err = s.total().relativeError(j.total());
                        assertTrue(err < 1e-10, what + ": total rel err " + err);
                        assertEquals(j.layers().keySet(), s.layers().keySet(), what);
                        for (String key : j.layers().keySet()) {
                            double e =
                                    s.layers().get(key).relativeError(j.layers().get(key));
                            assertTrue(e < 1e-10, what + " " + key + ": rel err " + e);
                        }
                    }
                }
            }
        }
    }

    /** One training-mode forward so that eval-mode batch-norm uses non-trivial running statistics. */
    static void warmRunningStats(Network net) {
        try (NDManager m = manager.newSubManager()) {
            NDArray x = inputs(4, 99);
            x.attach(m);
            NDArray shifted =
                    x.mul(m.full(new Shape(), 1.7f, DataType.FLOAT64)).add(m.full(new Shape(), 0.3f, DataType.FLOAT64));
            net.forward(shifted, Forward.train(m));
        }
    }

    static NDArray inputs(int n, long seed) {
        Random r = new Random(seed);
        double[] v = new double[n * 72];
        for (int i = 0; i < v.length; i++) {
            v[i] = r.nextGaussian();
        }
        return Module.create64(manager, v, new Shape(n, 2, 6, 6));
    }
}
