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
     * Eq. (23) on {@code kernel} ([N][N], traced over outputs) with {@code labels} ([N], K ≥ 2 classes in any
     * order, each with at least 2 samples).
     */
    public static LabelAwareness of(double[][] kernel, int[] labels) {
        if (kernel == null || kernel.length == 0) {
            throw new UserException("kernel: no samples; expected a square N x N traced kernel");
        }
        int n = kernel.length;
        for (int i = 0; i < n; i++) {
            if (kernel[i] == null || kernel[i].length != n) {
                throw new UserException("kernel: row " + i + " has " + (kernel[i] == null ? 0 : kernel[i].length)
                        + " entries for " + n + " rows; expected a square N x N traced kernel");
            }
        }
        ClassPartition classes = ClassPartition.of(labels, n);
        classes.requirePairs("Θ̄_c");
        double diagonal = 0;
        for (int i = 0; i < n; i++) {
            diagonal += kernel[i][i];
        }
        int count = classes.classes();
        double within = 0;
        double between = 0;
        for (int k = 0; k < count; k++) {
            double same = 0;
            double other = 0;
            for (int i : classes.members(k)) {
                for (int j = 0; j < n; j++) {
                    if (classes.classOf(j) != k) {
                        other += kernel[i][j];
                    } else if (j != i) {
                        same += kernel[i][j];
                    }
                }
            }
            double size = classes.size(k);
            within += same / (size * (size - 1));
            between += other / (size * (n - size));
        }
        return new LabelAwareness(diagonal / n, within / count, between / count);
    }

    /** Eq. (23) on the traced kernel Σ_o Θ_oo of a square {@code kernel} of any mode (N × N). */
    public static LabelAwareness of(KernelMatrix kernel, int[] labels) {
        if (kernel.rows() != kernel.cols()) {
            throw new UserException("kernel: " + kernel.rows() + " x " + kernel.cols() + " samples; expected a"
                    + " square kernel of the labelled samples with themselves");
        }
        return of(kernel.traced(), labels);
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
