package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import ai.djl.nn.norm.LayerNorm;
import ai.djl.training.dataset.ArrayDataset;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.spec.ModelSpec;

/**
 * {@link NtkFunction} on a DJL block in float64: its kernels equal {@link Ntk#compute} to 1e-10 relative (the same
 * computation, handed back as an engine array); Θ·v matrix-free equals the formed Θ times v (same sums, other order:
 * 1e-10); the kernel at given parameters equals the kernel of ntk4j's own MLP holding those values, and leaves the
 * block's values bit for bit; the linearised model equals the network at θ0 (1e-12) and its error at θ0 + εΔ is
 * second order (halving ε divides it by 4 ± 1, the ratio of a Taylor remainder dominated by its ε² term).
 */
class NtkFunctionTest {
    private static final int IN = 5;
    private static final int HIDDEN = 7;
    private static final int OUT = 3;

    private static SequentialBlock mlp(NDManager m, Block activation) {
        SequentialBlock block = new SequentialBlock()
                .add(Linear.builder().setUnits(HIDDEN).build())
                .add(activation)
                .add(Linear.builder().setUnits(OUT).build());
        block.initialize(m, DataType.FLOAT64, new Shape(1, IN));
        return block;
    }

    private static NDArray gaussian(NDManager m, long seed, Shape s) {
        Random r = new Random(seed);
        double[] v = new double[(int) s.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = r.nextGaussian();
        }
        return m.create(v, s).duplicate();
    }

    private static double relErr(NDArray a, double[] ref) {
        double[] x = a.toDoubleArray();
        assertEquals(ref.length, x.length);
        double num = 0;
        double den = 0;
        for (int i = 0; i < x.length; i++) {
            num += (x[i] - ref[i]) * (x[i] - ref[i]);
            den += ref[i] * ref[i];
        }
        return Math.sqrt(num / den);
    }

    private static double relErr(NDArray a, NDArray ref) {
        return relErr(a, ref.toDoubleArray());
    }

    @Test
    void applyEqualsComputeInEveryModeAndNormalisation() {
        try (NDManager m = NDManager.newBaseManager()) {
            SequentialBlock block = mlp(m, Activation.reluBlock());
            NDArray x1 = gaussian(m, 1, new Shape(6, IN));
            NDArray x2 = gaussian(m, 2, new Shape(4, IN));
            for (Mode mode : Mode.values()) {
                for (boolean mean : new boolean[] {false, true}) {
                    NtkOptions o = Ntk.options()
                            .mode(mode)
                            .float64(true)
                            .meanNormalised(mean)
                            .build();
                    NtkFunction f = Ntk.function(block, new Shape(IN), o);
                    KernelResult ref = Ntk.of(f.network(), o).compute(x1, x2);
                    NDArray k = f.apply(x1, x2);
                    assertArrayEquals(ref.total().shape(), k.getShape().getShape(), mode + "");
                    assertEquals(DataType.FLOAT64, k.getDataType());
                    assertEquals(x1.getDevice(), k.getDevice());
                    assertTrue(relErr(k, ref.total().toDoubleArray()) < 1e-10, mode + " mean " + mean);
                    KernelResult sym = Ntk.of(f.network(), o).compute(x1);
                    assertTrue(relErr(f.apply(x1), sym.total().toDoubleArray()) < 1e-10, mode + " symmetric");
                    ref.release();
                    sym.release();
                }
            }
            // traced kernels are summed over outputs; mean-normalised ones divided by O
            NDArray sum = Ntk.function(
                            block, new Shape(IN), Ntk.options().float64(true).build())
                    .apply(x1, x2);
            NDArray mean = Ntk.function(
                            block,
                            new Shape(IN),
                            Ntk.options().float64(true).meanNormalised(true).build())
                    .apply(x1, x2);
            NDArray full = Ntk.function(
                            block,
                            new Shape(IN),
                            Ntk.options().float64(true).mode(Mode.FULL).build())
                    .apply(x1, x2);
            NDArray trace = full.get("..., 0, 0").add(full.get("..., 1, 1")).add(full.get("..., 2, 2"));
            assertTrue(relErr(sum, trace) < 1e-10);
            assertTrue(relErr(mean.mul(m.full(new Shape(), OUT, DataType.FLOAT64)), trace) < 1e-10);
        }
    }

    @Test
    void applyAtGivenParametersEqualsThatNetworkAndRestoresTheBlock() {
        try (NDManager m = NDManager.newBaseManager()) {
            SequentialBlock block = mlp(m, Activation.reluBlock());
            NtkOptions o = Ntk.options().mode(Mode.FULL).float64(true).build();
            NtkFunction f = Ntk.function(block, new Shape(IN), o);
            NDArray x1 = gaussian(m, 3, new Shape(5, IN));
            NDArray x2 = gaussian(m, 4, new Shape(3, IN));
            NDList before = f.parameters();
            NDList params = new NDList();
            for (int k = 0; k < before.size(); k++) {
                params.add(gaussian(m, 10 + k, before.get(k).getShape()));
            }
            NDArray atParams = f.apply(x1, x2, params);
            // the block's own values are back, bit for bit
            NDList after = f.parameters();
            for (int k = 0; k < before.size(); k++) {
                assertArrayEquals(before.get(k).toDoubleArray(), after.get(k).toDoubleArray(), "param " + k);
            }
            // and the kernel at params is that of ntk4j's own MLP holding them
            ModelSpec spec = ModelSpec.parse(
                    "{\"arch\":\"mlp\",\"input\":[" + IN + "],\"widths\":[" + HIDDEN + "],\"outputs\":" + OUT + "}",
                    "test");
            try (Network own = Network.build(spec, 0, m, DataType.FLOAT64)) {
                List<Param> mine = own.trainableParams();
                for (int k = 0; k < params.size(); k++) {
                    mine.get(k).set(params.get(k).duplicate());
                }
                KernelResult ref = Ntk.of(own, o).compute(x1, x2);
                assertTrue(relErr(atParams, ref.total().toDoubleArray()) < 1e-10);
                // not the kernel at the block's own values
                assertTrue(relErr(f.apply(x1, x2), ref.total().toDoubleArray()) > 1e-3);
                ref.release();
            }
            UserException e = assertThrows(UserException.class, () -> f.apply(x1, x2, new NDList(params.get(0))));
            assertTrue(e.getMessage().startsWith("params has 1 arrays; the network has 4"), e.getMessage());
        }
    }

    @Test
    void ntkVectorProductEqualsTheFormedKernelTimesV() {
        try (NDManager m = NDManager.newBaseManager()) {
            SequentialBlock block = mlp(m, Activation.tanhBlock());
            NDArray x1 = gaussian(m, 5, new Shape(6, IN));
            NDArray x2 = gaussian(m, 6, new Shape(4, IN));
            for (Mode mode : Mode.values()) {
                for (boolean mean : new boolean[] {false, true}) {
                    NtkFunction f = Ntk.function(
                            block,
                            new Shape(IN),
                            Ntk.options()
                                    .mode(mode)
                                    .float64(true)
                                    .meanNormalised(mean)
                                    .build());
                    for (NDArray second : new NDArray[] {x2, null}) {
                        NDArray xs2 = second == null ? x1 : second;
                        long n2 = xs2.getShape().get(0);
                        long n1 = x1.getShape().get(0);
                        NDArray v = gaussian(m, 7, mode == Mode.TRACE ? new Shape(n2) : new Shape(n2, OUT));
                        NDArray k = f.apply(x1, second);
                        NDArray ref;
                        if (mode == Mode.TRACE) {
                            ref = k.matMul(v.reshape(n2, 1)).reshape(n1);
                        } else if (mode == Mode.DIAGONAL) {
                            ref = k.mul(v.expandDims(0)).sum(new int[] {1});
                        } else {
                            ref = k.transpose(0, 2, 1, 3)
                                    .reshape(n1 * OUT, n2 * OUT)
                                    .matMul(v.reshape(n2 * OUT, 1))
                                    .reshape(n1, OUT);
                        }
                        NDArray kv = f.ntkVp(x1, second, v);
                        assertEquals(ref.getShape(), kv.getShape(), mode + "");
                        assertTrue(relErr(kv, ref) < 1e-10, mode + " mean " + mean + " " + relErr(kv, ref));
                    }
                }
            }
        }
    }

    @Test
    void linearisedModelEqualsTheNetworkAtTheta0AndIsFirstOrderAccurate() {
        try (NDManager m = NDManager.newBaseManager()) {
            SequentialBlock block = mlp(m, Activation.tanhBlock());
            NtkFunction f = Ntk.function(
                    block, new Shape(IN), Ntk.options().float64(true).build());
            NDArray x = gaussian(m, 8, new Shape(5, IN));
            try (Linearized lin = f.linearize()) {
                NDList theta0 = f.parameters();
                NDArray f0 = f.value(x);
                assertTrue(relErr(lin.forward(x, theta0), f0) < 1e-12);
                assertTrue(relErr(lin.forward(x), f0) < 1e-12);
                NDList dir = new NDList();
                for (int k = 0; k < theta0.size(); k++) {
                    dir.add(gaussian(m, 20 + k, theta0.get(k).getShape()));
                }
                double[] err = new double[2];
                double[] eps = {1e-2, 5e-3};
                for (int e = 0; e < 2; e++) {
                    NDList theta = new NDList();
                    for (int k = 0; k < theta0.size(); k++) {
                        theta.add(theta0.get(k).add(dir.get(k).mul(m.create(eps[e]))));
                    }
                    NDArray exact = f.withParameters(theta, () -> f.value(x));
                    NDArray linear = lin.forward(x, theta);
                    // the first-order term is there: the linear model moved by O(ε) towards the network
                    assertTrue(relErr(linear, f0) > 1e-4);
                    err[e] = relErr(linear, exact);
                }
                double ratio = err[0] / err[1];
                assertTrue(
                        ratio > 3 && ratio < 5,
                        "err(ε)/err(ε/2) = " + ratio + " (errors " + err[0] + ", " + err[1] + ")");
                // training the network after linearising does not move θ0, and the block keeps its values
                NDList after = f.parameters();
                for (int k = 0; k < theta0.size(); k++) {
                    assertArrayEquals(
                            theta0.get(k).toDoubleArray(), after.get(k).toDoubleArray());
                }
            }
        }
    }

    @Test
    void djlDatasetBecomesOneBatch() {
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray x = gaussian(m, 9, new Shape(7, IN));
            ArrayDataset data = new ArrayDataset.Builder()
                    .setData(x)
                    .optLabels(m.zeros(new Shape(7)))
                    .setSampling(3, false)
                    .build();
            NDArray all = NtkFunction.batch(data, m);
            assertArrayEquals(x.toDoubleArray(), all.toDoubleArray());
        }
    }

    @Test
    void mistakesAreOneSentence() {
        try (NDManager m = NDManager.newBaseManager()) {
            SequentialBlock block = mlp(m, Activation.reluBlock());
            NtkFunction f = Ntk.function(
                    block, new Shape(IN), Ntk.options().float64(true).build());
            UserException shape = assertThrows(UserException.class, () -> f.apply(gaussian(m, 1, new Shape(3, 4))));
            assertEquals(
                    "x1 has shape (3, 4); SequentialBlock expects (N, 5): a batch of samples of shape (5)",
                    shape.getMessage());
            UserException empty = assertThrows(UserException.class, () -> f.apply(m.zeros(new Shape(0, IN))));
            assertTrue(empty.getMessage().startsWith("x1 has no samples"), empty.getMessage());
            UserException compute =
                    assertThrows(UserException.class, () -> Ntk.of(f.network()).compute(m.zeros(new Shape(0, IN))));
            assertTrue(compute.getMessage().startsWith("x1 has no samples"), compute.getMessage());

            SequentialBlock withNorm = new SequentialBlock()
                    .add(Linear.builder().setUnits(HIDDEN).build())
                    .add(LayerNorm.builder().build())
                    .add(Linear.builder().setUnits(OUT).build());
            withNorm.initialize(m, DataType.FLOAT64, new Shape(1, IN));
            NtkFunction g = Ntk.function(
                    withNorm,
                    new Shape(IN),
                    Ntk.options().method(Method.STRUCTURED).float64(true).build());
            UserException structured =
                    assertThrows(UserException.class, () -> g.apply(gaussian(m, 1, new Shape(2, IN))));
            assertTrue(
                    structured.getMessage().contains("no tangent rule for DJL block ai.djl.nn.norm.LayerNorm"),
                    structured.getMessage());
        }
    }
}
