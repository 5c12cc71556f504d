package org.ntk4j.theory;

import java.util.SplittableRandom;
import org.ntk4j.spec.Parameterization;

/**
 * One randomly initialised fully connected network in plain Java (double precision) and its exact
 * empirical NTK, for Monte Carlo checks of the infinite-width and finite-width theory. Not a training
 * engine: the DJL kernel engine is the production path; this class is its independent oracle.
 *
 * <p>Network (Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit, eq. (3)): x⁰ = x, h^l = W^l x^{l−1} + b^l,
 * x^l = φ(h^l) for l &lt; L, f = h^L (scalar, linear readout). Weights W^l = (σ_w/√n_{l−1}) w^l and b^l = σ_b β^l with
 * w, β ~ N(0,1) — the same forward law for both parameterisations.
 *
 * <p>NTK by the backprop identity (Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit, eq. (19), Thm A.9;
 * Lou, Mingard &amp; Hayou, Equilibrium Hypothesis, Eq. 7):
 * <pre>
 *   Θ(x,x') = Σ_l ⟨δ^l, δ'^l⟩ · (a_l ⟨x^{l−1}, x'^{l−1}⟩ + b_l),   δ^l = ∂f/∂h^l,
 *   NTK param: a_l = σ_w²/n_{l−1}, b_l = σ_b²;   standard param: a_l = 1, b_l = 1 (0 if biases are frozen).
 * </pre>
 * {@link #gradient} gives the explicit parameter gradient, so the identity itself is testable.
 */
public final class MonteCarloNtk {
    private final int[] widths;
    private final Activation activation;
    private final Parameterization parameterization;
    private final double sigmaW;
    private final double sigmaB;
    private final boolean trainBias;
    /** Effective weights W^l (n_l × n_{l−1}, row-major), l = 1..L stored at index l−1. */
    private final double[][] weights;

    private final double[][] biases;

    /** Forward and backward signals of one input. */
    public static final class Pass {
        /** x^l for l = 0..L−1 (layer inputs). */
        public final double[][] inputs;
        /** h^l for l = 1..L at index l−1. */
        public final double[][] preActivations;
        /** δ^l = ∂f/∂h^l for l = 1..L at index l−1. */
        public final double[][] deltas;

        public final double output;

        Pass(double[][] inputs, double[][] pre, double[][] deltas, double output) {
            this.inputs = inputs;
            this.preActivations = pre;
            this.deltas = deltas;
            this.output = output;
        }
    }

    /**
     * Samples a network. {@code widths} = [n₀, n₁, …, n_{L−1}, 1]; the last width must be 1 (scalar output).
     */
    public MonteCarloNtk(
            int[] widths,
            Activation activation,
            Parameterization parameterization,
            double sigmaW,
            double sigmaB,
            boolean trainBias,
            long seed) {
        if (widths.length < 2 || widths[widths.length - 1] != 1) {
            throw new IllegalArgumentException("widths must be [n0, ..., 1] with a scalar output");
        }
        this.widths = widths.clone();
        this.activation = activation;
        this.parameterization = parameterization;
        this.sigmaW = sigmaW;
        this.sigmaB = sigmaB;
        this.trainBias = trainBias;
        SplittableRandom rng = new SplittableRandom(seed);
        int layers = widths.length - 1;
        weights = new double[layers][];
        biases = new double[layers][];
        for (int l = 0; l < layers; l++) {
            int out = widths[l + 1];
            int in = widths[l];
            double scale = sigmaW / Math.sqrt(in);
            double[] w = new double[out * in];
            for (int i = 0; i < w.length; i++) {
                w[i] = scale * rng.nextGaussian();
            }
            double[] b = new double[out];
            for (int i = 0; i < out; i++) {
                b[i] = sigmaB * rng.nextGaussian();
            }
            weights[l] = w;
            biases[l] = b;
        }
    }

    /** Number of weight layers L. */
    public int depth() {
        return widths.length - 1;
    }

    /** Forward pass storing every layer input, then the backward pass for δ^l. */
    public Pass pass(double[] x) {
        int layers = depth();
        double[][] inputs = new double[layers][];
        double[][] pre = new double[layers][];
        double[] a = x;
        for (int l = 0; l < layers; l++) {
            inputs[l] = a;
            int out = widths[l + 1];
            int in = widths[l];
            double[] w = weights[l];
            double[] h = new double[out];
            for (int i = 0; i < out; i++) {
                double s = biases[l][i];
                int off = i * in;
                for (int j = 0; j < in; j++) {
                    s += w[off + j] * a[j];
                }
                h[i] = s;
            }
            pre[l] = h;
            if (l < layers - 1) {
                double[] next = new double[out];
                for (int i = 0; i < out; i++) {
                    next[i] = activation.apply(h[i]);
                }
                a = next;
            }
        }
        double[][] deltas = new double[layers][];
        deltas[layers - 1] = new double[] {1.0};
        for (int l = layers - 2; l >= 0; l--) {
            int out = widths[l + 1];
            int outNext = widths[l + 2];
            double[] w = weights[l + 1];
            double[] dNext = deltas[l + 1];
            double[] d = new double[out];
            for (int k = 0; k < outNext; k++) {
                double dk = dNext[k];
                if (dk == 0) {
                    continue;
                }
                int off = k * out;
                for (int i = 0; i < out; i++) {
                    d[i] += w[off + i] * dk;
                }
            }
            for (int i = 0; i < out; i++) {
                d[i] *= activation.derivative(pre[l][i]);
            }
            deltas[l] = d;
        }
        return new Pass(inputs, pre, deltas, pre[layers - 1][0]);
    }

    /** Per-layer NTK contributions Θ_l(x,x') (l = 1..L at index l−1) from two passes. */
    public double[] layerNtk(Pass p, Pass q) {
        int layers = depth();
        double[] out = new double[layers];
        for (int l = 0; l < layers; l++) {
            double dd = MlpKernel.dot(p.deltas[l], q.deltas[l]);
            double xx = MlpKernel.dot(p.inputs[l], q.inputs[l]);
            double a;
            double b;
            if (parameterization == Parameterization.NTK) {
                a = sigmaW * sigmaW / widths[l];
                b = sigmaB * sigmaB;
            } else {
                a = 1;
                b = trainBias ? 1 : 0;
            }
            out[l] = dd * (a * xx + b);
        }
        return out;
    }

    /** Θ(x,x') = Σ_l Θ_l(x,x'). */
    public double ntk(Pass p, Pass q) {
        double s = 0;
        for (double v : layerNtk(p, q)) {
            s += v;
        }
        return s;
    }

    public double ntk(double[] x, double[] xp) {
        Pass p = pass(x);
        return ntk(p, x == xp ? p : pass(xp));
    }

    /** Empirical NTK matrix between the rows of x1 and x2. */
    public double[][] ntkMatrix(double[][] x1, double[][] x2) {
        Pass[] p1 = new Pass[x1.length];
        for (int i = 0; i < x1.length; i++) {
            p1[i] = pass(x1[i]);
        }
        Pass[] p2 = x1 == x2 ? p1 : new Pass[x2.length];
        if (x1 != x2) {
            for (int j = 0; j < x2.length; j++) {
                p2[j] = pass(x2[j]);
            }
        }
        double[][] k = new double[x1.length][x2.length];
        for (int i = 0; i < x1.length; i++) {
            for (int j = 0; j < x2.length; j++) {
                k[i][j] = ntk(p1[i], p2[j]);
            }
        }
        return k;
    }

    /**
     * ∇_θ f(x) in the trained coordinates, flattened layer by layer (weights row-major, then biases):
     * NTK param θ = (w, β), standard param θ = (W, b). Only for small networks (size P).
     */
    public double[] gradient(double[] x) {
        Pass p = pass(x);
        int size = 0;
        for (int l = 0; l < depth(); l++) {
            size += widths[l + 1] * widths[l] + widths[l + 1];
        }
        double[] g = new double[size];
        int k = 0;
        for (int l = 0; l < depth(); l++) {
            double ws = parameterization == Parameterization.NTK ? sigmaW / Math.sqrt(widths[l]) : 1;
            double bs = parameterization == Parameterization.NTK ? sigmaB : (trainBias ? 1 : 0);
            for (int i = 0; i < widths[l + 1]; i++) {
                for (int j = 0; j < widths[l]; j++) {
                    g[k++] = ws * p.deltas[l][i] * p.inputs[l][j];
                }
            }
            for (int i = 0; i < widths[l + 1]; i++) {
                g[k++] = bs * p.deltas[l][i];
            }
        }
        return g;
    }

    /**
     * One gradient-descent step on the single sample (x, y) with the squared loss ½(f(x) − y)² and learning rate η,
     * in the trained coordinates (Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit, Thm 4.1 / A.10):
     * θ ← θ − η (f(x) − y) ∇_θ f(x). For the effective weights this is W^l ← W^l − η (f − y) s_l² δ^l x^{l−1}ᵀ and
     * b^l ← b^l − η (f − y) t_l² δ^l, with s_l = 1, t_l = 1 (standard param; t_l = 0 for frozen biases) or
     * s_l = σ_w/√n_{l−1}, t_l = σ_b (NTK param). Returns f(x) before the step.
     */
    public double gradientStep(double[] x, double y, double eta) {
        Pass p = pass(x);
        double r = p.output - y;
        for (int l = 0; l < depth(); l++) {
            double ws2 = parameterization == Parameterization.NTK ? sigmaW * sigmaW / widths[l] : 1;
            double bs2 = parameterization == Parameterization.NTK ? sigmaB * sigmaB : (trainBias ? 1 : 0);
            int in = widths[l];
            double[] d = p.deltas[l];
            double[] a = p.inputs[l];
            double[] w = weights[l];
            for (int i = 0; i < widths[l + 1]; i++) {
                double g = eta * r * d[i];
                if (g == 0) {
                    continue;
                }
                int off = i * in;
                for (int j = 0; j < in; j++) {
                    w[off + j] -= ws2 * g * a[j];
                }
                biases[l][i] -= bs2 * g;
            }
        }
        return p.output;
    }

    /**
     * f(x) with the trained coordinate {@code index} (same order as {@link #gradient}) moved by {@code eps};
     * for finite-difference checks.
     */
    public double outputPerturbed(double[] x, int index, double eps) {
        int k = index;
        for (int l = 0; l < depth(); l++) {
            int nw = widths[l + 1] * widths[l];
            int nb = widths[l + 1];
            double ws = parameterization == Parameterization.NTK ? sigmaW / Math.sqrt(widths[l]) : 1;
            double bs = parameterization == Parameterization.NTK ? sigmaB : 1;
            if (k < nw) {
                double old = weights[l][k];
                weights[l][k] = old + ws * eps;
                double f = pass(x).output;
                weights[l][k] = old;
                return f;
            }
            k -= nw;
            if (k < nb) {
                double old = biases[l][k];
                biases[l][k] = old + bs * eps;
                double f = pass(x).output;
                biases[l][k] = old;
                return f;
            }
            k -= nb;
        }
        throw new IndexOutOfBoundsException("parameter index " + index);
    }
}
