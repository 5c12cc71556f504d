package org.ntk4j.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.Mode;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.spec.ModelSpec;

/**
 * The structured probe pass gives the same kernels whether it runs O backward passes over the tile
 * or one backward pass over the tile replicated O times with one-hot cotangents (fewer
 * launches): full mode, per layer, float64, X1 ≠ X2, on nets with conv, eval-mode batch-norm
 * (non-trivial running statistics), a projection shortcut and dense layers. Only the summation
 * order of the GEMMs may differ, so the kernels agree to rounding (1e-12 relative); a wrong copy
 * or cotangent (δ of another output or sample) would be an O(1) error.
 */
class ReplicatedProbeTest {
    static NDManager manager;

    @BeforeAll
    static void setUp() {
        manager = NDManager.newBaseManager();
    }

    @AfterAll
    static void tearDown() {
        manager.close();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"arch\":\"resnet\",\"depth\":6,\"channels\":[2,3],\"parameterization\":\"ntk\"}",
                "{\"arch\":\"cnn\",\"channels\":[3],\"batchNorm\":true,\"pool\":\"max\",\"head\":[4]}",
                "{\"arch\":\"mlp\",\"widths\":[7,5],\"initializer\":\"he\"}"
            })
    void replicatedEqualsPerOutput(String json) {
        String common = json.contains("mlp")
                ? "\"input\":[2,6,6],\"outputs\":3,\"activation\":\"tanh\",\"sigmaB\":0.4,"
                : ConvNtkTest.COMMON.replace("\"outputs\":2", "\"outputs\":3");
        ModelSpec spec = ModelSpec.parse(json.replace("{\"arch\"", "{" + common + "\"arch\""), "test");
        try (Network net = Network.build(spec, 5, manager, DataType.FLOAT64)) {
            try (NDManager m = manager.newSubManager()) { // eval-mode batch-norm with non-trivial running statistics
                NDArray x = inputs(4, 99);
                x.attach(m);
                NDArray shifted = x.mul(m.full(new Shape(), 1.7f, DataType.FLOAT64))
                        .add(m.full(new Shape(), 0.3f, DataType.FLOAT64));
                net.forward(shifted, Forward.train(m));
            }
            NDArray x1 = inputs(5, 3);
            NDArray x2 = inputs(4, 4);
            KernelResult perOutput = kernel(net, x1, x2, "per-output");
            KernelResult replicated = kernel(net, x1, x2, "replicated");
            double err = replicated.total().relativeError(perOutput.total());
            System.out.printf("%s: replicated vs per-output, relative error %.2e%n", spec.name(), err);
            assertTrue(err < 1e-12, "total: " + err);
            assertEquals(perOutput.layers().keySet(), replicated.layers().keySet());
            for (Map.Entry<String, KernelMatrix> e : perOutput.layers().entrySet()) {
                double le = replicated.layers().get(e.getKey()).relativeError(e.getValue());
                assertTrue(le < 1e-12, e.getKey() + ": " + le);
            }
        }
    }

    static NDArray inputs(int n, long seed) {
        java.util.Random r = new java.util.Random(seed);
        double[] v = new double[n * 72];
        for (int i = 0; i < v.length; i++) {
            v[i] = r.nextGaussian();
        }
        return Module.create64(manager, v, new Shape(n, 2, 6, 6));
    }

    private static KernelResult kernel(Network net, NDArray x1, NDArray x2, String scheme) {
        String old = System.getProperty("ntk4j.backward");
        System.setProperty("ntk4j.backward", scheme);
        try {
            return Ntk.of(net)
                    .mode(Mode.FULL)
                    .method(Method.STRUCTURED)
                    .perLayer()
                    .float64()
                    .compute(x1, x2);
        } finally {
            if (old == null) {
                System.clearProperty("ntk4j.backward");
            } else {
                System.setProperty("ntk4j.backward", old);
            }
        }
    }
}
