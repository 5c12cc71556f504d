package org.ntk4j.metrics;

import org.ejml.data.DMatrixRMaj;
import org.ntk4j.UserException;
import org.ntk4j.natives.Lapack;

/**
 * Spectrum of a symmetric kernel K = V Λ Vᵀ (eigenvalues λ_1 ≥ … ≥ λ_n, orthonormal eigenvectors v_i,
 * by LAPACK's divide-and-conquer dsyevd from the MKL inside libtorch ({@link Lapack}; EJML's symmetric QR algorithm
 * where there is none): O(n³) on an n × n host copy, the exact spectrum that the kernel job computes only on request
 * (at N = 2,000 in 0.4-0.7 s where EJML took 7.9 s); its leading eigenpairs on the engine are {@link LeadingSpectrum})
 * and the statistics read from it:
 * <ul>
 *   <li>effective rank as participation ratio (Σλ)² / Σλ² (Gao, Trautmann, Yu, Santhanam, Ryu, Shenoy &amp; Ganguli,
 *   "A theory of multineuronal dimensionality, dynamics and measurement", bioRxiv 2017) — 1 for a rank-one kernel,
 *   n for K ∝ I; as Σλ = tr K and Σλ² = ‖K‖_F² for a symmetric K it needs no eigenvalues
 *   ({@link #effectiveRank(TracedKernel)});</li>
 *   <li>entropy effective rank exp(−Σ p_i log p_i), p_i = |λ_i| / Σ|λ_j| (Roy &amp; Vetterli, "The effective rank: a
 *   measure of effective dimensionality", EUSIPCO 2007);</li>
 *   <li>cumulative target power C(k) = Σ_{i≤k} ‖v_iᵀ Y‖² / ‖Y‖_F² (Canatar, Bordelon &amp; Pehlevan, "Spectral bias and
 *   task-model alignment explain generalization in kernel regression and infinitely wide neural networks", Nature
 *   Communications 12, 2021): how much of the targets lies in the top-k eigenspace. A kernel that has learned the task
 *   puts the targets in its top C eigenvectors, which is the spectral face of kernel–target
 *   alignment: A(K, Y) = Σ_i λ_i ‖v_iᵀY‖² / (‖Λ‖_F ‖YYᵀ‖_F).</li>
 * </ul>
 */
public final class KernelSpectrum {
    private final double[] values;
    /** Eigenvectors as columns, in the order of {@link #values}. */
    private final DMatrixRMaj vectors;

    private KernelSpectrum(double[] values, DMatrixRMaj vectors) {
        this.values = values;
        this.vectors = vectors;
    }

    /**
     * Decomposes the n×n kernel; it must be symmetric to 1e-6 relative to its largest entry (kernels
     * computed in float32 are symmetric only to rounding, so K is symmetrised as (K + Kᵀ)/2 first).
     */
    public static KernelSpectrum of(double[][] k) {
        int n = k.length;
        double max = 0;
        for (double[] row : k) {
            if (row.length != n) {
                throw new UserException(
                        "kernel is " + n + "×" + row.length + "; a spectrum needs a square kernel Θ(X, X)");
            }
            for (double v : row) {
                max = Math.max(max, Math.abs(v));
            }
        }
        DMatrixRMaj a = new DMatrixRMaj(n, n);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (Math.abs(k[i][j] - k[j][i]) > 1e-6 * max) {
                    throw new UserException("kernel is not symmetric at (" + i + ", " + j + "): " + k[i][j] + " vs "
                            + k[j][i] + "; a spectrum needs Θ(X, X)");
                }
                a.set(i, j, 0.5 * (k[i][j] + k[j][i]));
            }
        }
        Lapack.Eigen eig = Lapack.symmetric(a); // ascending
        double[] values = new double[n];
        DMatrixRMaj vectors = new DMatrixRMaj(n, n);
        for (int c = 0; c < n; c++) {
            int from = n - 1 - c;
            values[c] = eig.values()[from];
            for (int r = 0; r < n; r++) {
                vectors.set(r, c, eig.vectors().get(r, from));
            }
        }
        return new KernelSpectrum(values, vectors);
    }

    /** Eigenvalues, descending. */
    public double[] eigenvalues() {
        return values.clone();
    }

    /** The i-th eigenvector (of the i-th largest eigenvalue), unit norm. */
    public double[] eigenvector(int i) {
        double[] v = new double[values.length];
        for (int r = 0; r < v.length; r++) {
            v[r] = vectors.get(r, i);
        }
        return v;
    }

    /** Participation ratio (Σλ)² / Σλ². */
    public double effectiveRank() {
        double s = 0;
        double s2 = 0;
        for (double l : values) {
            s += l;
            s2 += l * l;
        }
        return s2 == 0 ? 0 : s * s / s2;
    }

    /**
     * The participation ratio (Σλ)² / Σλ² of a traced kernel without an eigen-decomposition: (tr T)² / ‖T‖_F², both
     * from one pass over T on the engine ({@link TracedKernel#moments()}); equal to {@link #effectiveRank()} for a
     * symmetric T.
     */
    public static double effectiveRank(TracedKernel t) {
        TracedKernel.Moments m = t.moments();
        return m.squaredNorm() == 0 ? 0 : m.trace() * m.trace() / m.squaredNorm();
    }

    /** exp(H(p)) with p_i = |λ_i| / Σ|λ_j| (Roy &amp; Vetterli 2007). */
    public double entropyEffectiveRank() {
        double s = 0;
        for (double l : values) {
            s += Math.abs(l);
        }
        if (s == 0) {
            return 0;
        }
        double h = 0;
        for (double l : values) {
            double p = Math.abs(l) / s;
            if (p > 0) {
                h -= p * Math.log(p);
            }
        }
        return Math.exp(h);
    }

    /**
     * C(k) for k = 1..n: the fraction of ‖Y‖_F² in the span of the top-k eigenvectors; Y has n rows
     * of {@code outputs} values (row-major), e.g. one-hot targets.
     */
    public double[] cumulativeTargetPower(float[] y, int outputs) {
        int n = values.length;
        if (y.length != n * outputs) {
            throw new UserException(
                    "targets have " + y.length + " values; expected " + n + " samples × " + outputs + " outputs");
        }
        double total = 0;
        for (float v : y) {
            total += (double) v * v;
        }
        double[] c = new double[n];
        double acc = 0;
        for (int i = 0; i < n; i++) {
            for (int o = 0; o < outputs; o++) {
                double p = 0;
                for (int r = 0; r < n; r++) {
                    p += vectors.get(r, i) * y[r * outputs + o];
                }
                acc += p * p;
            }
            c[i] = total == 0 ? 0 : acc / total;
        }
        return c;
    }
}
