package org.ntk4j.approx;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.ejml.data.DMatrixRMaj;
import org.ntk4j.theory.KernelRegression;

/**
 * An approximate kernel measured against the exact one on a held-out subset S of h train images (the exact engine
 * computes K_SS, h×h; the approximation gives K̂_SS):
 * <pre>
 *   relative Frobenius error   ‖K̂_SS − K_SS‖_F / ‖K_SS‖_F
 *   alignment                  ⟨K̂_SS, K_SS⟩_F / (‖K̂_SS‖_F ‖K_SS‖_F)
 * </pre>
 * (kernel alignment: Cristianini, Shawe-Taylor, Elisseeff &amp; Kandola, "On kernel-target alignment", NIPS 2001,
 * Def. 1), the leading eigenvalues of both, and with labels the test accuracy of kernel regression (t = ∞, ridge 0,
 * pseudo-inverse) from the first half of S to the second with each kernel: what the approximation costs a
 * downstream use, on the same images.
 *
 * @param rows h, the images of the subset
 * @param relativeFrobenius ‖K̂ − K‖_F / ‖K‖_F
 * @param alignment the kernel alignment of K̂ and K
 * @param exactEigenvalues the leading eigenvalues of K_SS, largest first
 * @param approxEigenvalues the leading eigenvalues of K̂_SS, largest first
 * @param exactAccuracy regression test accuracy with K (null without labels)
 * @param approxAccuracy regression test accuracy with K̂ (null without labels)
 */
public record ApproxError(
        int rows,
        double relativeFrobenius,
        double alignment,
        double[] exactEigenvalues,
        double[] approxEigenvalues,
        Double exactAccuracy,
        Double approxAccuracy) {
    /** Default size of the held-out subset. */
    public static final int DEFAULT_ROWS = 500;
    /** Leading eigenvalues reported. */
    public static final int EIGENVALUES = 8;

    /**
     * The error of {@code approx} against {@code exact} (both h×h row-major, float64).
     *
     * @param labels class labels of the h images (regression accuracy), or null
     */
    public static ApproxError of(double[] exact, double[] approx, int h, int[] labels) {
        if (exact.length != (long) h * h || approx.length != exact.length) {
            throw new IllegalArgumentException("kernels of " + exact.length + " and " + approx.length
                    + " entries for a " + h + "×" + h + " subset");
        }
        double dd = 0;
        double ee = 0;
        double aa = 0;
        double ea = 0;
        for (int i = 0; i < exact.length; i++) {
            double d = approx[i] - exact[i];
            dd += d * d;
            ee += exact[i] * exact[i];
            aa += approx[i] * approx[i];
            ea += exact[i] * approx[i];
        }
        double rel = ee == 0 ? Math.sqrt(dd) : Math.sqrt(dd / ee);
        double align = ee == 0 || aa == 0 ? 0 : ea / Math.sqrt(ee * aa);
        Double accExact = null;
        Double accApprox = null;
        if (labels != null && h >= 4) {
            accExact = accuracy(exact, h, labels);
            accApprox = accuracy(approx, h, labels);
        }
        return new ApproxError(h, rel, align, leading(exact, h), leading(approx, h), accExact, accApprox);
    }

    /** h distinct train indices, uniformly from {@code seed}, increasing (all N when h ≥ N). */
    public static int[] holdout(int n, int h, long seed) {
        return Nystrom.uniform(n, Math.min(n, h), seed);
    }

    private static double[] leading(double[] k, int h) {
        double[] ev = new KernelRegression(new DMatrixRMaj(h, h, true, k.clone())).eigenvalues();
        Arrays.sort(ev);
        int take = Math.min(EIGENVALUES, h);
        double[] out = new double[take];
        for (int i = 0; i < take; i++) {
            out[i] = ev[h - 1 - i];
        }
        return out;
    }

    /** Regression from rows [0, h/2) to rows [h/2, h) with one-hot targets; the arg-max accuracy. */
    private static double accuracy(double[] k, int h, int[] labels) {
        int a = h / 2;
        int b = h - a;
        int classes = Arrays.stream(labels).max().orElse(0) + 1;
        DMatrixRMaj train = new DMatrixRMaj(a, a);
        DMatrixRMaj cross = new DMatrixRMaj(b, a);
        for (int i = 0; i < a; i++) {
            for (int j = 0; j < a; j++) {
                train.set(i, j, 0.5 * (k[i * h + j] + k[j * h + i]));
            }
        }
        for (int i = 0; i < b; i++) {
            for (int j = 0; j < a; j++) {
                cross.set(i, j, k[(a + i) * h + j]);
            }
        }
        DMatrixRMaj y = new DMatrixRMaj(a, classes);
        for (int i = 0; i < a; i++) {
            y.set(i, labels[i], 1);
        }
        DMatrixRMaj f = new KernelRegression(train).testPrediction(cross, y, null, null, 1, Double.POSITIVE_INFINITY);
        int ok = 0;
        for (int i = 0; i < b; i++) {
            int best = 0;
            for (int c = 1; c < classes; c++) {
                if (f.get(i, c) > f.get(i, best)) {
                    best = c;
                }
            }
            ok += best == labels[a + i] ? 1 : 0;
        }
        return ok / (double) b;
    }

    /** The error as the sidecar's keys (snake case; accuracies only with labels). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("holdout_rows", rows);
        m.put("relative_frobenius_error", relativeFrobenius);
        m.put("alignment", alignment);
        m.put("exact_eigenvalues", exactEigenvalues);
        m.put("approx_eigenvalues", approxEigenvalues);
        if (exactAccuracy != null) {
            m.put("exact_regression_accuracy", exactAccuracy);
            m.put("approx_regression_accuracy", approxAccuracy);
        }
        return m;
    }

    /** The lines {@code --explain} prints. */
    public List<String> explain() {
        List<String> l = new ArrayList<>();
        l.add(String.format(
                Locale.ROOT,
                "error on %d held-out images: relative Frobenius %.4g, alignment %.6f",
                rows,
                relativeFrobenius,
                alignment));
        l.add(String.format(
                Locale.ROOT,
                "leading eigenvalues exact %s, approximate %s",
                fmt(exactEigenvalues),
                fmt(approxEigenvalues)));
        if (exactAccuracy != null) {
            l.add(String.format(
                    Locale.ROOT,
                    "regression on the subset (first half -> second half): accuracy exact %.4f, approximate %.4f",
                    exactAccuracy,
                    approxAccuracy));
        }
        return l;
    }

    private static String fmt(double[] v) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < Math.min(4, v.length); i++) {
            b.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.4g", v[i]));
        }
        return b.append(v.length > 4 ? ", …]" : "]").toString();
    }
}
