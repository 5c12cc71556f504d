package org.ntk4j.metrics;

import org.ntk4j.UserException;
import org.ntk4j.kernel.KernelMatrix;

/**
 * Label-awareness of a traced kernel Θ (N × N) over a dataset split into K classes 𝒳 = ∪_k 𝒳_k: the mean
 * diagonal, within-class and between-class values of Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit, eq.
 * (23). Each class weighs 1/K whatever its size, as printed.
 *
 * @param thetaD Θ̄_d = |𝒳|⁻¹ Σ_x Θ(x, x)
 * @param thetaC Θ̄_c = K⁻¹ Σ_k (|𝒳_k|(|𝒳_k| − 1))⁻¹ Σ_{x_i ≠ x_j ∈ 𝒳_k} Θ(x_i, x_j) (ordered distinct pairs)
 * @param thetaN Θ̄_n = K⁻¹ Σ_k (|𝒳_k|(|𝒳| − |𝒳_k|))⁻¹ Σ_{x_i ∈ 𝒳_k, x_j ∉ 𝒳_k} Θ(x_i, x_j)
 */
public record LabelAwareness(double thetaD, double thetaC, double thetaN) {

    /**
     * Eq. (23) on the traced kernel {@code t} with {@code labels} ([N], K ≥ 2 classes in any order, each with at least
     * 2 samples), from one product T E with the class indicators on the engine: with S_kl = 1_kᵀ T 1_l and
     * d_k = Σ_{i∈𝒳_k} Θ(x_i, x_i), the within-class sum of class k is S_kk − d_k and its between-class sum
     * Σ_{l≠k} S_kl.
     */
    public static LabelAwareness of(TracedKernel t, int[] labels) {
        int n = t.size();
        ClassPartition classes = ClassPartition.of(labels, n);
        classes.requirePairs("Θ̄_c");
        double[][] s = classes.blockSums(t);
        TracedKernel.Moments mo = t.moments();
        double[] d = classes.classTotals(mo.diagonal());
        int count = classes.classes();
        double within = 0;
        double between = 0;
        for (int k = 0; k < count; k++) {
            double row = 0;
            for (int l = 0; l < count; l++) {
                row += l == k ? 0 : s[k][l];
            }
            double size = classes.size(k);
            within += (s[k][k] - d[k]) / (size * (size - 1));
            between += row / (size * (n - size));
        }
        return new LabelAwareness(mo.trace() / n, within / count, between / count);
    }

    /**
     * Eq. (23) on {@code kernel} ([N][N], traced over outputs) with {@code labels} ([N], K ≥ 2 classes in any
     * order, each with at least 2 samples).
     */
    public static LabelAwareness of(double[][] kernel, int[] labels) {
        return TracedKernel.onHost(kernel, t -> of(t, labels));
    }

    /** Eq. (23) on the traced kernel Σ_o Θ_oo of a square {@code kernel} of any mode (N × N). */
    public static LabelAwareness of(KernelMatrix kernel, int[] labels) {
        if (kernel.rows() != kernel.cols()) {
            throw new UserException("kernel: " + kernel.rows() + " x " + kernel.cols() + " samples; expected a"
                    + " square kernel of the labelled samples with themselves");
        }
        return TracedKernel.onHost(kernel, t -> of(t, labels));
    }

    /**
     * Θ̄_c/Θ̄_d, as reported in Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit, Fig. 4; 1 − Θ̄_c/Θ̄_d
     * "may characterize overfitting".
     */
    public double cOverD() {
        return thetaC / thetaD;
    }

    /**
     * Θ̄_n/Θ̄_d, as reported in Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit, Fig. 4; its gap to
     * Θ̄_c/Θ̄_d "may be related to better performance".
     */
    public double nOverD() {
        return thetaN / thetaD;
    }
}
