package org.ntk4j.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ntk4j.metrics.NeuralCollapseTest.assertMessage;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.factor.Mode;

/**
 * Def. 3.1 estimates on an exact block kernel, a hand-worked kernel, a random kernel via indicator algebra, the
 * balanced-class link to eq. (23), the variance claim against the authors' half-split, and bad input.
 */
class BlockStructureTest {
    /** Class sizes 2, 4, 3, in no order. */
    private static final int[] LABELS = {1, 0, 2, 1, 1, 0, 2, 2, 1};

    private static KernelMatrix toKernelMatrix(double[][][][] t) {
        int n = t.length;
        int o = t[0][0].length;
        double[] flat = new double[n * n * o * o];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                for (int k = 0; k < o; k++) {
                    for (int s = 0; s < o; s++) {
                        flat[((i * n + j) * o + k) * o + s] = t[i][j][k][s];
                    }
                }
            }
        }
        KernelMatrix km = new KernelMatrix(n, n, Mode.FULL, o, true);
        km.addBlock(0, 0, n, n, flat, false);
        return km;
    }

    @Test
    void exactBlockKernelRecoversLambdasAndOffDiagonalNoise() {
        int n = LABELS.length;
        int o = 3;
        double[][][][] t = new double[n][n][o][o];
        SplittableRandom r = new SplittableRandom(4);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double lambda = i == j ? 2.0 : LABELS[i] == LABELS[j] ? 0.9 : 0.25;
                for (int k = 0; k < o; k++) {
                    t[i][j][k][k] = lambda;
                }
            }
        }
        BlockStructure exact = BlockStructure.of(t, LABELS);
        assertEquals(2.0, exact.gammaD(), 1e-15);
        assertEquals(0.9, exact.gammaC(), 1e-15);
        assertEquals(0.25, exact.gammaN(), 1e-15);
        assertEquals(0, exact.offDiagonal(), 0);
        assertEquals(0, exact.offDiagonalRatio(), 0);

        for (double[][][] row : t) {
            for (double[][] block : row) {
                for (int k = 0; k < o; k++) {
                    for (int s = 0; s < o; s++) {
                        if (k != s) {
                            block[k][s] = r.nextBoolean() ? 0.05 : -0.05;
                        }
                    }
                }
            }
        }
        BlockStructure noisy = BlockStructure.of(toKernelMatrix(t), LABELS);
        assertEquals(0.9, noisy.gammaC(), 1e-15);
        assertEquals(0.05, noisy.offDiagonal(), 1e-15);
        assertEquals(0.025, noisy.offDiagonalRatio(), 1e-15);
    }

    /**
     * N = 4, O = 2, labels (0, 1, 0, 1); Θ_kk(x_i, x_j) = ij + i + k, Θ_ks(x_i, x_j) = −(i + j + 1)(k + 2s), k ≠ s.
     * Diagonal ij + i is 0, 2, 6, 12; same-class pairs (0,2), (2,0), (1,3), (3,1) give 0, 2, 4, 6; the eight
     * different-class pairs (0,1), (0,3), (1,0), (1,2), (2,1), (2,3), (3,0), (3,2) give 0, 0, 1, 3, 4, 8, 3, 9; the
     * mean over k adds ½: γ_d = 5 + ½, γ_c = 3 + ½, γ_n = 28/8 + ½. Off-diagonal: the mean of i + j + 1 over the
     * 16 pairs is 4, of k + 2s over (0,1), (1,0) is 1.5: 6.
     */
    @Test
    void handComputedFourSamples() {
        int[] labels = {0, 1, 0, 1};
        double[][][][] t = new double[4][4][2][2];
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 4; j++) {
                for (int k = 0; k < 2; k++) {
                    for (int s = 0; s < 2; s++) {
                        t[i][j][k][s] = k == s ? i * j + i + k : -(i + j + 1) * (k + 2 * s);
                    }
                }
            }
        }
        BlockStructure b = BlockStructure.of(t, labels);
        assertEquals(5.5, b.gammaD(), 1e-15);
        assertEquals(3.5, b.gammaC(), 1e-15);
        assertEquals(4.0, b.gammaN(), 1e-15);
        assertEquals(6.0, b.offDiagonal(), 1e-15);
        assertEquals(6.0 / 5.5, b.offDiagonalRatio(), 1e-15);
        assertEquals(b, BlockStructure.of(toKernelMatrix(t), labels));
    }

    /**
     * Per output, with T_k = Θ_kk(X, X), indicators 1_c, sizes n_c: γ_c = Σ_k Σ_c (1_cᵀT_k1_c − tr_c T_k) /
     * (O Σ_c n_c(n_c − 1)) and γ_n = Σ_k (1ᵀT_k1 − Σ_c 1_cᵀT_k1_c) / (O(N² − Σ_c n_c²)); off-diagonal = (Σ|Θ| −
     * Σ_k Σ|T_k|) / (N²O(O − 1)).
     */
    @Test
    void randomKernelMatchesIndicatorAlgebra() {
        int[] labels = {3, 8, 3, 3, 8, 5, 5, 3, 8, 5, 3};
        int[] values = {3, 5, 8};
        int n = labels.length;
        int o = 3;
        SplittableRandom r = new SplittableRandom(21);
        double[][][][] t = new double[n][n][o][o];
        double absAll = 0;
        double absDiag = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                for (int k = 0; k < o; k++) {
                    for (int s = 0; s < o; s++) {
                        t[i][j][k][s] = r.nextGaussian();
                        absAll += Math.abs(t[i][j][k][s]);
                        absDiag += k == s ? Math.abs(t[i][j][k][s]) : 0;
                    }
                }
            }
        }
        double trace = 0;
        double within = 0;
        double total = 0;
        double withinPairs = 0;
        double squares = 0;
        for (int k = 0; k < o; k++) {
            for (int i = 0; i < n; i++) {
                trace += t[i][i][k][k];
                for (int j = 0; j < n; j++) {
                    total += t[i][j][k][k];
                }
            }
            for (int v : values) {
                double[] in = new double[n];
                double size = 0;
                double diag = 0;
                for (int i = 0; i < n; i++) {
                    in[i] = labels[i] == v ? 1 : 0;
                    size += in[i];
                    diag += in[i] * t[i][i][k][k];
                }
                double block = 0;
                for (int i = 0; i < n; i++) {
                    for (int j = 0; j < n; j++) {
                        block += in[i] * t[i][j][k][k] * in[j];
                    }
                }
                within += block - diag;
                total -= block;
                if (k == 0) {
                    withinPairs += size * (size - 1);
                    squares += size * size;
                }
            }
        }
        BlockStructure b = BlockStructure.of(t, labels);
        assertEquals(trace / (n * o), b.gammaD(), 1e-14);
        assertEquals(within / (o * withinPairs), b.gammaC(), 1e-14);
        assertEquals(total / (o * (n * n - squares)), b.gammaN(), 1e-14);
        assertEquals((absAll - absDiag) / (n * n * o * (o - 1)), b.offDiagonal(), 1e-14);
        assertEquals(b, BlockStructure.of(toKernelMatrix(t), labels));
    }

    /** Balanced classes: the pooled γ's times O are eq. (23)'s class-weighted means of the traced kernel. */
    @Test
    void balancedClassesAgreeWithLabelAwarenessOfTheTrace() {
        int[] labels = {2, 0, 1, 1, 0, 2, 2, 1, 0, 0, 1, 2};
        int n = labels.length;
        int o = 4;
        SplittableRandom r = new SplittableRandom(13);
        double[][][][] t = new double[n][n][o][o];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                for (int k = 0; k < o; k++) {
                    for (int s = 0; s < o; s++) {
                        t[i][j][k][s] = r.nextGaussian();
                    }
                }
            }
        }
        KernelMatrix km = toKernelMatrix(t);
        BlockStructure b = BlockStructure.of(km, labels);
        LabelAwareness la = LabelAwareness.of(km, labels);
        assertEquals(la.thetaD(), o * b.gammaD(), 1e-13);
        assertEquals(la.thetaC(), o * b.gammaC(), 1e-13);
        assertEquals(la.thetaN(), o * b.gammaN(), 1e-13);
    }

    /**
     * The Javadoc's claim: on symmetric kernels λ + independent pair noise (C = 3, m = 4), the authors' half-split
     * estimator and the all-pairs mean are both unbiased, and all pairs has the smaller variance (expected ratios
     * 4/6 for γ_c, 4/16 for γ_n).
     */
    @Test
    void allPairsMeanHasLowerVarianceThanTheHalfSplit() {
        int classes = 3;
        int m = 4;
        int n = classes * m;
        int o = 2;
        int[] labels = new int[n];
        for (int i = 0; i < n; i++) {
            labels[i] = i / m;
        }
        SplittableRandom r = new SplittableRandom(99);
        int draws = 400;
        double[][] c = new double[2][draws];
        double[][] nn = new double[2][draws];
        for (int d = 0; d < draws; d++) {
            double[][][][] t = new double[n][n][o][o];
            for (int i = 0; i < n; i++) {
                for (int j = i; j < n; j++) {
                    for (int k = 0; k < o; k++) {
                        double v = (i == j ? 2.0 : labels[i] == labels[j] ? 0.9 : 0.25) + 0.1 * r.nextGaussian();
                        t[i][j][k][k] = v;
                        t[j][i][k][k] = v;
                    }
                }
            }
            BlockStructure all = BlockStructure.of(t, labels);
            c[0][d] = all.gammaC();
            nn[0][d] = all.gammaN();
            double within = 0;
            double across = 0;
            for (int k = 0; k < o; k++) {
                for (int a = 0; a < classes; a++) {
                    for (int b = a; b < classes; b++) {
                        for (int x = a * m; x < a * m + m / 2; x++) {
                            for (int y = b * m + m / 2; y < b * m + m; y++) {
                                if (a == b) {
                                    within += t[x][y][k][k];
                                } else {
                                    across += t[x][y][k][k];
                                }
                            }
                        }
                    }
                }
            }
            c[1][d] = within / (o * classes * (m / 2) * (m / 2));
            nn[1][d] = across / (o * classes * (classes - 1) / 2 * (m / 2) * (m / 2));
        }
        for (int e = 0; e < 2; e++) {
            assertEquals(0.9, mean(c[e]), 4 * Math.sqrt(variance(c[e]) / draws));
            assertEquals(0.25, mean(nn[e]), 4 * Math.sqrt(variance(nn[e]) / draws));
        }
        double ratioC = variance(c[0]) / variance(c[1]);
        double ratioN = variance(nn[0]) / variance(nn[1]);
        assertTrue(ratioC < 0.85, "γ_c variance ratio " + ratioC);
        assertTrue(ratioN < 0.4, "γ_n variance ratio " + ratioN);
    }

    private static double mean(double[] x) {
        double s = 0;
        for (double v : x) {
            s += v;
        }
        return s / x.length;
    }

    private static double variance(double[] x) {
        double mu = mean(x);
        double s = 0;
        for (double v : x) {
            s += (v - mu) * (v - mu);
        }
        return s / (x.length - 1);
    }

    @Test
    void badInputNamesTheValue() {
        double[][][][] t = new double[4][4][2][2];
        assertMessage(() -> BlockStructure.of(t, new int[] {0, 1, 0}), "labels: 3 entries for 4 samples");
        assertMessage(() -> BlockStructure.of(t, new int[] {6, 6, 6, 6}), "1 class (label 6)");
        assertMessage(() -> BlockStructure.of(t, new int[] {0, 1, 1, 1}), "class 0 has 1 sample");
        assertMessage(
                () -> BlockStructure.of(new KernelMatrix(4, 4, Mode.TRACE, 2, true), new int[] {0, 0, 1, 1}),
                "mode TRACE; expected FULL");
        assertMessage(
                () -> BlockStructure.of(new KernelMatrix(4, 3, Mode.FULL, 2, true), new int[] {0, 0, 1, 1}),
                "4 x 3 samples");
        double[][][][] ragged = new double[3][3][2][2];
        ragged[1][2] = new double[2][3];
        assertMessage(() -> BlockStructure.of(ragged, new int[] {0, 0, 1}), "block [1][2] is not 2 x 2");
        assertMessage(() -> BlockStructure.of(new double[0][][][], new int[0]), "kernel: empty");
    }
}
