package org.ntk4j.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.ntk4j.UserException;
import org.ntk4j.spec.ActivationKind;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Parameterization;
import org.ntk4j.spec.Shortcut;

/**
 * The model zoo: trainable parameter counts of the reference architectures against the published /
 * hand-computed numbers, forward output shapes, and one-line errors for bad specs.
 *
 * <p>Conventions behind the counts (as the reference implementations): convs followed by batch-norm
 * have no bias; every batch-norm has trainable γ and β (2 per channel; running statistics are not
 * counted); VGG convs keep their bias (torchvision / kuangliu); the dense readout has a bias.
 */
@Tag("slow")
class ModelZooTest {
    static NDManager manager;

    @BeforeAll
    static void setUp() {
        manager = NDManager.newBaseManager();
    }

    @AfterAll
    static void tearDown() {
        manager.close();
    }

    static long count(String model) {
        try (Network net = Network.build(ModelSpec.resolve(model), 0, manager)) {
            return net.parameterCount();
        }
    }

    /**
     * Expected counts, each derived by hand (c→c' 3×3 conv = 9cc', BN(c) = 2c, block = 2 convs + 2 BN):
     * <ul>
     * <li>resnet20 (option B, 1×1 conv + BN projection shortcuts): stem 3·16·9 + 32 = 464; stage 1:
     * 3·(2·2304 + 64) = 14,016; stage 2: first block 4608 + 9216 + 2·64 + shortcut 16·32 + 64 = 14,528,
     * two more 2·(2·9216 + 128) = 37,120; stage 3: 18,432 + 36,864 + 2·128 + 32·64 + 128 = 57,728, two
     * more 2·(2·36,864 + 256) = 147,968; fc 64·10 + 10 = 650. Total 272,474 (≈ 0.27M).</li>
     * <li>resnet56 (option A, parameter-free shortcuts): 464 + 9·4672 + (13,952 + 8·18,560)
     * + (55,552 + 8·73,984) + 650 = 853,018 (≈ 0.85M, He et al. Table 6); ResNet-20 option A is
     * 272,474 − 2752 = 269,722.</li>
     * <li>resnet18 (CIFAR variant, kuangliu/pytorch-cifar): 11,173,962.</li>
     * <li>vgg11-bn with the single 512→10 head: convs (with bias) 1792 + 73,856 + 295,168 + 590,080
     * + 1,180,160 + 3·2,359,808 = 9,220,480, BN 2·(64+128+256+256+512·4) = 5504, fc 5130: 9,231,114
     * (kuangliu VGG11); vgg11 without BN: 9,225,610; vgg16-bn: 14,728,266; vgg19-bn with 100
     * outputs (CIFAR-100): 20,035,392 + 51,300 = 20,086,692.</li>
     * <li>densenet40 (k = 12, 12 layers per block, no bottleneck, θ = 1): a layer on c channels
     * has 2c + 108c parameters; stem 432, block sums Σc = 984, 2712, 4440 → 110·8136 = 894,960,
     * transitions (2c + c²) for c = 160, 304 → 25,920 + 93,024, final BN 896, fc 4490: 1,019,722
     * (≈ 1.0M, Huang et al. Table 2).</li>
     * <li>densenet100-bc (k = 12, 16 bottleneck layers per block, θ = 0.5): a layer on c channels
     * has 2c + 48c + 96 + 5184; total 769,162 (≈ 0.8M, Huang et al. Table 2); densenet40-bc
     * (6 layers per block, as in Seleznova et al., Neural (Tangent Kernel) Collapse): 176,122.</li>
     * <li>wrn-10-4 (neural-tangents WideResnet(1, 4), no biases): 432 + (9216 + 36,864 + 9216)
     * + (73,728 + 147,456 + 73,728) + (294,912 + 589,824 + 294,912) + 256 = 1,530,544.</li>
     * <li>vgg11-bn-mnist (1×32×32 input, head [256]): vgg11-bn − 3·64·9 + 64·9 − 5130 + (512·256 + 256)
     * + (256·10 + 10) = 9,358,730.</li>
     * <li>mlp-relu 784-512-512-10 with biases: 401,920 + 262,656 + 5130 = 669,706; mlp3-relu
     * 784-512-512-512-10: 669,706 + 262,656 = 932,362; ffnn-d10-w256
     * (no bias): 3072·256 + 8·256² + 256·10 = 1,313,280; ffnn-d10-w100 (no bias): 784·100 + 8·100²
     * + 100·10 = 159,400; linear-784-100-1 and mlp2-relu-100: 78,400 + 100 = 78,500; mlp5-w256 (no
     * bias): 3072·256 + 4·256² + 2560 = 1,051,136; mlp-quickstart 784-256-256-10 with biases: 200,960 + 65,792
     * + 2570 = 269,322.</li>
     * </ul>
     * {@code SpecParameterCountTest} checks the same counts from the spec alone.
     */
    static Stream<Arguments> referenceCounts() {
        return Stream.of(
                arguments("resnet20", 272_474L),
                arguments("resnet56", 853_018L),
                arguments("resnet18", 11_173_962L),
                arguments("vgg11-bn", 9_231_114L),
                arguments("vgg11", 9_225_610L),
                arguments("vgg16-bn", 14_728_266L),
                arguments("vgg19-bn", 20_086_692L),
                arguments("densenet40", 1_019_722L),
                arguments("densenet40-bc", 176_122L),
                arguments("densenet100-bc", 769_162L),
                arguments("wrn-10-4", 1_530_544L),
                arguments("mlp-relu", 669_706L),
                arguments("mlp3-relu", 932_362L),
                arguments("vgg11-bn-mnist", 9_358_730L),
                arguments("ffnn-d10-w256", 1_313_280L),
                arguments("ffnn-d10-w100", 159_400L),
                arguments("linear-784-100-1", 78_500L),
                arguments("mlp2-relu-100", 78_500L),
                arguments("mlp5-w256", 1_051_136L),
                arguments("mlp-quickstart", 269_322L));
    }

    @ParameterizedTest
    @MethodSource("referenceCounts")
    void referenceParameterCounts(String model, long expected) {
        assertEquals(expected, count(model), model);
    }

    @Test
    void resnet20OptionAHasParameterFreeShortcuts() {
        ModelSpec s =
                ModelSpec.resolve("resnet20").toBuilder().shortcut(Shortcut.PAD).build();
        try (Network net = Network.build(s, 0, manager)) {
            assertEquals(269_722, net.parameterCount());
        }
    }

    @Test
    void everySpecInModelsResolvesUnderItsName() {
        List<String> names = ModelSpec.available();
        assertTrue(
                names.containsAll(List.of(
                        "resnet20",
                        "resnet56",
                        "resnet18",
                        "vgg11",
                        "vgg16-bn",
                        "vgg19-bn",
                        "densenet40",
                        "wrn-10-4",
                        "mlp-relu")),
                names.toString());
        for (String n : names) {
            ModelSpec s = ModelSpec.resolve(n);
            assertEquals(n, s.name(), "name field of models/" + n + ".json");
        }
    }

    /** Forward shapes on a batch of 2 in train mode (batch statistics) and eval mode. */
    @ParameterizedTest
    @CsvSource({"resnet20", "densenet40-bc", "vgg11-bn", "wrn-10-4", "resnet56"})
    void forwardShapes(String model) {
        ModelSpec s = ModelSpec.resolve(model);
        try (Network net = Network.build(s, 1, manager);
                NDManager m = manager.newSubManager()) {
            NDArray x = m.randomNormal(new Shape(2, s.input()[0], s.input()[1], s.input()[2]));
            NDArray yTrain = net.forward(x, Forward.train(m));
            NDArray yEval = net.forward(x, Forward.eval(m));
            assertEquals(new Shape(2, s.outputs()), yTrain.getShape(), model);
            assertEquals(new Shape(2, s.outputs()), yEval.getShape(), model);
            for (float v : yEval.toFloatArray()) {
                assertTrue(Float.isFinite(v), model + " output not finite");
            }
        }
    }

    @Test
    void moduleShapes() {
        try (NDManager m = manager.newSubManager()) {
            java.util.Random r = new java.util.Random(0);
            Conv2d c = new Conv2d("c", 5, 3, 2, 1, true, Parameterization.NTK, WeightInit.GAUSSIAN, 1, 1);
            assertEquals(new Shape(5, 4, 4), c.initialize(m, DataType.FLOAT32, new Shape(3, 8, 7), r));
            assertEquals(
                    new Shape(5, 4, 4),
                    c.forward(m.ones(new Shape(2, 3, 8, 7)), Forward.eval(m))
                            .getShape()
                            .slice(1));
            assertEquals(
                    new Shape(3, 3, 3),
                    new MaxPool2d("p", 2, 2).initialize(m, DataType.FLOAT32, new Shape(3, 7, 6), r));
            assertEquals(new Shape(3), new GlobalAvgPool("g").initialize(m, DataType.FLOAT32, new Shape(3, 7, 6), r));
            PadShortcut pad = new PadShortcut("s", 8, 2);
            assertEquals(new Shape(8, 4, 4), pad.initialize(m, DataType.FLOAT32, new Shape(4, 8, 8), r));
            NDArray x = m.arange(2 * 4 * 8 * 8).reshape(2, 4, 8, 8).toType(DataType.FLOAT32, false);
            NDArray y = pad.forward(x, Forward.eval(m));
            assertEquals(new Shape(2, 8, 4, 4), y.getShape());
            // channels 0,1 and 6,7 are zero; channel 2 is input channel 0 subsampled: x[0,0,2,2] = 18
            assertEquals(0f, y.get("0,0").abs().sum().getFloat());
            assertEquals(0f, y.get("1,7").abs().sum().getFloat());
            assertEquals(18f, y.getFloat(0, 2, 1, 1));
        }
    }

    /**
     * Conv2d values against a direct sum: NTK y = σ_w/√(C_in·k²)·Σ w·x + σ_b·b, standard y = Σ W·x + b,
     * at an interior, a padded corner and a strided position.
     */
    @Test
    void conv2dValues() {
        try (NDManager m = manager.newSubManager()) {
            for (Parameterization par : Parameterization.values()) {
                Conv2d c = new Conv2d("c", 2, 3, 2, 1, true, par, WeightInit.GAUSSIAN, 1.3, 0.7);
                c.initialize(m, DataType.FLOAT64, new Shape(3, 5, 5), new java.util.Random(3));
                double[] x = new double[3 * 25];
                java.util.Random r = new java.util.Random(4);
                for (int i = 0; i < x.length; i++) {
                    x[i] = r.nextGaussian();
                }
                double[] y = c.forward(Module.create64(m, x, new Shape(1, 3, 5, 5)), Forward.eval(m))
                        .toDoubleArray();
                double[] w = c.weight().value().toDoubleArray();
                double[] b = c.bias().value().toDoubleArray();
                double cw = par == Parameterization.NTK ? 1.3 / Math.sqrt(27) : 1;
                double cb = par == Parameterization.NTK ? 0.7 : 1;
                for (int o = 0; o < 2; o++) {
                    for (int[] ij : new int[][] {{0, 0}, {1, 1}, {2, 1}}) {
                        double sum = 0;
                        for (int ci = 0; ci < 3; ci++) {
                            for (int u = 0; u < 3; u++) {
                                for (int v = 0; v < 3; v++) {
                                    int h = 2 * ij[0] + u - 1;
                                    int ww = 2 * ij[1] + v - 1;
                                    if (h >= 0 && h < 5 && ww >= 0 && ww < 5) {
                                        sum += w[((o * 3 + ci) * 3 + u) * 3 + v] * x[(ci * 5 + h) * 5 + ww];
                                    }
                                }
                            }
                        }
                        double expected = cw * sum + cb * b[o];
                        assertEquals(
                                expected,
                                y[(o * 3 + ij[0]) * 3 + ij[1]],
                                1e-12,
                                par + " at " + o + "," + ij[0] + "," + ij[1]);
                    }
                }
            }
        }
    }

    /** Residual y = φ(main(x) + shortcut(x)) and DenseConcat y = concat(x, layer(x)) on known values. */
    @Test
    void combinatorValues() {
        try (NDManager m = manager.newSubManager()) {
            java.util.Random r = new java.util.Random(0);
            NDArray x = m.arange(-4f, 4f).reshape(1, 2, 2, 2);
            Residual res = new Residual(
                    "r", new Activation("a", ActivationKind.QUADRATIC), null, new Activation("p", ActivationKind.TANH));
            assertEquals(new Shape(2, 2, 2), res.initialize(m, DataType.FLOAT32, new Shape(2, 2, 2), r));
            NDArray y = res.forward(x, Forward.eval(m));
            assertEquals((float) Math.tanh(16 - 4), y.getFloat(0, 0, 0, 0), 1e-6f); // x = −4: φ(x² + x)
            DenseConcat dc = new DenseConcat("d", new Activation("q", ActivationKind.QUADRATIC));
            assertEquals(new Shape(4, 2, 2), dc.initialize(m, DataType.FLOAT32, new Shape(2, 2, 2), r));
            NDArray z = dc.forward(x, Forward.eval(m));
            assertEquals(new Shape(1, 4, 2, 2), z.getShape());
            assertEquals(-4f, z.getFloat(0, 0, 0, 0));
            assertEquals(16f, z.getFloat(0, 2, 0, 0));
        }
    }

    /** Global average pool equals the mean over H·W; avg pool equals window means. */
    @Test
    void poolingValues() {
        try (NDManager m = manager.newSubManager()) {
            NDArray x = m.arange(16f).reshape(1, 1, 4, 4);
            assertEquals(
                    7.5f, new GlobalAvgPool("g").forward(x, Forward.eval(m)).getFloat(0, 0));
            NDArray a = new AvgPool2d("a", 2, 2).forward(x, Forward.eval(m));
            assertEquals(2.5f, a.getFloat(0, 0, 0, 0)); // (0+1+4+5)/4
            NDArray mx = new MaxPool2d("p", 2, 2).forward(x, Forward.eval(m));
            assertEquals(15f, mx.getFloat(0, 0, 1, 1));
        }
    }

    /**
     * Batch-norm: training mode normalises with batch statistics and moves the running statistics by
     * momentum 0.1 (PyTorch: r ← 0.9·r + 0.1·batch, unbiased variance); eval mode uses them.
     */
    @Test
    void batchNormTrainingAndEval() {
        try (NDManager m = manager.newSubManager()) {
            BatchNorm2d bn = new BatchNorm2d("bn");
            bn.initialize(m, DataType.FLOAT64, new Shape(1, 2, 2), new java.util.Random(0));
            double[] v = {1, 2, 3, 4, 5, 6, 7, 8}; // two samples of one channel, mean 4.5
            NDArray x = m.create(v, new Shape(2, 1, 2, 2)).duplicate();
            NDArray y = bn.forward(x, Forward.train(m));
            double biasedVar = 5.25; // Σ(v−4.5)²/8
            assertEquals((1 - 4.5) / Math.sqrt(biasedVar + 1e-5), y.getDouble(0, 0, 0, 0), 1e-9);
            assertEquals(0.45, bn.runningMean().value().getDouble(0), 1e-12);
            assertEquals(0.9 + 0.1 * 6.0, bn.runningVar().value().getDouble(0), 1e-12); // unbiased 42/7 = 6
            NDArray e = bn.forward(x, Forward.eval(m));
            assertEquals((1 - 0.45) / Math.sqrt(1.5 + 1e-5), e.getDouble(0, 0, 0, 0), 1e-9);
            assertFalse(bn.runningMean().trainable());
            assertEquals(2, bn.parameterCount());
        }
    }

    @Test
    void badSpecsGiveOneLineErrors() {
        String[][] cases = {
            {"{\"arch\":\"alexnet\",\"input\":[3,32,32],\"outputs\":10}", "arch"},
            {"{\"arch\":\"vgg\",\"depth\":12,\"input\":[3,32,32],\"outputs\":10}", "[11, 13, 16, 19]"},
            {"{\"arch\":\"vgg\",\"depth\":11,\"input\":[1,28,28],\"outputs\":10}", "at least 32"},
            {"{\"arch\":\"resnet\",\"depth\":21,\"input\":[3,32,32],\"outputs\":10}", "depth"},
            {
                "{\"arch\":\"resnet\",\"depth\":20,\"shortcut\":\"zero\",\"input\":[3,32,32],\"outputs\":10}",
                "[projection, pad]"
            },
            {"{\"arch\":\"resnet\",\"depth\":20,\"input\":[3072],\"outputs\":10}", "[channels, height, width]"},
            {"{\"arch\":\"densenet\",\"depth\":41,\"input\":[3,32,32],\"outputs\":10}", "3·n+4"},
            {
                "{\"arch\":\"densenet\",\"depth\":40,\"bottleneck\":true,\"compression\":1.5,\"input\":[3,32,32],\"outputs\":10}",
                "compression"
            },
            {"{\"arch\":\"wrn\",\"depth\":12,\"input\":[3,32,32],\"outputs\":10}", "6·b+4"},
            {"{\"arch\":\"cnn\",\"input\":[3,8,8],\"outputs\":2}", "channels"},
            {"{\"arch\":\"cnn\",\"channels\":[2],\"pool\":\"min\",\"input\":[3,8,8],\"outputs\":2}", "[max, avg, none]"
            },
            {
                "{\"arch\":\"resnet\",\"depth\":20,\"widthh\":3,\"input\":[3,32,32],\"outputs\":10}",
                "unknown field 'widthh'"
            },
        };
        for (String[] c : cases) {
            UserException e = assertThrows(UserException.class, () -> ModelSpec.parse(c[0], "spec.json"), c[0]);
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
            assertTrue(e.getMessage().startsWith("spec.json: "), e.getMessage());
            assertTrue(e.getMessage().contains(c[1]), e.getMessage() + " should mention " + c[1]);
        }
        UserException e = assertThrows(UserException.class, () -> ModelSpec.resolve("resnet-nope"));
        assertTrue(e.getMessage().contains("resnet20"), e.getMessage());
    }
}
