package org.ntk4j.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Model;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.spec.ModelSpec;

/**
 * DJL {@code .params} interop: a DJL model restored by {@code Model.load} is measurable by the NTK
 * engine (its arrays come back without requires-grad), and ntk4j networks go to and from
 * {@code .params} through a block of the same architecture, in float64 (1e-10 relative).
 */
class DjlParamsTest {
    @TempDir
    Path dir;

    private static SequentialBlock mlpBlock(int width, int outputs) {
        return new SequentialBlock()
                .add(Linear.builder().setUnits(width).build())
                .add(Activation.reluBlock())
                .add(Linear.builder().setUnits(outputs).build());
    }

    private static NDArray inputs(NDManager m, int n, int d, long seed) {
        Random r = new Random(seed);
        double[] v = new double[n * d];
        for (int i = 0; i < v.length; i++) {
            v[i] = r.nextGaussian();
        }
        return m.create(v, new Shape(n, d)).duplicate();
    }

    @Test
    void aDjlModelLoadedFromParamsHasTheKernelOfTheBlockItWasSavedFrom() throws Exception {
        try (NDManager m = NDManager.newBaseManager();
                Model original = Model.newInstance("djl-mlp");
                Model loaded = Model.newInstance("djl-mlp")) {
            SequentialBlock block = mlpBlock(9, 3);
            original.setBlock(block);
            block.initialize(original.getNDManager(), DataType.FLOAT64, new Shape(1, 5));
            original.setProperty("Epoch", "0");
            original.save(dir, "djl-mlp");
            assertTrue(Files.exists(dir.resolve("djl-mlp-0000.params")));

            loaded.setBlock(mlpBlock(9, 3));
            loaded.load(dir, "djl-mlp");
            // the cause of "element 0 of tensors does not require grad": restored arrays are plain leaves
            assertFalse(loaded.getBlock()
                    .getParameters()
                    .get(0)
                    .getValue()
                    .getArray()
                    .hasGradient());

            NDArray x = inputs(m, 6, 5, 3);
            KernelResult a = Ntk.of(Network.ofBlock(block, new Shape(5), original.getNDManager()))
                    .mode(Mode.FULL)
                    .perLayer()
                    .float64()
                    .compute(x);
            Network net = Network.ofModel(loaded, new Shape(5));
            assertEquals(DataType.FLOAT64, net.dataType());
            KernelResult b = Ntk.of(net).mode(Mode.FULL).perLayer().float64().compute(x);
            assertTrue(
                    b.total().relativeError(a.total()) < 1e-10,
                    "total " + b.total().relativeError(a.total()));
            assertEquals(2, b.layers().size());
            assertTrue(a.total().get(0, 0, 0) > 0);
        }
    }

    @Test
    void anNtk4jNetworkGoesToParamsAndBack() throws Exception {
        ModelSpec spec = ModelSpec.parse(
                "{\"arch\":\"mlp\",\"input\":[5],\"widths\":[8],\"outputs\":4,"
                        + "\"sigmaB\":0.5,\"parameterization\":\"standard\"}",
                "test");
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(spec, 11, m, DataType.FLOAT64)) {
            Path file;
            try (Model out = Model.newInstance("exported")) {
                out.setBlock(mlpBlock(8, 4));
                file = DjlParams.save(net, out, dir);
            }
            assertEquals(dir.resolve("exported-0000.params"), file);
            assertTrue(Files.size(file) > 0);

            NDArray x = inputs(m, 5, 5, 7);
            try (Model in = Model.newInstance("exported")) {
                // plain DJL: a fresh block of the same architecture restores the file
                in.setBlock(mlpBlock(8, 4));
                in.load(dir);
                KernelResult djl = Ntk.of(Network.ofModel(in, new Shape(5)))
                        .mode(Mode.FULL)
                        .float64()
                        .compute(x);
                KernelResult own = Ntk.of(net)
                        .mode(Mode.FULL)
                        .method(Method.STRUCTURED)
                        .float64()
                        .compute(x);
                assertTrue(
                        djl.total().relativeError(own.total()) < 1e-10,
                        "total " + djl.total().relativeError(own.total()));

                // and back into an ntk4j network of another seed
                try (Network other = Network.build(spec, 12, m, DataType.FLOAT64)) {
                    DjlParams.copy(in.getBlock(), other);
                    List<Param> a = net.params();
                    List<Param> b = other.params();
                    for (int i = 0; i < a.size(); i++) {
                        assertArrayEquals(
                                a.get(i).value().toDoubleArray(),
                                b.get(i).value().toDoubleArray(),
                                a.get(i).name());
                        assertTrue(
                                b.get(i).value().hasGradient(),
                                "trainable leaf " + b.get(i).name());
                    }
                }
            }
            // load(model, dir, net) in one call, into float32
            try (Network f32 = Network.build(spec, 13, m);
                    Model in = Model.newInstance("exported")) {
                in.setBlock(mlpBlock(8, 4));
                DjlParams.load(in, dir, f32);
                assertEquals(DataType.FLOAT32, f32.params().get(0).value().getDataType());
                double[] want = net.params().get(0).value().toDoubleArray();
                float[] got = f32.params().get(0).value().toFloatArray();
                for (int i = 0; i < want.length; i++) {
                    assertEquals((float) want[i], got[i]);
                }
            }
        }
    }

    @Test
    void aBlockOfAnotherArchitectureIsRefused() {
        ModelSpec spec = ModelSpec.parse("{\"arch\":\"mlp\",\"input\":[5],\"widths\":[8],\"outputs\":4}", "test");
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(spec, 1, m);
                Model out = Model.newInstance("wrong")) {
            out.setBlock(mlpBlock(7, 4));
            UserException e = assertThrows(UserException.class, () -> DjlParams.save(net, out, dir));
            assertTrue(e.getMessage().contains("(8, 5)") && e.getMessage().contains("(7, 5)"), e.getMessage());
        }
    }
}
