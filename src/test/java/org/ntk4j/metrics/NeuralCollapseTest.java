package org.ntk4j.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;
import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;

/** NC1–NC4 at a constructed simplex ETF, away from it, on a hand-computed example, and on bad input. */
class NeuralCollapseTest {
    private static final int C = 4;
    private static final int N_FEATURES = 6;
    /** Unbalanced on purpose, and one class of a single sample: centring by the sample mean would break NC2 = 0. */
    private static final int[] LABELS = {2, 0, 3, 2, 1, 0, 2, 3, 0, 2};

    /** Collapsed features: h = ⟨h⟩ + s Q(e_c − 1/C), Q a Householder reflection, so class means form a simplex ETF. */
    private static double[][] etfRows() {
        double[] v = {0.3, -1.1, 0.7, 0.2, -0.5, 0.9};
        double vv = 0;
        for (double x : v) {
            vv += x * x;
        }
        double[][] rows = new double[C][N_FEATURES];
        for (int c = 0; c < C; c++) {
            double[] u = new double[N_FEATURES];
            for (int p = 0; p < C; p++) {
                u[p] = 2.5 * ((p == c ? 1.0 : 0.0) - 1.0 / C);
            }
            double uv = 0;
            for (int p = 0; p < N_FEATURES; p++) {
                uv += u[p] * v[p];
            }
            for (int p = 0; p < N_FEATURES; p++) {
                rows[c][p] = u[p] - 2 * uv / vv * v[p];
            }
        }
        return rows;
    }

    private static final double[] GLOBAL = {1.0, -2.0, 0.5, 3.0, 0.0, -0.7};

    private static double[][] collapsedFeatures(double[][] etf) {
        double[][] h = new double[LABELS.length][N_FEATURES];
        for (int i = 0; i < LABELS.length; i++) {
            for (int p = 0; p < N_FEATURES; p++) {
                h[i][p] = GLOBAL[p] + etf[LABELS[i]][p];
            }
        }
        return h;
    }

    /** b = −W⟨h⟩, so the logits are ⟨M_c, h − ⟨h⟩⟩. */
    private static double[] bias(double[][] w) {
        double[] b = new double[C];
        for (int c = 0; c < C; c++) {
            for (int p = 0; p < N_FEATURES; p++) {
                b[c] -= w[c][p] * GLOBAL[p];
            }
        }
        return b;
    }

    @Test
    void simplexEtfWithSelfDualClassifierIsFullyCollapsed() {
        double[][] w = etfRows();
        NeuralCollapse nc = NeuralCollapse.of(collapsedFeatures(etfRows()), LABELS, w, bias(w));
        assertEquals(0, nc.nc1(), 1e-12);
        assertEquals(0, nc.nc1Papyan(), 1e-12);
        assertEquals(0, nc.nc2(), 1e-12);
        assertEquals(0, nc.equinorm(), 1e-12);
        assertEquals(0, nc.nc3(), 1e-12);
        assertEquals(0, nc.nc4());
    }

    @Test
    void withinClassNoiseRaisesOnlyNc1() {
        double[][] h = collapsedFeatures(etfRows());
        SplittableRandom r = new SplittableRandom(3);
        double[][] noise = new double[h.length][N_FEATURES];
        for (double[] row : noise) {
            for (int p = 0; p < N_FEATURES; p++) {
                row[p] = 0.2 * r.nextGaussian();
            }
        }
        for (int c = 0; c < C; c++) { // zero-mean within each class: the class means stay an ETF
            for (int p = 0; p < N_FEATURES; p++) {
                double mean = 0;
                int count = 0;
                for (int i = 0; i < h.length; i++) {
                    if (LABELS[i] == c) {
                        mean += noise[i][p];
                        count++;
                    }
                }
                for (int i = 0; i < h.length; i++) {
                    if (LABELS[i] == c) {
                        h[i][p] += noise[i][p] - mean / count;
                    }
                }
            }
        }
        double[][] w = etfRows();
        NeuralCollapse nc = NeuralCollapse.of(h, LABELS, w, bias(w));
        assertTrue(nc.nc1() > 0.05, "nc1 " + nc.nc1());
        assertTrue(nc.nc1Papyan() > 1e-3, "nc1Papyan " + nc.nc1Papyan());
        assertEquals(0, nc.nc2(), 1e-12);
        assertEquals(0, nc.equinorm(), 1e-12);
        assertEquals(0, nc.nc3(), 1e-12);
    }

    @Test
    void unequalClassMeanRaisesNc2AndEquinorm() {
        double[][] etf = etfRows();
        for (int p = 0; p < N_FEATURES; p++) {
            etf[1][p] *= 1.5;
        }
        double[][] w = etfRows();
        NeuralCollapse nc = NeuralCollapse.of(collapsedFeatures(etf), LABELS, w, bias(w));
        assertEquals(0, nc.nc1(), 1e-12);
        assertTrue(nc.nc2() > 0.05, "nc2 " + nc.nc2());
        assertTrue(nc.equinorm() > 0.05, "equinorm " + nc.equinorm());
        assertTrue(nc.nc3() > 0.05, "nc3 " + nc.nc3());
    }

    @Test
    void rotatedClassifierRaisesNc3AndBiasedClassifierRaisesNc4() {
        double[][] h = collapsedFeatures(etfRows());
        double[][] w = etfRows();
        double[] b = bias(w);
        w[0][5] += 0.8;
        w[3][0] -= 0.8;
        NeuralCollapse rotated = NeuralCollapse.of(h, LABELS, w, b);
        assertTrue(rotated.nc3() > 0.1, "nc3 " + rotated.nc3());
        assertEquals(0, rotated.nc2(), 1e-12);

        double[][] w0 = etfRows();
        double[] favour0 = bias(w0);
        favour0[0] += 1e3; // every sample is classified as class 0; nearest centre is still its own class
        NeuralCollapse biased = NeuralCollapse.of(h, LABELS, w0, favour0);
        assertEquals(7.0 / 10.0, biased.nc4(), 0);
        assertEquals(0, biased.nc3(), 1e-12);
    }

    /**
     * N = 4, n = 2, C = 3 (class sizes 2, 1, 1), labels out of order. Class means (0,0), (0,3), (3,0); global mean
     * (1,1); M columns (−1,−1), (−1,2), (2,−1). Worked by hand:
     * NC1 = (1 + 0)/6; Σ_W = diag(1/3, 0), Σ_B = [[2,−1],[−1,2]], NC1_Papyan = tr(Σ_W Σ_B⁻¹)/3 = (2/9)/3;
     * MᵀM = [[2,−1,−1],[−1,5,−4],[−1,−4,5]], ‖MᵀM‖_F = √90, ⟨MᵀM, ETF⟩ = 12/√2, NC2² = 2 − 4/√5;
     * norms √2, √5, √5; ⟨M, Wᵀ⟩ = −1, ‖M‖_F = 2√3, ‖W‖_F = 2, NC3² = 2 + 1/(2√3);
     * logits with b = (0, 0, ½) pick 2, 0, 2, 2; nearest centres 1, 0, 2, 0: NC4 = 2/4.
     */
    @Test
    void handComputedThreeClassExample() {
        double[][] h = {{0, 3}, {-1, 0}, {3, 0}, {1, 0}};
        int[] labels = {1, 0, 2, 0};
        double[][] w = {{0, 1}, {1, 0}, {1, 1}};
        double[] b = {0, 0, 0.5};
        NeuralCollapse nc = NeuralCollapse.of(h, labels, w, b);
        assertEquals(1.0 / 6, nc.nc1(), 1e-15);
        assertEquals(2.0 / 27, nc.nc1Papyan(), 1e-14);
        assertEquals(Math.sqrt(2 - 4 / Math.sqrt(5)), nc.nc2(), 1e-14);
        double mean = (Math.sqrt(2) + 2 * Math.sqrt(5)) / 3;
        assertEquals(Math.sqrt(4 - mean * mean) / mean, nc.equinorm(), 1e-14);
        assertEquals(Math.sqrt(2 + 1 / (2 * Math.sqrt(3))), nc.nc3(), 1e-14);
        assertEquals(0.5, nc.nc4(), 0);

        NeuralCollapse noClassifier = NeuralCollapse.of(h, labels);
        assertEquals(nc.nc2(), noClassifier.nc2(), 0);
        assertTrue(Double.isNaN(noClassifier.nc3()) && Double.isNaN(noClassifier.nc4()));
    }

    /** Σ_B of rank C − 1 < n: the pseudo-inverse, here from a symmetric eigendecomposition and plain loops. */
    @Test
    void papyanNc1MatchesEigenPseudoInverseOnRandomFeatures() {
        int n = 7;
        int[] labels = {0, 2, 1, 2, 0, 2, 0, 1, 2, 0, 2};
        SplittableRandom r = new SplittableRandom(11);
        double[][] h = new double[labels.length][n];
        for (int i = 0; i < h.length; i++) {
            for (int p = 0; p < n; p++) {
                h[i][p] = r.nextGaussian() + (p == labels[i] ? 2.0 : 0.0);
            }
        }
        int classes = 3;
        double[][] mu = new double[classes][n];
        int[] size = new int[classes];
        for (int i = 0; i < h.length; i++) {
            size[labels[i]]++;
            for (int p = 0; p < n; p++) {
                mu[labels[i]][p] += h[i][p];
            }
        }
        double[] g = new double[n];
        for (int c = 0; c < classes; c++) {
            for (int p = 0; p < n; p++) {
                mu[c][p] /= size[c];
                g[p] += mu[c][p] / classes;
            }
        }
        DMatrixRMaj sw = new DMatrixRMaj(n, n);
        DMatrixRMaj sb = new DMatrixRMaj(n, n);
        for (int p = 0; p < n; p++) {
            for (int q = 0; q < n; q++) {
                double within = 0;
                for (int i = 0; i < h.length; i++) {
                    int c = labels[i];
                    within += (h[i][p] - mu[c][p]) * (h[i][q] - mu[c][q]) / size[c] / classes;
                }
                double between = 0;
                for (int c = 0; c < classes; c++) {
                    between += (mu[c][p] - g[p]) * (mu[c][q] - g[q]) / classes;
                }
                sw.set(p, q, within);
                sb.set(p, q, between);
            }
        }
        EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(n, true, true);
        assertTrue(eig.decompose(sb.copy()));
        double largest = 0;
        for (int k = 0; k < n; k++) {
            largest = Math.max(largest, eig.getEigenvalue(k).getReal());
        }
        double expected = 0;
        int rank = 0;
        for (int k = 0; k < n; k++) {
            double lambda = eig.getEigenvalue(k).getReal();
            if (lambda > 1e-10 * largest) {
                rank++;
                DMatrixRMaj v = eig.getEigenVector(k);
                double vSv = 0;
                for (int p = 0; p < n; p++) {
                    for (int q = 0; q < n; q++) {
                        vSv += v.get(p) * sw.get(p, q) * v.get(q);
                    }
                }
                expected += vSv / lambda;
            }
        }
        assertEquals(classes - 1, rank);
        expected /= classes;
        assertEquals(expected, NeuralCollapse.of(h, labels).nc1Papyan(), 1e-10 * expected);
    }

    @Test
    void badInputNamesTheValue() {
        double[][] h = {{0, 3}, {-1, 0}, {3, 0}, {1, 0}};
        assertMessage(() -> NeuralCollapse.of(h, new int[] {0, 1, 0}), "labels: 3 entries for 4 samples");
        assertMessage(() -> NeuralCollapse.of(h, new int[] {7, 7, 7, 7}), "1 class (label 7)");
        assertMessage(() -> NeuralCollapse.of(new double[][] {{1, 2}, {3}}, new int[] {0, 1}), "row 1 has 1 features");
        assertMessage(() -> NeuralCollapse.of(new double[0][], new int[0]), "H: no samples");
        int[] labels = {0, 1, 2, 0};
        assertMessage(() -> NeuralCollapse.of(h, labels, new double[][] {{0, 1}, {1, 0}}, null), "W: 2 rows for 3");
        assertMessage(
                () -> NeuralCollapse.of(h, labels, new double[][] {{0, 1}, {1, 0}, {1}}, null),
                "W: row 2 has 1 columns for 2 features");
        assertMessage(
                () -> NeuralCollapse.of(h, labels, new double[][] {{0, 1}, {1, 0}, {1, 1}}, new double[2]),
                "b: 2 entries for 3 classes");
        assertMessage(
                () -> NeuralCollapse.of(h, new int[] {1, 2, 5, 1}, new double[][] {{0, 1}, {1, 0}, {1, 1}}, null),
                "classes [1, 2, 5]");
        assertMessage(() -> NeuralCollapse.of(h, labels, null, new double[3]), "b: 3 biases without a classifier");
    }

    static void assertMessage(org.junit.jupiter.api.function.Executable call, String part) {
        UserException e = assertThrows(UserException.class, call);
        assertTrue(e.getMessage().contains(part), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }
}
