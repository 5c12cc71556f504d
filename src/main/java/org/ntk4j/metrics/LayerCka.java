package org.ntk4j.metrics;

import java.util.Map;
import org.ntk4j.UserException;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.factor.Mode;

/**
 * Layer tangent-kernel / label centred kernel alignment, Eq. 5 of Lou, Mingard and Hayou, "The
 * Equilibrium Hypothesis: Rethinking implicit regularization in Deep Neural Networks" (§2, Eqs. 3–5):
 * <pre>
 *   A_l = yᵀ Θ_l y / (‖C Θ_l C‖_F · ‖y‖²),   y = C Y,   C = I − 11ᵀ/(N·O)
 * </pre>
 * where Θ_l = Ψ_lᵀΨ_l is the <b>full</b> (N·O)×(N·O) tangent kernel of layer l's parameters on N
 * <b>training</b> points with O outputs, indexed sample-major, (i, a) → i·O + a, Y ∈ R^{N·O} the
 * concatenated one-hot label vectors, and C a single <b>global</b> centring over all N·O entries (not
 * per class, not per output). This is Eq. 3's CKA A(Θ_l, YYᵀ) written with CYYᵀC = yyᵀ (C² = C,
 * Cy = y, ‖yyᵀ‖_F = ‖y‖²). A_l ∈ [0, 1] for a PSD Θ_l, is invariant to a positive rescaling of Θ_l,
 * and equals 1 when Θ_l ∝ YYᵀ.
 *
 * <p>Because every sample's block of Y sums to 1, y_{(i,a)} = Y_{ia} − 1/O exactly; any Θ_l that is
 * constant over the output pair (a, b) — the part a traced kernel keeps — is annihilated by yᵀ·y, so
 * A_l differs in general from the traced, test-set, n×n centred alignment
 * {@link Alignment#centeredAlignment} (Cortes et al. 2012 on the traced kernel; the "traced-centred"
 * variant), and the two can peak at different layers.
 *
 * <p>Cost: the centring is done in place of the explicit matrix product, by row and column means and
 * the grand mean (C K C = K − r1ᵀ − 1cᵀ + m11ᵀ), O((N·O)²) time and memory.
 */
public final class LayerCka {
    private LayerCka() {}

    /** Eq. 5 for every per-layer part of a FULL kernel result, in the result's (forward) layer order. */
    public static double[] perLayer(KernelResult fullKernel, int[] labels, int classes) {
        Map<String, KernelMatrix> layers = fullKernel.layers();
        if (layers.isEmpty()) {
            throw new UserException(
                    "layer CKA needs the per-layer kernels: compute with Ntk.of(net).mode(Mode.FULL).perLayer()");
        }
        double[] out = new double[layers.size()];
        int l = 0;
        for (KernelMatrix k : layers.values()) {
            out[l++] = of(k, labels, classes);
        }
        return out;
    }

    /** Layer names in the order of {@link #perLayer}. */
    public static String[] layerNames(KernelResult fullKernel) {
        return fullKernel.layers().keySet().toArray(new String[0]);
    }

    /** Eq. 5 (or, for the whole-network kernel, Eq. 4) of one N×N×O×O FULL kernel against one-hot labels. */
    public static double of(KernelMatrix k, int[] labels, int classes) {
        if (k.mode() != Mode.FULL) {
            throw new UserException("layer CKA (Eq. 5) is defined on the full (N·O)×(N·O) kernel; got a " + k.mode()
                    + " kernel (compute with mode FULL)");
        }
        if (k.rows() != k.cols() || k.rows() != labels.length) {
            throw new UserException("layer CKA needs the square kernel of the labelled training points: kernel "
                    + k.rows() + "×" + k.cols() + ", " + labels.length + " labels");
        }
        if (k.outputs() != classes) {
            throw new UserException("layer CKA compares with one-hot targets: kernel has " + k.outputs() + " outputs, "
                    + classes + " classes");
        }
        int n = k.rows();
        int o = classes;
        int m = n * o;
        double[][] kk = new double[m][m];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                for (int a = 0; a < o; a++) {
                    for (int b = 0; b < o; b++) {
                        kk[i * o + a][j * o + b] = k.get(i, j, a * o + b);
                    }
                }
            }
        }
        return of(kk, oneHot(labels, classes));
    }

    /**
     * Eq. 3 with K' = YYᵀ, i.e. Eq. 5, for an explicit m×m kernel matrix K and a target vector Y of
     * length m (any real Y; one-hot concatenated labels in the paper). Global centring C = I − 11ᵀ/m. NaN where CKC
     * is zero to rounding (a constant kernel).
     */
    public static double of(double[][] k, double[] targets) {
        int m = k.length;
        if (targets.length != m) {
            throw new IllegalArgumentException(
                    "kernel is " + m + "×" + m + ", targets have " + targets.length + " entries");
        }
        double ym = 0;
        for (double v : targets) {
            ym += v / m;
        }
        double[] y = new double[m];
        double yy = 0;
        for (int i = 0; i < m; i++) {
            y[i] = targets[i] - ym;
            yy += y[i] * y[i];
        }
        double[] row = new double[m];
        double[] col = new double[m];
        double all = 0;
        for (int i = 0; i < m; i++) {
            double[] ki = k[i];
            for (int j = 0; j < m; j++) {
                row[i] += ki[j];
                col[j] += ki[j];
            }
            all += row[i];
        }
        for (int i = 0; i < m; i++) {
            row[i] /= m;
            col[i] /= m;
        }
        all /= (double) m * m;
        double num = 0;
        double frob = 0;
        double squares = 0;
        for (int i = 0; i < m; i++) {
            double[] ki = k[i];
            double s = 0;
            for (int j = 0; j < m; j++) {
                double c = ki[j] - row[i] - col[j] + all;
                frob += c * c;
                squares += ki[j] * ki[j];
                s += ki[j] * y[j];
            }
            num += y[i] * s;
        }
        // CKC zero to float64 rounding (‖CKC‖_F ≤ m·2⁻⁵²·‖K‖_F: a constant kernel, as a network whose units all died
        // has): the alignment is 0/0, not the ratio of two rounding residues
        double bound = m * 0x1p-52;
        return frob <= bound * bound * squares ? Double.NaN : num / (Math.sqrt(frob) * yy);
    }

    /** Y ∈ R^{N·O}: the one-hot label vectors concatenated sample-major. */
    public static double[] oneHot(int[] labels, int classes) {
        double[] y = new double[labels.length * classes];
        for (int i = 0; i < labels.length; i++) {
            if (labels[i] < 0 || labels[i] >= classes) {
                throw new UserException("label " + labels[i] + " of point " + i + " is outside 0.." + (classes - 1));
            }
            y[i * classes + labels[i]] = 1;
        }
        return y;
    }
}
