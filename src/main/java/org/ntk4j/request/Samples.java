package org.ntk4j.request;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import org.ntk4j.OptionException;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;

/**
 * The samples a kernel is computed on: the rows and columns of Θ(X1, X1) (N training samples) and the rows of
 * Θ(X2, X1) (M test samples).
 *
 * @param dataset dataset name
 * @param n training samples: the first N of the training split (ignored with {@code perClass})
 * @param perClass instead of the first N: this many samples of every class, a seeded class-balanced sample ordered
 *     by class (Seleznova et al., Neural (Tangent Kernel) Collapse, kernels measured on m samples per class); null =
 *     off
 * @param test test samples M, the first M of the test split; 0 = none
 * @param pad zero padding per side of every image; null = none
 */
public record Samples(String dataset, int n, Integer perClass, int test, Integer pad) {
    /** Checks the counts: a bad one is a one-line {@link OptionException} naming its setting. */
    public Samples {
        if (n < 1) {
            throw new OptionException(KernelOption.N, " must be >= 1 (got " + n + ")");
        }
        if (test < 0) {
            throw new OptionException(KernelOption.TEST, " must be >= 0 (got " + test + ")");
        }
        if (perClass != null && perClass < 1) {
            throw new OptionException(KernelOption.PER_CLASS, " must be >= 1 (got " + perClass + ")");
        }
        if (pad != null && pad < 0) {
            throw new OptionException(KernelOption.PAD, " must be >= 0 (got " + pad + ")");
        }
    }

    /**
     * The training samples from {@code dataDir}: the first N of the training split, or {@code perClass} of every
     * class ordered by class (sampled with {@code seed}), zero-padded; the rows and columns of Θ(X1, X1).
     */
    public LabelledSet train(Path dataDir, long seed) {
        LabelledSet train;
        if (perClass != null) {
            train = byClass(Preprocess.balancedSample(Datasets.load(dataset, Split.TRAIN, dataDir), perClass, seed));
        } else {
            // only the first N samples are read (of MNIST's IDX files, not the whole split)
            train = Datasets.loadHead(dataset, Split.TRAIN, dataDir, n);
            if (n > train.size()) {
                throw new OptionException(
                        KernelOption.N, " " + n + " exceeds the " + train.size() + " training images of " + dataset);
            }
        }
        return pad == null ? train : Preprocess.pad(train, pad);
    }

    /** The test samples from {@code dataDir} (the first M of the test split, padded), the rows of Θ(X2, X1); null when M = 0. */
    public LabelledSet test(Path dataDir) {
        if (test == 0) {
            return null;
        }
        LabelledSet testSet = Datasets.loadHead(dataset, Split.TEST, dataDir, test);
        if (test > testSet.size()) {
            throw new OptionException(
                    KernelOption.TEST, " " + test + " exceeds the " + testSet.size() + " test images of " + dataset);
        }
        return pad == null ? testSet : Preprocess.pad(testSet, pad);
    }

    /** The samples reordered by class label (stable), so that kernels show their class blocks. */
    static LabelledSet byClass(LabelledSet d) {
        Integer[] idx = new Integer[d.size()];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = i;
        }
        int[] labels = d.labels();
        Arrays.sort(idx, Comparator.comparingInt(i -> labels[i]));
        return d.subset(Arrays.stream(idx).mapToInt(Integer::intValue).toArray());
    }
}
