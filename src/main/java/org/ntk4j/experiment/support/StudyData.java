package org.ntk4j.experiment.support;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.ntk4j.data.DataPaths;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;

/**
 * The datasets a study may use on this machine: which are fetched, loading a split flattened (optionally on the
 * sphere ‖x‖² = d), class-balanced caps, and a clean folder for a run.
 */
public final class StudyData {
    private StudyData() {}

    /** The datasets on this machine: the bundled MNIST subset always, then MNIST, Fashion-MNIST, CIFAR-10 when fetched. */
    public static List<String> availableDatasets() {
        List<String> out = new ArrayList<>(List.of(Datasets.MNIST_SUBSET));
        for (String n : List.of(Datasets.MNIST, Datasets.FASHION_MNIST, Datasets.CIFAR10)) {
            if (Files.isDirectory(DataPaths.datasetDir(DataPaths.dataDir(), n))) {
                out.add(n);
            }
        }
        return out;
    }

    /** MNIST where it has been fetched, else the bundled MNIST subset. */
    public static String mnistIfPresent() {
        return availableDatasets().contains(Datasets.MNIST) ? Datasets.MNIST : Datasets.MNIST_SUBSET;
    }

    /** A split flattened to d features and scaled per sample to ‖x‖² = d. */
    public static LabelledSet load(String name, Split split) {
        return load(name, split, true);
    }

    /** A split flattened to d features: pixels in [0, 1] as read, or scaled per sample to ‖x‖² = d (Assumption 1). */
    public static LabelledSet load(String name, Split split, boolean unitSphere) {
        LabelledSet d = Preprocess.flatten(Datasets.load(name, split));
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
    public static LabelledSet cap(LabelledSet train, int perClass, long seed) {
        int min = java.util.Arrays.stream(train.classCounts()).min().orElse(0);
        return perClass > 0 && min > perClass ? Preprocess.balancedSample(train, perClass, seed) : train;
    }

    /** Deletes a previous run's folder (its metrics.jsonl would otherwise be appended to), returns the path. */
    public static java.nio.file.Path fresh(java.nio.file.Path dir) {
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

    public static boolean fetched(String name) {
        return Files.isDirectory(DataPaths.datasetDir(DataPaths.dataDir(), name));
    }
}
