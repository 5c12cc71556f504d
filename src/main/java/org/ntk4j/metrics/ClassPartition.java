package org.ntk4j.metrics;

import java.util.Arrays;
import org.ntk4j.UserException;

/**
 * The partition 𝒳 = ∪_k 𝒳_k of N samples by their integer labels (Seleznova &amp; Kutyniok, NTK Beyond the
 * Infinite-Width Limit, eq. (23)). Labels may come in any order and classes may differ in size; class k is the k-th
 * smallest distinct label value.
 */
final class ClassPartition {
    private final int[] classOf;
    private final int[] labelOf;
    private final int[][] members;

    private ClassPartition(int[] classOf, int[] labelOf, int[][] members) {
        this.classOf = classOf;
        this.labelOf = labelOf;
        this.members = members;
    }

    /**
     * Partitions {@code samples} samples by {@code labels}; throws {@link UserException} unless there is one
     * label per sample and at least two classes.
     */
    static ClassPartition of(int[] labels, int samples) {
        if (labels == null) {
            throw new UserException("labels: null; expected one integer label per sample (" + samples + ")");
        }
        if (labels.length != samples) {
            throw new UserException(
                    "labels: " + labels.length + " entries for " + samples + " samples; expected one label per sample");
        }
        int[] distinct = Arrays.stream(labels).distinct().sorted().toArray();
        if (distinct.length < 2) {
            throw new UserException("labels: " + distinct.length + " class"
                    + (distinct.length == 1 ? " (label " + distinct[0] + ")" : "") + " among " + samples
                    + " samples; expected at least 2 classes");
        }
        int[] classOf = new int[samples];
        int[] size = new int[distinct.length];
        for (int i = 0; i < samples; i++) {
            classOf[i] = Arrays.binarySearch(distinct, labels[i]);
            size[classOf[i]]++;
        }
        int[][] members = new int[distinct.length][];
        int[] fill = new int[distinct.length];
        for (int k = 0; k < distinct.length; k++) {
            members[k] = new int[size[k]];
        }
        for (int i = 0; i < samples; i++) {
            members[classOf[i]][fill[classOf[i]]++] = i;
        }
        return new ClassPartition(classOf, distinct, members);
    }

    /** Number of classes K. */
    int classes() {
        return labelOf.length;
    }

    /** Number of samples N. */
    int samples() {
        return classOf.length;
    }

    /** Class index (0..K−1) of sample i. */
    int classOf(int i) {
        return classOf[i];
    }

    /** The label value of class k. */
    int label(int k) {
        return labelOf[k];
    }

    /** |𝒳_k|. */
    int size(int k) {
        return members[k].length;
    }

    /** Indices of the samples in class k, ascending. */
    int[] members(int k) {
        return members[k];
    }

    /**
     * The class block sums S_kl = Σ_{i∈𝒳_k, j∈𝒳_l} T_ij = (Eᵀ T E)_kl of a traced kernel over these N samples, from
     * one product T E with the N × K class indicators E on the engine.
     */
    double[][] blockSums(TracedKernel t) {
        int n = samples();
        int k = classes();
        double[] te = t.timesHost(indicators(), k);
        double[][] s = new double[k][k];
        for (int i = 0; i < n; i++) {
            for (int l = 0; l < k; l++) {
                s[classOf[i]][l] += te[i * k + l];
            }
        }
        return s;
    }

    /** The class indicators E (N × K, row-major): E_ik = 1 where sample i is in class k. */
    double[] indicators() {
        int k = classes();
        double[] e = new double[samples() * k];
        for (int i = 0; i < samples(); i++) {
            e[i * k + classOf[i]] = 1;
        }
        return e;
    }

    /** Σ_{i∈𝒳_k} d_i for each class k. */
    double[] classTotals(double[] d) {
        double[] s = new double[classes()];
        for (int i = 0; i < classOf.length; i++) {
            s[classOf[i]] += d[i];
        }
        return s;
    }

    /** Throws {@link UserException} if some class has fewer than two samples, which {@code quantity} needs. */
    void requirePairs(String quantity) {
        for (int k = 0; k < classes(); k++) {
            if (size(k) < 2) {
                throw new UserException("labels: class " + label(k) + " has " + size(k) + " sample; " + quantity
                        + " needs at least 2 samples per class (a within-class pair)");
            }
        }
    }
}
