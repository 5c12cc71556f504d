package org.ntk4j.experiment.support;

import java.util.SplittableRandom;

/**
 * The two-layer network of Xu &amp; Ziyin, "When Does Feature Learning Happen? Perspective from an Analytically
 * Solvable Model" (§2, eq. (5), §3), in plain double arithmetic: f(x) = κ·U σ(Wx), W ∈ R^{d×d₀}, U ∈ R^{C×d}
 * (C = 1 is the paper's u), σ = identity or ReLU, no biases. Trained by (minibatch) gradient descent with the
 * paper's layer-wise learning rates η_u, η_W, or by Adam; loss (f − y)² per output summed over outputs and averaged
 * over the batch (the paper's convention, no ½), or softmax cross-entropy. Small enough to train in double precision
 * on a CPU, which is what the comparison with the closed forms (errors ~1e-10) needs.
 */
public final class TwoLayerNet {
    public final int d;
    public final int d0;
    public final int outputs;
    public final double kappa;
    public final boolean relu;
    /** U, row-major C×d. */
    public final double[] u;
    /** W, row-major d×d₀. */
    public final double[] w;

    private double[] mU;
    private double[] vU;
    private double[] mW;
    private double[] vW;
    private int adamSteps;

    public TwoLayerNet(int d, int d0, int outputs, double kappa, boolean relu) {
        this.d = d;
        this.d0 = d0;
        this.outputs = outputs;
        this.kappa = kappa;
        this.relu = relu;
        this.u = new double[outputs * d];
        this.w = new double[d * d0];
    }

    /** U ~ N(0, σ_u²), W ~ N(0, σ_W²) i.i.d. */
    public static TwoLayerNet gaussian(
            int d, int d0, int outputs, double kappa, boolean relu, double sigmaU, double sigmaW, long seed) {
        TwoLayerNet n = new TwoLayerNet(d, d0, outputs, kappa, relu);
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < n.u.length; i++) {
            n.u[i] = sigmaU * r.nextGaussian();
        }
        for (int i = 0; i < n.w.length; i++) {
            n.w[i] = sigmaW * r.nextGaussian();
        }
        return n;
    }

    public TwoLayerNet copy() {
        TwoLayerNet n = new TwoLayerNet(d, d0, outputs, kappa, relu);
        System.arraycopy(u, 0, n.u, 0, u.length);
        System.arraycopy(w, 0, n.w, 0, w.length);
        return n;
    }

    /** Pre-activations Wx (length d) of one input. */
    public double[] pre(double[] x, int off) {
        double[] h = new double[d];
        for (int i = 0; i < d; i++) {
            double s = 0;
            int row = i * d0;
            for (int j = 0; j < d0; j++) {
                s += w[row + j] * x[off + j];
            }
            h[i] = s;
        }
        return h;
    }

    /** Hidden features σ(Wx). */
    public double[] features(double[] x, int off) {
        double[] h = pre(x, off);
        if (relu) {
            for (int i = 0; i < d; i++) {
                h[i] = Math.max(0, h[i]);
            }
        }
        return h;
    }

    /** Outputs κ·Uσ(Wx) of the input stored at x[off .. off + d₀). */
    public double[] forward(double[] x, int off) {
        return out(features(x, off));
    }

    private double[] out(double[] h) {
        double[] f = new double[outputs];
        for (int k = 0; k < outputs; k++) {
            double s = 0;
            for (int i = 0; i < d; i++) {
                s += u[k * d + i] * h[i];
            }
            f[k] = kappa * s;
        }
        return f;
    }

    /** Loss kinds. */
    public enum Loss {
        /** Σ_k (f_k − y_k)², averaged over the batch (targets are real numbers, C per example). */
        MSE,
        /** Softmax cross-entropy (targets are class indices). */
        CE
    }

    /**
     * Mean loss over the rows {@code idx} of (x, y): y holds C targets per example for MSE, one class index for CE.
     */
    public double loss(double[] x, double[] y, int[] idx, Loss loss) {
        double s = 0;
        for (int b : idx) {
            double[] f = forward(x, b * d0);
            s += lossOf(f, y, b, loss, null);
        }
        return s / idx.length;
    }

    /** Fraction of rows whose arg-max output is the class index y (CE targets). */
    public double accuracy(double[] x, double[] y, int[] idx) {
        int ok = 0;
        for (int b : idx) {
            double[] f = forward(x, b * d0);
            int best = 0;
            for (int k = 1; k < outputs; k++) {
                if (f[k] > f[best]) {
                    best = k;
                }
            }
            ok += best == (int) y[b] ? 1 : 0;
        }
        return ok / (double) idx.length;
    }

    /** The loss of one example, and ∂loss/∂f into {@code g} when non-null. */
    private double lossOf(double[] f, double[] y, int b, Loss loss, double[] g) {
        if (loss == Loss.MSE) {
            double s = 0;
            for (int k = 0; k < outputs; k++) {
                double r = f[k] - y[b * outputs + k];
                s += r * r;
                if (g != null) {
                    g[k] = 2 * r;
                }
            }
            return s;
        }
        double mx = Double.NEGATIVE_INFINITY;
        for (double v : f) {
            mx = Math.max(mx, v);
        }
        double z = 0;
        for (double v : f) {
            z += Math.exp(v - mx);
        }
        int c = (int) y[b];
        if (g != null) {
            for (int k = 0; k < outputs; k++) {
                g[k] = Math.exp(f[k] - mx) / z - (k == c ? 1 : 0);
            }
        }
        return Math.log(z) + mx - f[c];
    }

    /** Gradients {∂ℒ/∂U, ∂ℒ/∂W} of the batch-mean loss over the rows {@code idx}. */
    public double[][] gradients(double[] x, double[] y, int[] idx, Loss loss) {
        double[] gu = new double[u.length];
        double[] gw = new double[w.length];
        double[] g = new double[outputs];
        double inv = 1.0 / idx.length;
        for (int b : idx) {
            int off = b * d0;
            double[] pre = pre(x, off);
            double[] h = pre.clone();
            if (relu) {
                for (int i = 0; i < d; i++) {
                    h[i] = Math.max(0, h[i]);
                }
            }
            lossOf(out(h), y, b, loss, g);
            for (int i = 0; i < d; i++) {
                double back = 0;
                for (int k = 0; k < outputs; k++) {
                    double gk = kappa * g[k] * inv;
                    gu[k * d + i] += gk * h[i];
                    back += gk * u[k * d + i];
                }
                if (relu && pre[i] <= 0) {
                    continue;
                }
                int row = i * d0;
                for (int j = 0; j < d0; j++) {
                    gw[row + j] += back * x[off + j];
                }
            }
        }
        return new double[][] {gu, gw};
    }

    /** One (S)GD step with the layer learning rates η_u, η_W (eq. (5), discretised). */
    public void sgdStep(double[] x, double[] y, int[] idx, Loss loss, double etaU, double etaW) {
        double[][] g = gradients(x, y, idx, loss);
        for (int i = 0; i < u.length; i++) {
            u[i] -= etaU * g[0][i];
        }
        for (int i = 0; i < w.length; i++) {
            w[i] -= etaW * g[1][i];
        }
    }

    /** One Adam step (Kingma &amp; Ba; β₁ = 0.9, β₂ = 0.999, ε = 1e-8) with step size lr for both layers. */
    public void adamStep(double[] x, double[] y, int[] idx, Loss loss, double lr) {
        double[][] g = gradients(x, y, idx, loss);
        if (mU == null) {
            mU = new double[u.length];
            vU = new double[u.length];
            mW = new double[w.length];
            vW = new double[w.length];
        }
        adamSteps++;
        double c1 = 1 - Math.pow(0.9, adamSteps);
        double c2 = 1 - Math.pow(0.999, adamSteps);
        adam(u, g[0], mU, vU, lr, c1, c2);
        adam(w, g[1], mW, vW, lr, c1, c2);
    }

    private static void adam(double[] p, double[] g, double[] m, double[] v, double lr, double c1, double c2) {
        for (int i = 0; i < p.length; i++) {
            m[i] = 0.9 * m[i] + 0.1 * g[i];
            v[i] = 0.999 * v[i] + 0.001 * g[i] * g[i];
            p[i] -= lr * (m[i] / c1) / (Math.sqrt(v[i] / c2) + 1e-8);
        }
    }

    /** Cosine similarity of two vectors (0 when one is zero). */
    public static double cosine(double[] a, double[] b) {
        double ab = 0;
        double aa = 0;
        double bb = 0;
        for (int i = 0; i < a.length; i++) {
            ab += a[i] * b[i];
            aa += a[i] * a[i];
            bb += b[i] * b[i];
        }
        return aa == 0 || bb == 0 ? 0 : ab / Math.sqrt(aa * bb);
    }

    /**
     * Layer alignment of a scalar-output net: ζ = cos(u, Σ_i y_i σ(Wx_i)) over the rows of (x, y). For one point and
     * y &gt; 0 this is the paper's ζ = cos(u, Wx) (eq. (20)); for ReLU nets on many points the paper does not define
     * ζ, and this label-weighted feature direction (the direction the readout u needs) is our choice.
     */
    public double alignment(double[] x, double[] y, int n) {
        double[] s = new double[d];
        for (int b = 0; b < n; b++) {
            double[] h = features(x, b * d0);
            for (int i = 0; i < d; i++) {
                s[i] += y[b] * h[i];
            }
        }
        return cosine(u, s);
    }

    /**
     * The empirical NTK summed over outputs between rows {@code ia} of xa and rows {@code ib} of xb (unit learning
     * rates): K(x, x') = κ²[C·σ(Wx)·σ(Wx') + (x·x') Σ_i ‖U_{:,i}‖² σ'(w_i·x) σ'(w_i·x')] (σ' = 1 for the linear net),
     * the analytic two-layer form (Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, §4: relu(WX)ᵀrelu(WX) + (GᵀG)∘(XᵀX)).
     */
    public double[][] ntk(double[] xa, int[] ia, double[] xb, int[] ib) {
        double[][] pa = new double[ia.length][];
        double[][] pb = new double[ib.length][];
        for (int a = 0; a < ia.length; a++) {
            pa[a] = pre(xa, ia[a] * d0);
        }
        for (int b = 0; b < ib.length; b++) {
            pb[b] = pre(xb, ib[b] * d0);
        }
        double[] un = new double[d];
        for (int k = 0; k < outputs; k++) {
            for (int i = 0; i < d; i++) {
                un[i] += u[k * d + i] * u[k * d + i];
            }
        }
        double[][] kk = new double[ia.length][ib.length];
        double f = kappa * kappa;
        for (int a = 0; a < ia.length; a++) {
            for (int b = 0; b < ib.length; b++) {
                double hh = 0;
                double gg = 0;
                for (int i = 0; i < d; i++) {
                    double p = pa[a][i];
                    double q = pb[b][i];
                    if (!relu) {
                        hh += p * q;
                        gg += un[i];
                    } else if (p > 0 && q > 0) {
                        hh += p * q;
                        gg += un[i];
                    }
                }
                double xx = 0;
                for (int j = 0; j < d0; j++) {
                    xx += xa[ia[a] * d0 + j] * xb[ib[b] * d0 + j];
                }
                kk[a][b] = f * (outputs * hh + xx * gg);
            }
        }
        return kk;
    }

    /** Frobenius norm of a flat array. */
    public static double norm(double[] a) {
        double s = 0;
        for (double v : a) {
            s += v * v;
        }
        return Math.sqrt(s);
    }

    /** ‖a − b‖ / ‖b‖. */
    public static double relativeChange(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            double e = a[i] - b[i];
            s += e * e;
        }
        return Math.sqrt(s) / norm(b);
    }

    /** W as d rows of d₀ (a copy). */
    public double[][] wRows() {
        double[][] r = new double[d][d0];
        for (int i = 0; i < d; i++) {
            System.arraycopy(w, i * d0, r[i], 0, d0);
        }
        return r;
    }
}
