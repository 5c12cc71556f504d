package org.ntk4j.metrics;

import org.ntk4j.UserException;

/**
 * Kernel–target alignment (Cristianini, Shawe-Taylor, Elisseeff &amp; Kandola, "On kernel-target alignment", NIPS
 * 2001, published 2002; Seleznova, NTK thesis eq. (2.63)):
 * <pre>A(K, Y) = ⟨K, YYᵀ⟩_F / (‖K‖_F · ‖YYᵀ‖_F)</pre>
 * and its centred form (Cortes, Mohri &amp; Rostamizadeh, "Algorithms for learning kernels based on centered
 * alignment", JMLR 13, 2012) A(HKH, HYYᵀH) with H = I − 11ᵀ/n, which removes the constant mode
 * that dominates kernels of networks with biases. Y is n × O (e.g. one-hot rows).
 *
 * <p>The centred form on a traced n×n kernel is the <b>traced-centred alignment</b>: it is not the layer
 * CKA of Lou, Mingard and Hayou (Eq. 5 of "The Equilibrium Hypothesis"), which is defined on the full
 * (n·O)×(n·O) kernel of training points with one global centring; that one is {@link LayerCka}.
 *
 * <p>Both come from one product of the kernel with the n × 2O matrix [Y, HY] on the engine
 * ({@link TracedKernel#times}): ⟨K, YYᵀ⟩ = Σ Y ∘ (KY), and, as H is symmetric and idempotent,
 * ⟨HKH, HYYᵀH⟩ = ⟨K, (HY)(HY)ᵀ⟩ = Σ HY ∘ (K HY); ‖YYᵀ‖_F = ‖YᵀY‖_F and ‖HYYᵀH‖_F = ‖(HY)ᵀHY‖_F are O × O;
 * ‖K‖_F and ‖HKH‖_F come from the kernel's moments ({@link TracedKernel#centredSquaredNorm}). Where HKH is zero to
 * rounding (a constant kernel) the centred alignment is not defined: NaN.
 */
public final class Alignment {
    private Alignment() {}

    /**
     * The two alignments of one kernel with one set of targets.
     *
     * @param plain A(K, Y)
     * @param centred A(HKH, HYYᵀH)
     */
    public record Values(double plain, double centred) {}

    /** A(K, Y) and A(HKH, HYYᵀH) of the traced kernel {@code k} with targets Y (n rows of O values, row-major). */
    public static Values of(TracedKernel k, float[] y, int outputs) {
        int n = k.size();
        if (y.length != (long) n * outputs) {
            throw new UserException(
                    "targets have " + y.length + " values; expected " + n + " samples × " + outputs + " outputs");
        }
        double[] r = product(y, outputs, n);
        int w = 2 * outputs;
        double[] z = k.timesHost(r, w);
        double kg = 0;
        double kgCentred = 0;
        for (int i = 0; i < n * w; i += w) {
            for (int o = 0; o < outputs; o++) {
                kg += r[i + o] * z[i + o];
                kgCentred += r[i + outputs + o] * z[i + outputs + o];
            }
        }
        double gg = 0;
        double ggCentred = 0;
        for (int a = 0; a < outputs; a++) {
            for (int b = 0; b < outputs; b++) {
                double g = 0;
                double gc = 0;
                for (int i = 0; i < n * w; i += w) {
                    g += r[i + a] * r[i + b];
                    gc += r[i + outputs + a] * r[i + outputs + b];
                }
                gg += g * g;
                ggCentred += gc * gc;
            }
        }
        double kk = k.moments().squaredNorm();
        double kc = k.centredSquaredNorm();
        // HKH vanishes to float64 rounding (‖HKH‖_F ≤ n·2⁻⁵²·‖K‖_F): a constant kernel, as a network whose units all
        // died has; its centred alignment is 0/0, and the rounding left in ⟨HKH, HYYᵀH⟩ would read as ±∞
        double bound = n * 0x1p-52;
        double centred = kc <= bound * bound * kk ? Double.NaN : kgCentred / Math.sqrt(kc * ggCentred);
        return new Values(kg / Math.sqrt(kk * gg), centred);
    }

    /** The n × 2O matrix [Y, HY] (row-major) whose product with the kernel gives both alignments. */
    static double[] product(float[] y, int outputs, int n) {
        double[] mean = new double[outputs];
        for (int i = 0; i < n; i++) {
            for (int o = 0; o < outputs; o++) {
                mean[o] += (double) y[i * outputs + o] / n;
            }
        }
        int w = 2 * outputs;
        double[] r = new double[n * w]; // row i: y_i, then (HY)_i = y_i − ȳ
        for (int i = 0; i < n; i++) {
            for (int o = 0; o < outputs; o++) {
                r[i * w + o] = y[i * outputs + o];
                r[i * w + outputs + o] = y[i * outputs + o] - mean[o];
            }
        }
        return r;
    }

    /** Uncentred alignment of the n×n kernel K with targets Y (n rows of O values, row-major). */
    public static double alignment(double[][] k, float[] y, int outputs) {
        return TracedKernel.onHost(k, t -> of(t, y, outputs).plain());
    }

    /** Centred alignment: both K and YYᵀ are centred by H = I − 11ᵀ/n first. */
    public static double centeredAlignment(double[][] k, float[] y, int outputs) {
        return TracedKernel.onHost(k, t -> of(t, y, outputs).centred());
    }

    /** HKH with H = I − 11ᵀ/n: subtract row and column means, add back the grand mean. */
    public static double[][] center(double[][] k) {
        int n = k.length;
        double[] row = new double[n];
        double[] col = new double[n];
        double all = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                row[i] += k[i][j] / n;
                col[j] += k[i][j] / n;
                all += k[i][j] / ((double) n * n);
            }
        }
        double[][] c = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                c[i][j] = k[i][j] - row[i] - col[j] + all;
            }
        }
        return c;
    }
}
