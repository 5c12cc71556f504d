package org.ntk4j.experiment.silentalignment;

import java.util.SplittableRandom;
import org.ntk4j.experiment.support.TwoLayerNet;

/**
 * A bias-free scalar-output ReLU MLP of depth L in plain double arithmetic, f(x) = aᵀ h_{L−1}, h_l = ReLU(W_l h_{l−1}),
 * h₀ = x, with W₁ ∈ R^{N×D}, W_l ∈ R^{N×N}, a ∈ R^N drawn i.i.d. N(0, σ²/fan_in) — the depth-3 network of Atanasov,
 * Bordelon &amp; Pehlevan, "Neural networks as kernel learners: the silent alignment effect", Fig. D.2 (depth 2 is the
 * network of {@link TwoLayerNet} with κ = 1). Trained by full-batch GD on the mean of (f − y)² (no ½, as
 * {@link TwoLayerNet}). Its empirical NTK is computed exactly from the back-propagated errors δ_l = ∂f/∂(W_l h_{l−1}):
 * K(x, x') = Σ_l (δ_l·δ_l')(h_{l−1}·h_{l−1}') + h_{L−1}·h_{L−1}' (the sum over layers of per-layer gradient inner
 * products, ∂f/∂W_l = δ_l h_{l−1}ᵀ).
 */
final class DeepReluNet {
    final int depth;
    final int width;
    final int inputs;
    /** Hidden layers W₁ … W_{L−1}, row-major. */
    final double[][] w;
    /** Readout a. */
    final double[] a;

    DeepReluNet(int depth, int width, int inputs, double sigma, long seed) {
        if (depth < 2) {
            throw new IllegalArgumentException("depth must be at least 2, got " + depth);
        }
        this.depth = depth;
        this.width = width;
        this.inputs = inputs;
        SplittableRandom r = new SplittableRandom(seed);
        w = new double[depth - 1][];
        for (int l = 0; l < depth - 1; l++) {
            int fanIn = l == 0 ? inputs : width;
            w[l] = new double[width * fanIn];
            double s = sigma / Math.sqrt(fanIn);
            for (int i = 0; i < w[l].length; i++) {
                w[l][i] = s * r.nextGaussian();
            }
        }
        a = new double[width];
        for (int i = 0; i < width; i++) {
            a[i] = sigma / Math.sqrt(width) * r.nextGaussian();
        }
    }

    /** Activations h₀ … h_{L−1} (h₀ the input) and errors δ₁ … δ_{L−1} of one input. */
    private record Pass(double[][] h, double[][] delta, double f) {}

    private Pass pass(double[] x, int off) {
        double[][] h = new double[depth][];
        double[][] z = new double[depth][];
        h[0] = java.util.Arrays.copyOfRange(x, off, off + inputs);
        for (int l = 1; l < depth; l++) {
            double[] prev = h[l - 1];
            int fanIn = prev.length;
            z[l] = new double[width];
            h[l] = new double[width];
            for (int i = 0; i < width; i++) {
                double s = 0;
                int row = i * fanIn;
                for (int j = 0; j < fanIn; j++) {
                    s += w[l - 1][row + j] * prev[j];
                }
                z[l][i] = s;
                h[l][i] = Math.max(0, s);
            }
        }
        double f = 0;
        for (int i = 0; i < width; i++) {
            f += a[i] * h[depth - 1][i];
        }
        double[][] delta = new double[depth][];
        double[] back = a;
        for (int l = depth - 1; l >= 1; l--) {
            double[] d = new double[width];
            for (int i = 0; i < width; i++) {
                d[i] = z[l][i] > 0 ? back[i] : 0;
            }
            delta[l] = d;
            if (l > 1) {
                double[] nb = new double[width];
                for (int i = 0; i < width; i++) {
                    if (d[i] != 0) {
                        int row = i * width;
                        for (int j = 0; j < width; j++) {
                            nb[j] += w[l - 1][row + j] * d[i];
                        }
                    }
                }
                back = nb;
            }
        }
        return new Pass(h, delta, f);
    }

    /** f(x) of the input stored at x[off .. off + D). */
    double forward(double[] x, int off) {
        return pass(x, off).f();
    }

    /** Mean of (f − y)² over the n inputs of x. */
    double loss(double[] x, double[] y) {
        double s = 0;
        for (int b = 0; b < y.length; b++) {
            double e = forward(x, b * inputs) - y[b];
            s += e * e;
        }
        return s / y.length;
    }

    /** One full-batch GD step with step size lr on the mean of (f − y)². */
    void gdStep(double[] x, double[] y, double lr) {
        int n = y.length;
        double[][] gw = new double[depth - 1][];
        for (int l = 0; l < depth - 1; l++) {
            gw[l] = new double[w[l].length];
        }
        double[] ga = new double[width];
        for (int b = 0; b < n; b++) {
            Pass p = pass(x, b * inputs);
            double e = 2 * (p.f() - y[b]) / n;
            for (int i = 0; i < width; i++) {
                ga[i] += e * p.h()[depth - 1][i];
            }
            for (int l = 1; l < depth; l++) {
                double[] prev = p.h()[l - 1];
                double[] d = p.delta()[l];
                for (int i = 0; i < width; i++) {
                    if (d[i] != 0) {
                        double c = e * d[i];
                        int row = i * prev.length;
                        for (int j = 0; j < prev.length; j++) {
                            gw[l - 1][row + j] += c * prev[j];
                        }
                    }
                }
            }
        }
        for (int l = 0; l < depth - 1; l++) {
            for (int i = 0; i < w[l].length; i++) {
                w[l][i] -= lr * gw[l][i];
            }
        }
        for (int i = 0; i < width; i++) {
            a[i] -= lr * ga[i];
        }
    }

    /** The empirical NTK between the na inputs of xa and the nb inputs of xb (formula in the class comment). */
    double[][] ntk(double[] xa, int na, double[] xb, int nb) {
        Pass[] pa = new Pass[na];
        Pass[] pb = new Pass[nb];
        for (int i = 0; i < na; i++) {
            pa[i] = pass(xa, i * inputs);
        }
        for (int j = 0; j < nb; j++) {
            pb[j] = pass(xb, j * inputs);
        }
        double[][] k = new double[na][nb];
        for (int i = 0; i < na; i++) {
            for (int j = 0; j < nb; j++) {
                double s = dot(pa[i].h()[depth - 1], pb[j].h()[depth - 1]);
                for (int l = 1; l < depth; l++) {
                    s += dot(pa[i].delta()[l], pb[j].delta()[l]) * dot(pa[i].h()[l - 1], pb[j].h()[l - 1]);
                }
                k[i][j] = s;
            }
        }
        return k;
    }

    private static double dot(double[] u, double[] v) {
        double s = 0;
        for (int i = 0; i < u.length; i++) {
            s += u[i] * v[i];
        }
        return s;
    }
}
