package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.Blocks;
import ai.djl.nn.ParallelBlock;
import ai.djl.nn.Parameter;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.BatchNorm;
import ai.djl.nn.pooling.Pool;
import ai.djl.training.initializer.ConstantInitializer;
import ai.djl.training.initializer.NormalInitializer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;

/**
 * DJL's own blocks through {@code Network.ofBlock}: DJL Linear, Conv2d and BatchNorm (eval) take
 * their tangent rules, so AUTO plans every layer structured, and that kernel equals the Jacobian
 * kernel of the same network in float64 to 1e-10 (same sums, another order), in every mode, for
 * X1 = X2 and X1 ≠ X2, per layer and per parameter. γ, β and the running statistics are drawn away
 * from their defaults so no factor hides behind γ = 1, β = 0, μ = 0, σ² = 1.
 */
class DjlRulesTest {
    static Block mlp() {
        return new SequentialBlock()
                .add(Linear.builder().setUnits(7).build())
                .add(BatchNorm.builder().build())
                .add(Activation.tanhBlock())
                .add(new SequentialBlock()
                        .add(Linear.builder().setUnits(5).build())
                        .add(Activation.reluBlock()))
                .add(Linear.builder().setUnits(3).build());
    }

    static Block cnn() {
        return new SequentialBlock()
                .add(Conv2d.builder()
                        .setKernelShape(new Shape(3, 3))
                        .optPadding(new Shape(1, 1))
                        .setFilters(3)
                        .optBias(false)
                        .build())
                .add(BatchNorm.builder().build())
                .add(Activation.reluBlock())
                .add(Conv2d.builder()
                        .setKernelShape(new Shape(3, 3))
                        .optStride(new Shape(2, 2))
                        .setFilters(4)
                        .build())
                .add(BatchNorm.builder().build())
                .add(Activation.tanhBlock())
                .add(Blocks.batchFlattenBlock())
                .add(Linear.builder().setUnits(3).build());
    }

    /** A residual unit built as DJL's ResNetV1.residualUnit builds it: body and shortcut joined by relu(sum). */
    static Block residualUnit(int filters, int stride, boolean project) {
        SequentialBlock body = new SequentialBlock()
                .add(Conv2d.builder()
                        .setFilters(filters)
                        .setKernelShape(new Shape(3, 3))
                        .optStride(new Shape(stride, stride))
                        .optPadding(new Shape(1, 1))
                        .optBias(false)
                        .build())
                .add(BatchNorm.builder().optEpsilon(2E-5f).optMomentum(0.9f).build())
                .add(Activation.reluBlock())
                .add(Conv2d.builder()
                        .setFilters(filters)
                        .setKernelShape(new Shape(3, 3))
                        .optPadding(new Shape(1, 1))
                        .optBias(false)
                        .build())
                .add(BatchNorm.builder().optEpsilon(2E-5f).optMomentum(0.9f).build());
        SequentialBlock shortcut = new SequentialBlock();
        if (project) {
            shortcut.add(Conv2d.builder()
                            .setFilters(filters)
                            .setKernelShape(new Shape(1, 1))
                            .optStride(new Shape(stride, stride))
                            .optBias(false)
                            .build())
                    .add(BatchNorm.builder().optEpsilon(2E-5f).optMomentum(0.9f).build());
        } else {
            shortcut.add(Blocks.identityBlock());
        }
        return new ParallelBlock(
                list -> new NDList(list.get(0)
                        .singletonOrThrow()
                        .add(list.get(1).singletonOrThrow())
                        .getNDArrayInternal()
                        .relu()),
                Arrays.asList(body, shortcut));
    }

    static Block resnet() {
        return new SequentialBlock()
                .add(Conv2d.builder()
                        .setKernelShape(new Shape(3, 3))
                        .optPadding(new Shape(1, 1))
                        .setFilters(3)
                        .optBias(false)
                        .build())
                .add(BatchNorm.builder().build())
                .add(Activation.reluBlock())
                .add(residualUnit(3, 1, false))
                .add(residualUnit(4, 2, true))
                .add(Pool.globalAvgPool2dBlock())
                .add(Linear.builder().setUnits(3).build());
    }

    static void initialise(Block b, NDManager m, Shape input) {
        b.setInitializer(new NormalInitializer(0.5f), Parameter.Type.WEIGHT);
        b.setInitializer(new NormalInitializer(0.3f), Parameter.Type.BIAS);
        b.setInitializer(new NormalInitializer(0.8f), Parameter.Type.GAMMA);
        b.setInitializer(new NormalInitializer(0.3f), Parameter.Type.BETA);
        b.setInitializer(new NormalInitializer(0.2f), Parameter.Type.RUNNING_MEAN);
        b.setInitializer(new ConstantInitializer(1.7f), Parameter.Type.RUNNING_VAR);
        b.initialize(m, DataType.FLOAT64, new Shape(1).addAll(input));
    }

    static NDArray inputs(NDManager m, int n, Shape shape, long seed) {
        Random r = new Random(seed);
        double[] v = new double[(int) (n * shape.size())];
        for (int i = 0; i < v.length; i++) {
            v[i] = r.nextGaussian();
        }
        return m.create(v, new Shape(n).addAll(shape)).duplicate();
    }

    @Test
    void djlMlpWithBatchNormTakesTheRules() {
        check(mlp(), new Shape(6), List.of("dense", "batchnorm", "dense", "dense"));
    }

    @Test
    void djlConvNetWithBatchNormTakesTheRules() {
        check(cnn(), new Shape(2, 6, 6), List.of("conv2d", "batchnorm", "conv2d", "batchnorm", "dense"));
    }

    @Test
    void djlResidualNetTakesTheRulesInsideParallelBlocks() {
        check(
                resnet(),
                new Shape(2, 6, 6),
                List.of(
                        "conv2d",
                        "batchnorm",
                        "conv2d",
                        "batchnorm",
                        "conv2d",
                        "batchnorm",
                        "conv2d",
                        "batchnorm",
                        "conv2d",
                        "batchnorm",
                        "conv2d",
                        "batchnorm",
                        "dense"),
                100_000);
    }

    private static void check(Block block, Shape input, List<String> rules) {
        check(block, input, rules, 20_000);
    }

    /** @param memory a budget small enough to force several tiles (exercising tiling and mirroring) */
    private static void check(Block block, Shape input, List<String> rules, long memory) {
        try (NDManager m = NDManager.newBaseManager()) {
            initialise(block, m, input);
            Network net = Network.ofBlock(block, input, m);
            NtkPlan plan = Ntk.of(net).plan(4, 3);
            assertEquals(rules, plan.layers().stream().map(LayerPlan::ruleName).toList(), plan.explain());
            assertTrue(plan.layers().stream().allMatch(LayerPlan::structured), plan.explain());
            NDArray x1 = inputs(m, 4, input, 1);
            NDArray x2 = inputs(m, 3, input, 2);
            double worst = 0;
            for (Mode mode : Mode.values()) {
                for (boolean symmetric : new boolean[] {true, false}) {
                    for (boolean parts : new boolean[] {false, true}) {
                        NDArray b = symmetric ? null : x2;
                        Ntk auto = Ntk.of(net).mode(mode).perLayer().float64().memory(memory);
                        Ntk jac = Ntk.of(net)
                                .mode(mode)
                                .method(Method.JACOBIAN)
                                .perLayer()
                                .float64();
                        if (parts) {
                            auto.parameterParts();
                            jac.parameterParts();
                        }
                        KernelResult s = auto.compute(x1, b);
                        KernelResult j = jac.compute(x1, b);
                        String what = mode + (symmetric ? " X1=X1" : " X1≠X2") + (parts ? " parts" : " layers");
                        double maxAbs = 0;
                        for (long e = 0; e < j.total().size(); e++) {
                            maxAbs = Math.max(maxAbs, Math.abs(j.total().at(e)));
                        }
                        assertTrue(maxAbs > 1e-3, what + ": the kernel should be non-trivial");
                        double err = s.total().relativeError(j.total());
                        worst = Math.max(worst, err);
                        assertTrue(err < 1e-10, what + ": total rel err " + err);
                        assertEquals(j.layers().keySet(), s.layers().keySet(), what);
                        for (String key : j.layers().keySet()) {
                            double e =
                                    s.layers().get(key).relativeError(j.layers().get(key));
                            worst = Math.max(worst, e);
                            assertTrue(e < 1e-10, what + " " + key + ": rel err " + e);
                        }
                    }
                }
            }
            System.out.printf("DJL %s: rules vs jacobian, worst relative error %.2e%n%s", rules, worst, plan.explain());
        }
    }
}
