package org.ntk4j.metrics;

import org.ntk4j.UserException;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.factor.Mode;

/**
 * Block-structure parameters of a full kernel Θ(x, x') ∈ ℝ^{O×O} (Seleznova et al., Neural (Tangent Kernel) Collapse,
 * Def. 3.1 and Assumption 3.2). Def. 3.1 says Θ has block structure (λ₁, λ₂, λ₃) when
 * Θ(x, x) = λ₁I, Θ(x, x') = λ₂I for distinct samples of one class and λ₃I across classes; for the NTK (O = C
 * outputs) these are (γ_d, γ_c, γ_n), for the features kernel Θ^h (O = n features) (κ_d, κ_c, κ_n). Estimates,
 * with N samples and Θ_ks the (k, s) output entry:
 * <pre>
 *   γ_d = mean over samples x and outputs k of Θ_kk(x, x)
 *   γ_c = mean over ordered same-class pairs x ≠ x' and outputs k of Θ_kk(x, x')
 *   γ_n = mean over ordered different-class pairs (x, x') and outputs k of Θ_kk(x, x')
 *   offDiagonal = mean over all N² pairs (x, x') and k ≠ s of |Θ_ks(x, x')|
 * </pre>
 * Each is a plain mean over its entries, i.e. the least-squares fit of Def. 3.1 to the kernel; for balanced
 * classes γ_c and γ_n equal {@link LabelAwareness}'s class-weighted Θ̄_c and Θ̄_n of the traced kernel divided
 * by O. {@link #offDiagonalRatio()} tests Assumption 3.2's premise that the blocks Θ_ks, k ≠ s, vanish.
 *
 * <p>All pairs, not a half-split: the authors' code (github.com/mselezniova/ntk_collapse) splits each class's m
 * samples into halves A and B and averages Θ(A_c, B_c) within classes and Θ(A_c, B_c'), c &lt; c', across them,
 * using m²/4 of the m(m − 1) within-class pairs and a quarter of the cross-class ones. For a symmetric kernel of
 * balanced classes, that estimator averaged over all ways to split each class is exactly the all-pairs mean; as
 * samples within a class are exchangeable, the all-pairs mean has the same expectation and no larger variance
 * (Rao–Blackwell; with independent noise on each pair the variance falls by the ratio of pairs used).
 *
 * @param gammaD γ_d (κ_d for Θ^h)
 * @param gammaC γ_c (κ_c for Θ^h)
 * @param gammaN γ_n (κ_n for Θ^h)
 * @param offDiagonal mean |Θ_ks|, k ≠ s, over all sample pairs; NaN when O = 1 (no off-diagonal blocks)
 */
public record BlockStructure(double gammaD, double gammaC, double gammaN, double offDiagonal) {

    /**
     * Estimates from the traced kernel of a FULL kernel ({@link TracedKernel#isFull()}) of the labelled samples with
     * themselves and {@code labels} ([N], ≥ 2 classes in any order, each of ≥ 2 samples): with the class block sums
     * S_kl = 1_kᵀ T 1_l of one engine product T E and d_k = Σ_{i∈𝒳_k} T_ii, the same-class sum is Σ_k (S_kk − d_k)
     * over Σ_k n_k(n_k − 1) ordered pairs and the cross-class sum Σ_{k≠l} S_kl over N² − Σ_k n_k² pairs; the
     * off-diagonal blocks were summed while tracing ({@link TracedKernel#offDiagonalAbsSum()}).
     */
    public static BlockStructure of(TracedKernel t, int[] labels) {
        if (!t.isFull()) {
            throw new UserException("kernel: not a full kernel; expected FULL (N x N x O x O), block structure"
                    + " needs every output block");
        }
        int n = t.size();
        int o = t.outputs();
        ClassPartition classes = ClassPartition.of(labels, n);
        classes.requirePairs("γ_c");
        double[][] s = classes.blockSums(t);
        double[] d = classes.classTotals(t.moments().diagonal());
        double same = 0;
        double other = 0;
        double samePairs = 0;
        double otherPairs = 0;
        for (int k = 0; k < classes.classes(); k++) {
            for (int l = 0; l < classes.classes(); l++) {
                if (l == k) {
                    same += s[k][k] - d[k];
                } else {
                    other += s[k][l];
                }
            }
            double size = classes.size(k);
            samePairs += size * (size - 1);
            otherPairs += size * (n - size);
        }
        double offMean = o == 1 ? Double.NaN : t.offDiagonalAbsSum() / ((double) n * n * o * (o - 1));
        return new BlockStructure(
                t.moments().trace() / ((double) n * o), same / (samePairs * o), other / (otherPairs * o), offMean);
    }

    /**
     * Estimates from a FULL kernel of the labelled samples with themselves (N × N × O × O, entry
     * {@code get(i, j, k*O + s)}) and {@code labels} ([N], ≥ 2 classes in any order, each of ≥ 2 samples).
     */
    public static BlockStructure of(KernelMatrix kernel, int[] labels) {
        if (kernel.mode() != Mode.FULL) {
            throw new UserException("kernel: mode " + kernel.mode() + "; expected FULL (N x N x O x O), block"
                    + " structure needs every output block");
        }
        if (kernel.rows() != kernel.cols()) {
            throw new UserException("kernel: " + kernel.rows() + " x " + kernel.cols() + " samples; expected a"
                    + " square kernel of the labelled samples with themselves");
        }
        return TracedKernel.onHost(kernel, t -> of(t, labels));
    }

    /** As {@link #of(KernelMatrix, int[])} for a kernel held as {@code kernel[i][j][k][s]} (N × N × O × O). */
    public static BlockStructure of(double[][][][] kernel, int[] labels) {
        if (kernel == null
                || kernel.length == 0
                || kernel[0] == null
                || kernel[0].length == 0
                || kernel[0][0] == null
                || kernel[0][0].length == 0) {
            throw new UserException("kernel: empty; expected an N x N x O x O array with N, O >= 1");
        }
        int n = kernel.length;
        int o = kernel[0][0].length;
        for (int i = 0; i < n; i++) {
            if (kernel[i] == null || kernel[i].length != n) {
                throw new UserException("kernel: row " + i + " has " + (kernel[i] == null ? 0 : kernel[i].length)
                        + " entries for " + n + " rows; expected N x N x O x O");
            }
            for (int j = 0; j < n; j++) {
                double[][] block = kernel[i][j];
                boolean square = block != null && block.length == o;
                for (int k = 0; square && k < o; k++) {
                    square = block[k] != null && block[k].length == o;
                }
                if (!square) {
                    throw new UserException("kernel: block [" + i + "][" + j + "] is not " + o + " x " + o
                            + "; expected N x N x O x O with O = " + o);
                }
            }
        }
        try (ai.djl.ndarray.NDManager m = ai.djl.ndarray.NDManager.newBaseManager(ai.djl.Device.cpu());
                TracedKernel t = TracedKernel.of(m, kernel)) {
            return of(t, labels);
        }
    }

    /** offDiagonal/γ_d: how far the kernel is from Def. 3.1's zero off-diagonal output blocks (0 there). */
    public double offDiagonalRatio() {
        return offDiagonal / gammaD;
    }
}
