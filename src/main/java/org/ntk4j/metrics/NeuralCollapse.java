package org.ntk4j.metrics;

import java.util.Arrays;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ntk4j.UserException;

/**
 * Neural-collapse statistics of penultimate features (Seleznova et al., Neural (Tangent Kernel) Collapse, §2.1 and
 * Fig. 2, in the forms the authors' code (github.com/mselezniova/ntk_collapse) measures; Papyan, Han &amp; Donoho, PNAS
 * 2020). All are 0 at perfect collapse and grow away from it.
 *
 * <p>Shapes: features H: [N, n] (row i is h(x_i)); labels: [N], C ≥ 2 classes in any order; classifier
 * W: [C, n] and bias b: [C], logits W h + b. Notation:
 * <pre>
 *   ⟨h⟩_c = |𝒳_c|⁻¹ Σ_{x∈𝒳_c} h(x)           class mean
 *   ⟨h⟩   = C⁻¹ Σ_c ⟨h⟩_c                     global mean, the mean of the class means
 *   M     = [⟨h⟩_1 − ⟨h⟩, …, ⟨h⟩_C − ⟨h⟩]    n × C, centred, columns not normalised (as in the authors' code)
 * </pre>
 * <b>Unbalanced classes</b> are handled through per-class means: every class weighs the same, whatever its size.
 * The global mean is the mean of the class means (not of the samples), and NC1 and Σ_W average within each
 * class before averaging over classes. For balanced classes this is the papers' sample averaging; for unbalanced
 * ones it keeps a simplex ETF of class means at NC2 = 0 (centring by the sample mean would tilt it toward the
 * largest class).
 *
 * @param nc1 NC1 as measured by the authors (Fig. 2 "std of h(x^c_i) averaged over classes"; as in the authors' code):
 *     C⁻¹ n⁻¹ Σ_c Σ_p sd_c,p with sd_c,p = (|𝒳_c|⁻¹ Σ_{x∈𝒳_c} (h_p(x) − ⟨h⟩_c,p)²)^½, the population standard
 *     deviation of feature p within class c. A class with one sample contributes 0.
 * @param nc1Papyan NC1 of Papyan et al. 2020: tr(Σ_W Σ_B⁺)/C, with Σ_W = C⁻¹ Σ_c |𝒳_c|⁻¹ Σ_{x∈𝒳_c}
 *     (h − ⟨h⟩_c)(h − ⟨h⟩_c)ᵀ, Σ_B = C⁻¹ M Mᵀ and ⁺ the Moore–Penrose pseudo-inverse (EJML SVD; singular values
 *     below ε·n·σ_max count as zero, as in numpy and torch). Scale-free, unlike {@code nc1}.
 * @param nc2 NC2, distance to a simplex equiangular tight frame, as the authors' code measures it
 *     (Seleznova et al., Neural (Tangent Kernel) Collapse, Fig. 2): ‖MᵀM/‖MᵀM‖_F − (I_C − 11ᵀ/C)/√(C−1)‖_F
 *     (the target has unit Frobenius norm). NaN if all class means coincide.
 * @param equinorm the equal-norm part of NC2 (corrected form of Seleznova et al., Neural (Tangent Kernel) Collapse
 *     §2.1, which prints ‖⟨h⟩_c − ⟨h⟩_c'‖ → 0 where equal norms are meant; Papyan et al. 2020
 *     Fig. 2): std_c ‖⟨h⟩_c − ⟨h⟩‖ / mean_c ‖⟨h⟩_c − ⟨h⟩‖, population standard deviation over the C classes.
 * @param nc3 NC3, self-duality (Seleznova et al., Neural (Tangent Kernel) Collapse §2.1, as the authors' code measures
 *     it): ‖M/‖M‖_F − Wᵀ/‖W‖_F‖_F. NaN without W.
 * @param nc4 NC4, nearest class centre (Seleznova et al., Neural (Tangent Kernel) Collapse §2.1; measured as a
 *     disagreement rate as in Papyan et al. 2020): the fraction of the N samples with argmax_c (W h + b)_c ≠ argmin_c
 *     ‖h − ⟨h⟩_c‖₂ (ties go to the lower class index). NaN without W.
 */
public record NeuralCollapse(double nc1, double nc1Papyan, double nc2, double equinorm, double nc3, double nc4) {

    /** NC1 (both forms), NC2 and equinorm of features {@code h} ([N, n]) with {@code labels} ([N]); nc3 and nc4 NaN. */
    public static NeuralCollapse of(double[][] h, int[] labels) {
        return of(h, labels, null, null);
    }

    /**
     * All statistics of features {@code h} ([N, n]) with {@code labels} ([N]) and classifier {@code w} ([C, n],
     * row c for label c, so labels must be 0..C−1) with bias {@code b} ([C], null for none). A null {@code w}
     * leaves nc3 and nc4 NaN.
     */
    public static NeuralCollapse of(double[][] h, int[] labels, double[][] w, double[] b) {
        int n = featureCount(h);
        ClassPartition classes = ClassPartition.of(labels, h.length);
        if (w != null) {
            checkClassifier(w, b, classes, n);
        } else if (b != null) {
            throw new UserException("b: " + b.length + " biases without a classifier W; expected W with its bias");
        }
        double[][] means = classMeans(h, classes);
        double[][] m = centred(means);
        return new NeuralCollapse(
                nc1(h, classes, means),
                nc1Papyan(h, classes, means, m),
                nc2(m),
                equinorm(m),
                w == null ? Double.NaN : nc3(m, w),
                w == null ? Double.NaN : nc4(h, means, w, b));
    }

    private static double nc1(double[][] h, ClassPartition classes, double[][] means) {
        int n = means[0].length;
        double sum = 0;
        for (int c = 0; c < classes.classes(); c++) {
            for (int p = 0; p < n; p++) {
                double ss = 0;
                for (int i : classes.members(c)) {
                    double d = h[i][p] - means[c][p];
                    ss += d * d;
                }
                sum += Math.sqrt(ss / classes.size(c));
            }
        }
        return sum / ((double) classes.classes() * n);
    }

    private static double nc1Papyan(double[][] h, ClassPartition classes, double[][] means, double[][] m) {
        int count = classes.classes();
        int n = means[0].length;
        DMatrixRMaj dev = new DMatrixRMaj(h.length, n);
        for (int i = 0; i < h.length; i++) {
            int c = classes.classOf(i);
            double w = Math.sqrt(1.0 / ((double) count * classes.size(c)));
            for (int p = 0; p < n; p++) {
                dev.set(i, p, (h[i][p] - means[c][p]) * w);
            }
        }
        DMatrixRMaj sigmaW = CommonOps_DDRM.multTransA(dev, dev, null);
        DMatrixRMaj mt = new DMatrixRMaj(m);
        CommonOps_DDRM.scale(1.0 / Math.sqrt(count), mt);
        DMatrixRMaj sigmaB = CommonOps_DDRM.multTransA(mt, mt, null);
        DMatrixRMaj pinv = new DMatrixRMaj(n, n);
        CommonOps_DDRM.pinv(sigmaB, pinv);
        return CommonOps_DDRM.trace(CommonOps_DDRM.mult(sigmaW, pinv, null)) / count;
    }

    private static double nc2(double[][] m) {
        int count = m.length;
        double[][] g = new double[count][count];
        double norm2 = 0;
        for (int a = 0; a < count; a++) {
            for (int c = 0; c < count; c++) {
                g[a][c] = dot(m[a], m[c]);
                norm2 += g[a][c] * g[a][c];
            }
        }
        double norm = Math.sqrt(norm2);
        double scale = Math.sqrt(count - 1.0);
        double sum = 0;
        for (int a = 0; a < count; a++) {
            for (int c = 0; c < count; c++) {
                double etf = ((a == c ? 1.0 : 0.0) - 1.0 / count) / scale;
                double d = g[a][c] / norm - etf;
                sum += d * d;
            }
        }
        return Math.sqrt(sum);
    }

    private static double equinorm(double[][] m) {
        double[] norms = Arrays.stream(m).mapToDouble(r -> Math.sqrt(dot(r, r))).toArray();
        double mean = Arrays.stream(norms).average().orElseThrow();
        double var =
                Arrays.stream(norms).map(r -> (r - mean) * (r - mean)).average().orElseThrow();
        return Math.sqrt(var) / mean;
    }

    private static double nc3(double[][] m, double[][] w) {
        double mNorm = frobenius(m);
        double wNorm = frobenius(w);
        double sum = 0;
        for (int c = 0; c < m.length; c++) {
            for (int p = 0; p < m[c].length; p++) {
                double d = m[c][p] / mNorm - w[c][p] / wNorm;
                sum += d * d;
            }
        }
        return Math.sqrt(sum);
    }

    private static double nc4(double[][] h, double[][] means, double[][] w, double[] b) {
        int disagree = 0;
        for (double[] x : h) {
            int predicted = 0;
            int nearest = 0;
            double best = Double.NEGATIVE_INFINITY;
            double closest = Double.POSITIVE_INFINITY;
            for (int c = 0; c < w.length; c++) {
                double logit = dot(w[c], x) + (b == null ? 0 : b[c]);
                if (logit > best) {
                    best = logit;
                    predicted = c;
                }
                double dist = 0;
                for (int p = 0; p < x.length; p++) {
                    double d = x[p] - means[c][p];
                    dist += d * d;
                }
                if (dist < closest) {
                    closest = dist;
                    nearest = c;
                }
            }
            if (predicted != nearest) {
                disagree++;
            }
        }
        return disagree / (double) h.length;
    }

    private static double[][] classMeans(double[][] h, ClassPartition classes) {
        int n = h[0].length;
        double[][] means = new double[classes.classes()][n];
        for (int c = 0; c < classes.classes(); c++) {
            for (int i : classes.members(c)) {
                for (int p = 0; p < n; p++) {
                    means[c][p] += h[i][p];
                }
            }
            for (int p = 0; p < n; p++) {
                means[c][p] /= classes.size(c);
            }
        }
        return means;
    }

    /** Rows ⟨h⟩_c − ⟨h⟩ (the columns of M), with ⟨h⟩ the mean of the class means. */
    private static double[][] centred(double[][] means) {
        int n = means[0].length;
        double[] global = new double[n];
        for (double[] mean : means) {
            for (int p = 0; p < n; p++) {
                global[p] += mean[p] / means.length;
            }
        }
        double[][] m = new double[means.length][n];
        for (int c = 0; c < means.length; c++) {
            for (int p = 0; p < n; p++) {
                m[c][p] = means[c][p] - global[p];
            }
        }
        return m;
    }

    private static int featureCount(double[][] h) {
        if (h == null || h.length == 0) {
            throw new UserException("H: no samples; expected N >= 1 rows of n features");
        }
        int n = h[0] == null ? 0 : h[0].length;
        if (n == 0) {
            throw new UserException("H: row 0 has no features; expected N rows of n >= 1 features");
        }
        for (int i = 1; i < h.length; i++) {
            if (h[i] == null || h[i].length != n) {
                throw new UserException("H: row " + i + " has " + (h[i] == null ? 0 : h[i].length)
                        + " features, row 0 has " + n + "; expected N rows of n features");
            }
        }
        return n;
    }

    private static void checkClassifier(double[][] w, double[] b, ClassPartition classes, int n) {
        int count = classes.classes();
        int[] labels = new int[count];
        boolean dense = true;
        for (int c = 0; c < count; c++) {
            labels[c] = classes.label(c);
            dense &= labels[c] == c;
        }
        if (!dense) {
            throw new UserException("labels: classes " + Arrays.toString(labels) + "; with a classifier W they must be"
                    + " 0..C-1, label c naming row c of W");
        }
        if (w.length != count) {
            throw new UserException("W: " + w.length + " rows for " + count + " classes in the labels; expected"
                    + " C x n, row c for label c");
        }
        for (int c = 0; c < count; c++) {
            if (w[c] == null || w[c].length != n) {
                throw new UserException("W: row " + c + " has " + (w[c] == null ? 0 : w[c].length) + " columns for " + n
                        + " features; expected C x n");
            }
        }
        if (b != null && b.length != count) {
            throw new UserException(
                    "b: " + b.length + " entries for " + count + " classes; expected one bias per row" + " of W");
        }
    }

    private static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    private static double frobenius(double[][] a) {
        double s = 0;
        for (double[] row : a) {
            s += dot(row, row);
        }
        return Math.sqrt(s);
    }
}
