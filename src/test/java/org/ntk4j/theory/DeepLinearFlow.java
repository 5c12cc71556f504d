package org.ntk4j.theory;

import java.util.SplittableRandom;

/**
 * Test oracle: exact gradient flow (RK4) of a deep linear network f(x) = M_L⋯M_1 x with the population loss
 * ½‖w_eff − sβ‖², which equals the paper's (1/2P)Σ loss on whitened data (X Xᵀ/P = I). Per-layer rates η_l.
 * Layer l has shape n_l × n_{l−1}, n_0 = D, n_L = 1.
 */
final class DeepLinearFlow {
    final int[] n;
    final double[] etas;
    final double[] beta;
    final double s;

    DeepLinearFlow(int[] widths, double[] etas, double[] beta, double s) {
        this.n = widths;
        this.etas = etas;
        this.beta = beta;
        this.s = s;
    }

    int depth() {
        return n.length - 1;
    }

    int offset(int l) {
        int o = 0;
        for (int k = 1; k < l; k++) {
            o += n[k] * n[k - 1];
        }
        return o;
    }

    int size() {
        return offset(depth() + 1);
    }

    /** Gaussian init, layer l entries N(0, σ²/n_{l−1}). */
    double[] randomInit(double sigma, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] th = new double[size()];
        for (int l = 1; l <= depth(); l++) {
            int o = offset(l);
            double sd = sigma / Math.sqrt(n[l - 1]);
            for (int i = 0; i < n[l] * n[l - 1]; i++) {
                th[o + i] = sd * r.nextGaussian();
            }
        }
        return th;
    }

    /** Row vector v (length n_{l}) times layer matrices from l+1 to L: returns (M_L⋯M_{l+1}) as a vector of length n_l. */
    double[] back(double[] th, int l) {
        double[] v = {1.0};
        for (int k = depth(); k > l; k--) {
            int o = offset(k);
            double[] nv = new double[n[k - 1]];
            for (int i = 0; i < n[k]; i++) {
                for (int j = 0; j < n[k - 1]; j++) {
                    nv[j] += v[i] * th[o + i * n[k - 1] + j];
                }
            }
            v = nv;
        }
        return v;
    }

    /** M_{l}⋯M_1 applied to vector e (length D); l = 0 returns e. */
    double[] forward(double[] th, int l, double[] e) {
        double[] v = e;
        for (int k = 1; k <= l; k++) {
            int o = offset(k);
            double[] nv = new double[n[k]];
            for (int i = 0; i < n[k]; i++) {
                double acc = 0;
                for (int j = 0; j < n[k - 1]; j++) {
                    acc += th[o + i * n[k - 1] + j] * v[j];
                }
                nv[i] = acc;
            }
            v = nv;
        }
        return v;
    }

    double[] effective(double[] th) {
        return back(th, 0);
    }

    void derivative(double[] th, double[] dth) {
        double[] w = effective(th);
        double[] e = new double[n[0]];
        for (int i = 0; i < n[0]; i++) {
            e[i] = w[i] - s * beta[i];
        }
        for (int l = 1; l <= depth(); l++) {
            double[] v = back(th, l);
            double[] p = forward(th, l - 1, e);
            int o = offset(l);
            for (int i = 0; i < n[l]; i++) {
                for (int j = 0; j < n[l - 1]; j++) {
                    dth[o + i * n[l - 1] + j] = -etas[l - 1] * v[i] * p[j];
                }
            }
        }
    }

    double[] flow(double[] th0, double t, int steps) {
        return Rk4.integrate((tt, y, dy) -> derivative(y, dy), th0, 0, t, steps);
    }

    double loss(double[] th) {
        double[] w = effective(th);
        double l = 0;
        for (int i = 0; i < n[0]; i++) {
            double d = w[i] - s * beta[i];
            l += d * d;
        }
        return 0.5 * l;
    }

    /**
     * Unweighted NTK matrix M (D×D): K(x,x') = xᵀMx' = Σ_l ‖v_l‖² (P_{l−1}x)·(P_{l−1}x') (Atanasov, Bordelon &amp;
     * Pehlevan, Silent Alignment, eq. 34).
     */
    double[][] ntkMatrix(double[] th) {
        int d = n[0];
        double[][] m = new double[d][d];
        for (int l = 1; l <= depth(); l++) {
            double[] v = back(th, l);
            double vv = MlpKernel.dot(v, v);
            double[][] cols = new double[d][];
            for (int c = 0; c < d; c++) {
                double[] e = new double[d];
                e[c] = 1;
                cols[c] = forward(th, l - 1, e);
            }
            for (int i = 0; i < d; i++) {
                for (int j = 0; j < d; j++) {
                    m[i][j] += vv * MlpKernel.dot(cols[i], cols[j]);
                }
            }
        }
        return m;
    }
}
