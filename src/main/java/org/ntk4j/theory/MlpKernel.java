package org.ntk4j.theory;

import java.util.Objects;
import org.ejml.data.DMatrixRMaj;
import org.ntk4j.spec.Parameterization;

/**
 * Infinite-width NNGP and NTK of a fully connected network, in the convention of neural-tangents'
 * {@code stax.serial([Dense(W_std, b_std), φ] × (L−1), Dense(W_std, b_std))} with a linear scalar readout
 * (the kernel of a network with k outputs is this kernel ⊗ I_k).
 *
 * <p>Depth {@code L} counts weight layers (Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit, eq. (3); Lou,
 * Mingard &amp; Hayou, Equilibrium Hypothesis, §2), so there are L−1 hidden layers. Kernels of the first layer input
 * are per-feature averages, K⁰(x,x') = x·x'/n₀ (neural-tangents convention).
 *
 * <p>Recursion (corrected form of Seleznova, NTK thesis, Thm 2.6, eqs. (2.55)–(2.56): the printed
 * recursion omits the σ_w² factor on Σ̇; Novak et al. 2020, Neural Tangents, {@code stax.Dense}/{@code stax.ABRelu}
 * rules):
 * <pre>
 *   Σ¹ = σ_w² x·x'/n₀ + σ_b²
 *   NTK param:       Θ¹ = Σ¹
 *   standard param:  Θ¹ = x·x' + β              (β = 1 if biases are trained, else 0)
 *   for l = 1..L−1 (hidden layers, width n_l):
 *      V  = E[φ(u)φ(v)], V' = E[φ'(u)φ'(v)],  (u,v) ~ N(0, Σ^l restricted to {x,x'})
 *      Σ^{l+1} = σ_w² V + σ_b²
 *      NTK param:      Θ^{l+1} = Σ^{l+1} + σ_w² V' Θ^l
 *      standard param: Θ^{l+1} = n_l V + β + σ_w² V' Θ^l
 * </pre>
 * The NNGP is Σ^L, the NTK Θ^L. In the standard parameterisation the NTK grows linearly with width
 * (neural-tangents uses the finite layer widths there, as this class does with {@code hiddenWidth}).
 */
public final class MlpKernel {
    private final Activation activation;
    private final int depth;
    private final double sigmaW2;
    private final double sigmaB2;
    private final Parameterization parameterization;
    private final int hiddenWidth;
    private final boolean trainBias;

    /** Kernel matrices NNGP and NTK (rows: first argument, columns: second). */
    public record Kernels(DMatrixRMaj nngp, DMatrixRMaj ntk) {}

    private MlpKernel(Builder b) {
        this.activation = Objects.requireNonNull(b.activation);
        this.depth = b.depth;
        this.sigmaW2 = b.sigmaW * b.sigmaW;
        this.sigmaB2 = b.sigmaB * b.sigmaB;
        this.parameterization = b.parameterization;
        this.hiddenWidth = b.hiddenWidth;
        this.trainBias = b.trainBias;
        if (depth < 1) {
            throw new org.ntk4j.UserException("depth must be >= 1 weight layer, got " + depth);
        }
        if (parameterization == Parameterization.STANDARD && hiddenWidth < 1 && depth > 1) {
            throw new org.ntk4j.UserException(
                    "the standard parameterisation needs --width (its NTK scales with width)");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builder; defaults: ReLU, L = 2, σ_w = 1, σ_b = 0, NTK parameterisation, biases trained. */
    public static final class Builder {
        private Activation activation = Activation.RELU;
        private int depth = 2;
        private double sigmaW = 1;
        private double sigmaB = 0;
        private Parameterization parameterization = Parameterization.NTK;
        private int hiddenWidth = -1;
        private boolean trainBias = true;

        public Builder activation(Activation a) {
            this.activation = a;
            return this;
        }

        /** Number of weight layers L (L−1 hidden layers). */
        public Builder depth(int l) {
            this.depth = l;
            return this;
        }

        /** W_std = σ_w. */
        public Builder sigmaW(double s) {
            this.sigmaW = s;
            return this;
        }

        /** b_std = σ_b. */
        public Builder sigmaB(double s) {
            this.sigmaB = s;
            return this;
        }

        public Builder parameterization(Parameterization p) {
            this.parameterization = p;
            return this;
        }

        /** Hidden width n (only the standard parameterisation's NTK depends on it). */
        public Builder hiddenWidth(int n) {
            this.hiddenWidth = n;
            return this;
        }

        /** Whether biases are trainable parameters (standard parameterisation: adds 1 per layer to Θ). */
        public Builder trainBias(boolean t) {
            this.trainBias = t;
            return this;
        }

        public MlpKernel build() {
            return new MlpKernel(this);
        }
    }

    public int depth() {
        return depth;
    }

    public Activation activation() {
        return activation;
    }

    /**
     * {NNGP, NTK} for one pair of inputs. {@code sq1}, {@code sq2}, {@code dot} are x·x, x'·x', x·x'; n0 the
     * input dimension.
     */
    public double[] pair(double sq1, double sq2, double dot, int n0) {
        double s11 = sigmaW2 * sq1 / n0 + sigmaB2;
        double s22 = sigmaW2 * sq2 / n0 + sigmaB2;
        double s12 = sigmaW2 * dot / n0 + sigmaB2;
        double beta = trainBias ? 1 : 0;
        double theta = parameterization == Parameterization.NTK ? s12 : dot + beta;
        for (int l = 1; l < depth; l++) {
            double[] v = activation.expectedProducts(s11, s12, s22);
            double v12 = v[0];
            double vd = v[1];
            double v11 = activation.expectedProduct(s11, s11, s11);
            double v22 = sq1 == sq2 && s11 == s22 ? v11 : activation.expectedProduct(s22, s22, s22);
            s11 = sigmaW2 * v11 + sigmaB2;
            s22 = sigmaW2 * v22 + sigmaB2;
            double next = sigmaW2 * v12 + sigmaB2;
            if (parameterization == Parameterization.NTK) {
                theta = next + sigmaW2 * vd * theta;
            } else {
                theta = hiddenWidth * v12 + beta + sigmaW2 * vd * theta;
            }
            s12 = next;
        }
        return new double[] {s12, theta};
    }

    /** {NNGP, NTK} for inputs x, x'. */
    public double[] pair(double[] x, double[] xp) {
        if (x.length != xp.length) {
            throw new org.ntk4j.UserException("inputs of different dimension: " + x.length + " vs " + xp.length);
        }
        return pair(dot(x, x), dot(xp, xp), dot(x, xp), x.length);
    }

    /** NNGP and NTK matrices between the rows of {@code x1} (N1 × n0) and {@code x2} (N2 × n0). */
    public Kernels kernels(double[][] x1, double[][] x2) {
        int n1 = x1.length;
        int n2 = x2.length;
        DMatrixRMaj k = new DMatrixRMaj(n1, n2);
        DMatrixRMaj t = new DMatrixRMaj(n1, n2);
        double[] sq1 = new double[n1];
        double[] sq2 = new double[n2];
        for (int i = 0; i < n1; i++) {
            sq1[i] = dot(x1[i], x1[i]);
        }
        for (int j = 0; j < n2; j++) {
            sq2[j] = dot(x2[j], x2[j]);
        }
        boolean same = x1 == x2;
        for (int i = 0; i < n1; i++) {
            for (int j = same ? i : 0; j < n2; j++) {
                if (x1[i].length != x2[j].length) {
                    throw new org.ntk4j.UserException(
                            "inputs of different dimension: " + x1[i].length + " vs " + x2[j].length);
                }
                double[] p = pair(sq1[i], sq2[j], dot(x1[i], x2[j]), x1[i].length);
                k.set(i, j, p[0]);
                t.set(i, j, p[1]);
                if (same) {
                    k.set(j, i, p[0]);
                    t.set(j, i, p[1]);
                }
            }
        }
        return new Kernels(k, t);
    }

    /** Train×train kernels (symmetric; each pair computed once). */
    public Kernels kernels(double[][] x) {
        return kernels(x, x);
    }

    static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }
}
