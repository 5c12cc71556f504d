package org.ntk4j.experiment;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.Shape;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.ntk4j.data.DataPaths;
import org.ntk4j.data.Dataset;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.train.Arrays2;

/**
 * Shared settings of the studies of Lou, Mingard and Hayou, "The Equilibrium Hypothesis: Rethinking
 * implicit regularization in Deep Neural Networks": the bias-free ReLU FFNN of its §3 (Eq. 6: z₁ = W₁x,
 * z_l = W_l φ(z_{l−1}), He init W ~ N(0, 2/fan_in)), inputs flattened and normalised to ‖x‖ = √d
 * (Assumption 1), cross-entropy, SGD with momentum and weight decay (the paper does not give their
 * values nor the batch size: 0.9, 5e-4 and 32 as in the notes' replication).
 */
final class EquilibriumSetup {
    private EquilibriumSetup() {}

    /** The datasets of the paper's Figs 1, 5 that are on this machine: the bundled MNIST subset always, then MNIST, Fashion-MNIST, CIFAR-10 when fetched. */
    static List<String> availableDatasets() {
        List<String> out = new ArrayList<>(List.of(Datasets.MNIST_SUBSET));
        for (String n : List.of(Datasets.MNIST, Datasets.FASHION_MNIST, Datasets.CIFAR10)) {
            if (Files.isDirectory(DataPaths.datasetDir(DataPaths.dataDir(), n))) {
                out.add(n);
            }
        }
        return out;
    }

    /** A split flattened to d features and scaled per sample to ‖x‖² = d. */
    static Dataset load(String name, Split split) {
        return load(name, split, true);
    }

    /** A split flattened to d features: pixels in [0, 1] as read, or scaled per sample to ‖x‖² = d (Assumption 1). */
    static Dataset load(String name, Split split, boolean unitSphere) {
        Dataset d = Preprocess.flatten(Datasets.load(name, split));
        if (!unitSphere) {
            return d;
        }
        int dim = d.featureDim();
        float[] f = d.features().clone();
        for (int i = 0; i < d.size(); i++) {
            double s = 0;
            for (int j = 0; j < dim; j++) {
                s += (double) f[i * dim + j] * f[i * dim + j];
            }
            double c = s > 0 ? Math.sqrt(dim / s) : 1;
            for (int j = 0; j < dim; j++) {
                f[i * dim + j] = (float) (f[i * dim + j] * c);
            }
        }
        return d.withFeatures(f, new int[] {dim});
    }

    /**
     * The CPU-scale training set: a class-balanced {@code perClass} sample when every class has more than that
     * (the fetched 60 000-image sets), else the whole set (the bundled 2000-image MNIST subset).
     */
    static Dataset cap(Dataset train, int perClass, long seed) {
        int min = java.util.Arrays.stream(train.classCounts()).min().orElse(0);
        return perClass > 0 && min > perClass ? Preprocess.balancedSample(train, perClass, seed) : train;
    }

    /** Depth-L (weight layers) bias-free ReLU FFNN of width N, He init (σ_w² = 2), standard parameterisation. */
    static ModelSpec ffnn(int inputDim, int depth, int width, int classes) {
        StringBuilder w = new StringBuilder();
        for (int l = 1; l < depth; l++) {
            w.append(l > 1 ? ", " : "").append(width);
        }
        return ModelSpec.parse(
                String.format(
                        Locale.ROOT,
                        "{\"name\": \"ffnn-L%d-w%d\", \"arch\": \"mlp\", \"input\": [%d],"
                                + " \"widths\": [%s], \"outputs\": %d, \"activation\": \"relu\", \"bias\": false, \"initializer\": \"gaussian\","
                                + " \"sigmaW\": %s}",
                        depth,
                        width,
                        inputDim,
                        w,
                        classes,
                        Math.sqrt(2)),
                "equilibrium-hypothesis");
    }

    /** SGD, momentum 0.9, weight decay 5e-4, CE on one-hot targets. */
    static TrainSpec sgd(double lr, int batch, int epochs, long seed) {
        return TrainSpec.builder()
                .loss("ce")
                .optimizer("sgd")
                .lr(lr)
                .momentum(0.9)
                .weightDecay(5e-4)
                .batchSize(batch)
                .epochs(epochs)
                .seed(seed)
                .validate("equilibrium-hypothesis");
    }

    /** Deletes a previous run's folder (its metrics.jsonl would otherwise be appended to), returns the path. */
    static java.nio.file.Path fresh(java.nio.file.Path dir) {
        if (Files.isDirectory(dir)) {
            try (var s = Files.walk(dir)) {
                for (java.nio.file.Path p :
                        s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return dir;
    }

    /** The network's outputs on a set, n × O row-major, in float64. */
    static double[] outputs(Network net, Dataset data) {
        int n = data.size();
        try (NDScope scope = new NDScope();
                NDManager m = net.manager().newSubManager()) {
            NDArray x = Arrays2.fromFloats(m, data.features(), new Shape(n, data.featureDim()), net.dataType());
            NDArray f = net.forward(x, Forward.eval(m));
            return f.toType(ai.djl.ndarray.types.DataType.FLOAT64, false).toDoubleArray();
        }
    }
}
