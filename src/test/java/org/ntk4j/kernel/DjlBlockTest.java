package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.spec.ModelSpec;

/**
 * A DJL SequentialBlock (Linear → ReLU → Linear) through {@code Network.ofBlock}: its Linear layers
 * take the dense rule, and its kernel equals ntk4j's own MLP with the same weights, in float64 (same
 * sums, other order: 1e-10 relative), per layer.
 */
class DjlBlockTest {
    @Test
    void djlSequentialBlockKernelEqualsTheSameMlpBuiltByNtk4j() {
        try (NDManager m = NDManager.newBaseManager()) {
            SequentialBlock block = new SequentialBlock()
                    .add(Linear.builder().setUnits(7).build())
                    .add(Activation.reluBlock())
                    .add(Linear.builder().setUnits(3).build());
            block.initialize(m, DataType.FLOAT64, new Shape(1, 6));
            Network djl = Network.ofBlock(block, new Shape(6), m);
            assertEquals(3, djl.outputs());
            assertEquals(2, djl.parameterLayers().size());

            ModelSpec spec = ModelSpec.parse("{\"arch\":\"mlp\",\"input\":[6],\"widths\":[7],\"outputs\":3}", "test");
            try (Network own = Network.build(spec, 0, m, DataType.FLOAT64)) {
                List<Param> mine = own.trainableParams();
                List<Param> theirs = djl.trainableParams();
                assertEquals(4, theirs.size());
                for (int i = 0; i < 4; i++) {
                    assertEquals(
                            mine.get(i).value().getShape(),
                            theirs.get(i).value().getShape());
                    mine.get(i).set(theirs.get(i).value().duplicate());
                }
                Random r = new Random(4);
                double[] v = new double[5 * 6];
                for (int i = 0; i < v.length; i++) {
                    v[i] = r.nextGaussian();
                }
                NDArray x = m.create(v, new Shape(5, 6)).duplicate();
                KernelResult a =
                        Ntk.of(djl).mode(Mode.FULL).perLayer().float64().compute(x);
                KernelResult b = Ntk.of(own)
                        .mode(Mode.FULL)
                        .perLayer()
                        .method(Method.STRUCTURED)
                        .float64()
                        .compute(x);
                // DJL's Linear layers are tappable and take the dense rule
                assertTrue(
                        a.plan().layers().stream()
                                .allMatch(l -> l.method() == Method.STRUCTURED
                                        && l.ruleName().equals("dense")),
                        a.plan().explain());
                assertTrue(
                        a.total().relativeError(b.total()) < 1e-10,
                        "total " + a.total().relativeError(b.total()));
                List<KernelMatrix> la = List.copyOf(a.layers().values());
                List<KernelMatrix> lb = List.copyOf(b.layers().values());
                for (int l = 0; l < 2; l++) {
                    assertTrue(la.get(l).relativeError(lb.get(l)) < 1e-10, "layer " + l);
                }
                assertTrue(
                        djl.parameterLayers().stream().map(Module::name).allMatch(n -> n.contains("Linear")),
                        djl.parameterLayers().stream()
                                .map(Module::name)
                                .toList()
                                .toString());
            }
        }
    }
}
