package org.ntk4j.experiment.ntkregime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.experiment.support.StudyData;
import org.ntk4j.experiment.support.Tables;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.metrics.Alignment;
import org.ntk4j.metrics.BlockStructure;
import org.ntk4j.metrics.LabelAwareness;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.train.Arrays2;

/**
 * Shared set-up of the studies of Seleznova, Weitzner, Giryes, Kutyniok &amp; Chou, "Neural (Tangent Kernel)
 * Collapse" (Seleznova, NTK thesis §3.3) and of the label-awareness figure of Seleznova &amp; Kutyniok, "NTK Beyond the
 * Infinite-Width Limit" (§3.2 Fig. 4): the (architecture, dataset) grid with the datasets this machine has (a missing
 * one is replaced by the bundled MNIST subset, and the substitution is reported), MSE on one-hot targets with SGD,
 * Nesterov momentum 0.9 and weight decay 5·10⁻⁴ (§3.3 §6), and the kernels Θ (C outputs) and Θ^h (the n penultimate
 * features, every parameter before the classifier; eq. (3)) of a class-ordered, class-balanced sample with m per
 * class.
 */
final class CollapseSetup {
    private CollapseSetup() {}

    /** A dataset name, or the bundled MNIST subset when it is not on this machine (then {@code substituted}). */
    record Data(String asked, String used, LabelledSet train, LabelledSet test) {
        boolean substituted() {
            return !asked.equals(used);
        }
    }

    static boolean present(String name) {
        return Datasets.MNIST_SUBSET.equals(name) || StudyData.fetched(name);
    }

    /**
     * Train and test splits of {@code name} (or the bundled MNIST subset), flattened for an MLP; a class-balanced
     * {@code perClass} training subset when every class has more.
     */
    static Data load(String name, boolean flatten, int perClass, int testPerClass, long seed) {
        String used = present(name) ? name : Datasets.MNIST_SUBSET;
        LabelledSet train = Datasets.load(used, Split.TRAIN);
        LabelledSet test = Datasets.load(used, Split.TEST);
        if (flatten) {
            train = Preprocess.flatten(train);
            test = Preprocess.flatten(test);
        }
        train = StudyData.cap(train, perClass, seed);
        test = StudyData.cap(test, testPerClass, seed + 1);
        return new Data(name, used, train, test);
    }

    /** The samples sorted by class (stable), so that heatmaps show C consecutive m×m blocks. */
    static LabelledSet classOrdered(LabelledSet d) {
        int[] labels = d.labels();
        int[] idx = IntStream.range(0, d.size())
                .boxed()
                .sorted(Comparator.comparingInt(i -> labels[i]))
                .mapToInt(Integer::intValue)
                .toArray();
        return d.subset(idx);
    }

    /** m per class from {@code d}, class-ordered. */
    static LabelledSet kernelSet(LabelledSet d, int m, long seed) {
        return classOrdered(Preprocess.balancedSample(d, m, seed));
    }

    /**
     * The model: {@code mlp} is a ReLU MLP of {@code depth} weight layers and constant {@code width} (He init, σ_w² = 2,
     * standard parameterisation; n = width); any other name is a spec of the model zoo ({@code ./ntk4j models}) with
     * its input set to the dataset's sample shape and C outputs; {@code resnetNN-wK} is the zoo's ResNet-NN with stage
     * widths K, 2K, 4K (a narrower variant for CPU runs).
     */
    static ModelSpec model(String name, LabelledSet d, int depth, int width) {
        if ("mlp".equals(name)) {
            StringBuilder w = new StringBuilder();
            for (int l = 1; l < depth; l++) {
                w.append(l > 1 ? ", " : "").append(width);
            }
            return ModelSpec.parse(
                    String.format(
                            Locale.ROOT,
                            "{\"name\": \"mlp-L%d-w%d\", \"arch\": \"mlp\", \"input\": [%d], \"widths\": [%s],"
                                    + " \"outputs\": %d, \"activation\": \"relu\", \"initializer\": \"gaussian\","
                                    + " \"sigmaW\": %s}",
                            depth,
                            width,
                            d.featureDim(),
                            w,
                            d.numClasses(),
                            Math.sqrt(2)),
                    "collapse-setup");
        }
        Matcher narrow = NARROW.matcher(name);
        ModelSpec.Builder b;
        if (narrow.matches()) {
            // a narrower variant of a CIFAR ResNet (same depth and blocks): stage widths k, 2k, 4k
            int k = Integer.parseInt(narrow.group(2));
            b = ModelSpec.resolve(narrow.group(1)).toBuilder().name(name).channels(new int[] {k, 2 * k, 4 * k});
        } else {
            b = ModelSpec.resolve(name).toBuilder();
        }
        return b.input(d.sampleShape()).outputs(d.numClasses()).build();
    }

    /** What a grid entry's own settings and a narrowed ResNet change from the paper (a report line). */
    static final String CONV_NOTE =
            "A pair's own settings in parentheses replace the grid's for that pair (rate, epochs,"
                    + " images per class). resnet20-wK is the paper's ResNet-20 (same depth, blocks, BN, projection shortcuts)"
                    + " at stage widths K/2K/4K instead of 16/32/64 (K = 8: half the width, about a quarter of the"
                    + " 272k parameters, n = 4K penultimate features instead of 64), trained for fewer epochs on a class-balanced"
                    + " subset so that it fits a few CPU minutes.";

    /** {@code resnetNN-wK}: the zoo's ResNet-NN with stage widths K, 2K, 4K instead of 16, 32, 64. */
    private static final Pattern NARROW = Pattern.compile("(resnet\\d+)-w(\\d+)");

    /** MSE on one-hot targets, SGD with Nesterov momentum 0.9 and weight decay 5e-4 (§3.3 §6). */
    static TrainSpec sgd(double lr, int batch, int epochs, long seed) {
        return TrainSpec.builder()
                .loss("mse")
                .optimizer("sgd")
                .lr(lr)
                .momentum(0.9)
                .nesterov(true)
                .weightDecay(5e-4)
                .batchSize(batch)
                .epochs(epochs)
                .seed(seed)
                .validate("neural-tangent-kernel-collapse");
    }

    /** What the kernels of one probe say: block parameters of Θ and Θ^h, eq. (23), alignment, norm matrices. */
    record Kernels(
            BlockStructure theta,
            BlockStructure features,
            LabelAwareness awareness,
            double alignment,
            double featuresAlignment,
            double[][] outputNorms,
            double[][] featureNorms,
            double[][] traced,
            double[][] featuresTraced) {}

    /** FULL Θ and Θ^h (eval mode, float64) of the class-ordered kernel set. */
    static Kernels kernels(Network net, LabelledSet set) {
        KernelMatrix theta = full(net, set);
        KernelMatrix feat = full(net.features(), set);
        double[][] traced = theta.traced();
        double[][] ft = feat.traced();
        float[] y = Preprocess.oneHot(set.labels(), set.numClasses());
        return new Kernels(
                BlockStructure.of(theta, set.labels()),
                BlockStructure.of(feat, set.labels()),
                LabelAwareness.of(traced, set.labels()),
                Alignment.alignment(traced, y, set.numClasses()),
                Alignment.alignment(ft, y, set.numClasses()),
                norms(theta),
                norms(feat),
                traced,
                ft);
    }

    private static KernelMatrix full(Network net, LabelledSet set) {
        try (NDScope scope = new NDScope();
                NDManager m = net.manager().newSubManager()) {
            NDArray x = Arrays2.inputs(m, net, set, 0, set.size());
            return Ntk.of(net).mode(Mode.FULL).float64().compute(x).total();
        }
    }

    /** [‖Θ_ks(X)‖_F]_{k,s}: the O×O matrix of the Frobenius norms of the N×N output blocks (§3.3 Fig. 1c, d). */
    static double[][] norms(KernelMatrix k) {
        int o = k.outputs();
        int n = k.rows();
        double[][] out = new double[o][o];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                for (int a = 0; a < o; a++) {
                    for (int b = 0; b < o; b++) {
                        double v = k.get(i, j, a * o + b);
                        out[a][b] += v * v;
                    }
                }
            }
        }
        for (double[] row : out) {
            for (int b = 0; b < o; b++) {
                row[b] = Math.sqrt(row[b]);
            }
        }
        return out;
    }

    /** Mean diagonal over mean off-diagonal entry of a square matrix (diagonal dominance of a norm matrix). */
    static double diagonalDominance(double[][] m) {
        double d = 0;
        double o = 0;
        int n = m.length;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (i == j) {
                    d += m[i][j];
                } else {
                    o += m[i][j];
                }
            }
        }
        return (d / n) / (o / (n * (n - 1.0)));
    }

    static double[] copy(double[] v) {
        return Arrays.copyOf(v, v.length);
    }

    /**
     * One (architecture, dataset) pair of the grid, with optional per-pair training settings that replace the grid's
     * (a convolutional net at CPU scale needs a different rate, fewer epochs and a smaller subset than the MLP): {@code
     * lrs} (empty: the grid's; block-structure trains at the first), {@code epochs} and {@code trainPerClass} (0: the
     * grid's).
     */
    public record Pair(String model, String dataset, double[] lrs, int epochs, int trainPerClass) {
        Pair(String model, String dataset) {
            this(model, dataset, new double[0], 0, 0);
        }

        double[] lrsOr(double[] grid) {
            return lrs.length > 0 ? lrs : grid;
        }

        int epochsOr(int grid) {
            return epochs > 0 ? epochs : grid;
        }

        int trainPerClassOr(int grid) {
            return trainPerClass > 0 ? trainPerClass : grid;
        }

        @Override
        public String toString() {
            String own = (lrs.length > 0 ? " lr " + Tables.fmt(lrs) : "")
                    + (epochs > 0 ? " " + epochs + " epochs" : "")
                    + (trainPerClass > 0 ? " " + trainPerClass + "/class" : "");
            return model + "/" + dataset + (own.isEmpty() ? "" : " (" + own.strip() + ")");
        }
    }

    /**
     * The thesis's architecture × dataset grid (Seleznova et al., "Neural (Tangent Kernel) Collapse", §5): ResNet-20,
     * VGG and DenseNet-40 on MNIST, Fashion-MNIST and CIFAR-10, after the given extra pairs; the paper scale of
     * {@link NtkBlockStructure} and {@link NtkCollapse}.
     */
    static Pair[] thesisGrid(Pair... first) {
        List<Pair> all = new ArrayList<>(List.of(first));
        for (String model : new String[] {"resnet20", "vgg11-bn-mnist", "densenet40"}) {
            for (String data : new String[] {"mnist", "fashion-mnist", "cifar10"}) {
                all.add(new Pair(model.equals("vgg11-bn-mnist") && data.equals("cifar10") ? "vgg16-bn" : model, data));
            }
        }
        return all.toArray(Pair[]::new);
    }
}
