package org.ntk4j.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.ntk4j.UserException;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.spec.ModelSpec;

/**
 * Parameter counts from the spec alone ({@link Models#parameterCount}, what {@code ntk4j models} prints, no network
 * built): the reference architectures' hand-derived counts (derivations in {@code ModelZooTest}), and, for variants
 * small enough to build, the count of the built network; and {@code "layerNorm": true} in a spec puts a LayerNorm
 * after every hidden dense layer, whose structured NTK equals the Jacobian path's.
 */
class SpecParameterCountTest {
    @ParameterizedTest
    @MethodSource("org.ntk4j.model.ModelZooTest#referenceCounts")
    void referenceCountsFromTheSpecAlone(String model, long expected) {
        assertEquals(expected, Models.parameterCount(ModelSpec.resolve(model)), model);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"arch\":\"mlp\",\"input\":[1,5,5],\"widths\":[7,6],\"outputs\":3,\"layerNorm\":true}",
                "{\"arch\":\"linear\",\"input\":[12],\"widths\":[5],\"outputs\":2,\"bias\":true}",
                "{\"arch\":\"cnn\",\"input\":[2,9,9],\"channels\":[3,4],\"head\":[6],\"outputs\":3,\"pool\":\"avg\","
                        + "\"layerNorm\":true}",
                "{\"arch\":\"cnn\",\"input\":[1,6,6],\"channels\":[3],\"outputs\":2,\"pool\":\"none\","
                        + "\"batchNorm\":true}",
                "{\"arch\":\"resnet\",\"input\":[3,8,8],\"depth\":8,\"channels\":[4,6,8],\"outputs\":3,"
                        + "\"shortcut\":\"pad\"}",
                "{\"arch\":\"resnet\",\"input\":[3,8,8],\"depth\":8,\"channels\":[4,6,8],\"outputs\":3}",
                "{\"arch\":\"densenet\",\"input\":[3,8,8],\"depth\":10,\"growth\":3,\"outputs\":3}",
                "{\"arch\":\"densenet\",\"input\":[3,8,8],\"depth\":10,\"growth\":3,\"bottleneck\":true,\"outputs\":3}",
                "{\"arch\":\"wrn\",\"input\":[3,8,8],\"depth\":10,\"widen\":1,\"outputs\":2}"
            })
    void planEqualsTheBuiltNetwork(String json) {
        ModelSpec spec = ModelSpec.parse(json, "test");
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(spec, 0, m)) {
            assertEquals(net.parameterCount(), Models.parameterCount(spec), json);
        }
    }

    @Test
    void layerNormInASpecIsALayerWithAStructuredNtk() {
        ModelSpec spec = ModelSpec.parse(
                "{\"arch\":\"mlp\",\"input\":[6],\"widths\":[5,4],\"outputs\":3,\"activation\":\"tanh\","
                        + "\"layerNorm\":true}",
                "test");
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(spec, 2, m, DataType.FLOAT64)) {
            List<String> layers =
                    net.parameterLayers().stream().map(Module::name).toList();
            assertEquals(List.of("dense1", "ln1", "dense2", "ln2", "dense3"), layers);
            // 6·5 + 5 + 2·5 + 5·4 + 4 + 2·4 + 4·3 + 3
            assertEquals(92, net.parameterCount());
            Random r = new Random(4);
            double[] v = new double[7 * 6];
            for (int i = 0; i < v.length; i++) {
                v[i] = r.nextGaussian();
            }
            NDArray x = Module.create64(m, v, new Shape(7, 6));
            KernelResult s = Ntk.of(net)
                    .mode(Mode.FULL)
                    .method(Method.STRUCTURED)
                    .perLayer()
                    .compute(x);
            KernelResult j = Ntk.of(net)
                    .mode(Mode.FULL)
                    .method(Method.JACOBIAN)
                    .perLayer()
                    .compute(x);
            double err = s.total().relativeError(j.total());
            assertTrue(err < 1e-10, "structured vs Jacobian NTK with spec LayerNorms: " + err);
            assertTrue(
                    s.layers().containsKey("ln1"),
                    "a kernel per LayerNorm: " + s.layers().keySet());
        }
    }

    @Test
    void layerNormOnlyWhereThereAreDenseLayers() {
        UserException e = org.junit.jupiter.api.Assertions.assertThrows(
                UserException.class,
                () -> ModelSpec.parse(
                        "{\"arch\":\"resnet\",\"input\":[3,8,8],\"depth\":8,\"outputs\":3,\"layerNorm\":true}",
                        "r.json"));
        assertTrue(e.getMessage().contains("layerNorm"), e.getMessage());
    }
}
