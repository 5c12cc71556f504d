package org.ntk4j.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.ntk4j.metrics.NeuralCollapseTest.assertMessage;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.factor.Mode;

/** Eq. (23) on an exact block kernel, a hand-worked kernel, a random kernel via indicator algebra, bad input. */
class LabelAwarenessTest {
    /** Class sizes 2, 4, 3, in no order. */
    private static final int[] LABELS = {1, 0, 2, 1, 1, 0, 2, 2, 1};

    @Test
    void blockKernelRecoversItsThreeValues() {
        int n = LABELS.length;
        double[][] k = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                k[i][j] = i == j ? 3.0 : LABELS[i] == LABELS[j] ? 1.2 : 0.4;
            }
        }
        LabelAwareness la = LabelAwareness.of(k, LABELS);
        assertEquals(3.0, la.thetaD(), 1e-15);
        assertEquals(1.2, la.thetaC(), 1e-15);
        assertEquals(0.4, la.thetaN(), 1e-15);
        assertEquals(0.4, la.cOverD(), 1e-15);
        assertEquals(0.4 / 3.0, la.nOverD(), 1e-15);
    }

    /**
     * Non-symmetric, labels (0, 1, 0, 1): Θ̄_d = (4+5+6+7)/4; class 0 pairs K₀₂ + K₂₀ = 4 over 2, class 1
     * K₁₃ + K₃₁ = 6 over 2, Θ̄_c = (2 + 3)/2; class 0 to 1: K₀₁+K₀₃+K₂₁+K₂₃ = 2 over 4, class 1 to 0:
     * K₁₀+K₁₂+K₃₀+K₃₂ = 3 over 4, Θ̄_n = (0.5 + 0.75)/2.
     */
    @Test
    void handComputedFourSamples() {
        double[][] k = {
            {4, 1, 2, 0},
            {1, 5, 0, 3},
            {2, 0, 6, 1},
            {1, 3, 1, 7},
        };
        LabelAwareness la = LabelAwareness.of(k, new int[] {0, 1, 0, 1});
        assertEquals(5.5, la.thetaD(), 0);
        assertEquals(2.5, la.thetaC(), 0);
        assertEquals(0.625, la.thetaN(), 0);
        assertEquals(2.5 / 5.5, la.cOverD(), 0);
        assertEquals(0.625 / 5.5, la.nOverD(), 0);
    }

    /** With indicators 1_k: Θ̄_c = K⁻¹Σ_k (1_kᵀΘ1_k − Σ_{i∈k}Θ_ii)/(n_k(n_k−1)), Θ̄_n = K⁻¹Σ_k 1_kᵀΘ(1 − 1_k)/(n_k(N−n_k)). */
    @Test
    void randomKernelMatchesIndicatorAlgebra() {
        int[] labels = {4, 9, 4, 1, 9, 4, 1, 4, 9, 9, 4, 9, 9};
        int n = labels.length;
        SplittableRandom r = new SplittableRandom(5);
        double[][] k = new double[n][n];
        for (double[] row : k) {
            for (int j = 0; j < n; j++) {
                row[j] = r.nextGaussian();
            }
        }
        int[] values = {1, 4, 9};
        double within = 0;
        double between = 0;
        double trace = 0;
        for (int i = 0; i < n; i++) {
            trace += k[i][i];
        }
        for (int v : values) {
            double[] in = new double[n];
            double[] out = new double[n];
            double size = 0;
            double diag = 0;
            for (int i = 0; i < n; i++) {
                in[i] = labels[i] == v ? 1 : 0;
                out[i] = 1 - in[i];
                size += in[i];
                diag += in[i] * k[i][i];
            }
            within += (quadratic(in, k, in) - diag) / (size * (size - 1)) / values.length;
            between += quadratic(in, k, out) / (size * (n - size)) / values.length;
        }
        LabelAwareness la = LabelAwareness.of(k, labels);
        assertEquals(trace / n, la.thetaD(), 1e-14);
        assertEquals(within, la.thetaC(), 1e-14);
        assertEquals(between, la.thetaN(), 1e-14);
    }

    private static double quadratic(double[] u, double[][] k, double[] v) {
        double s = 0;
        for (int i = 0; i < u.length; i++) {
            for (int j = 0; j < v.length; j++) {
                s += u[i] * k[i][j] * v[j];
            }
        }
        return s;
    }

    @Test
    void fullKernelMatrixIsTracedOverOutputs() {
        int n = LABELS.length;
        int o = 3;
        SplittableRandom r = new SplittableRandom(8);
        double[] block = new double[n * n * o * o];
        for (int i = 0; i < block.length; i++) {
            block[i] = r.nextGaussian();
        }
        KernelMatrix km = new KernelMatrix(n, n, Mode.FULL, o, true);
        km.addBlock(0, 0, n, n, block, false);
        double[][] traced = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                for (int a = 0; a < o; a++) {
                    traced[i][j] += block[((i * n + j) * o + a) * o + a];
                }
            }
        }
        assertEquals(LabelAwareness.of(traced, LABELS), LabelAwareness.of(km, LABELS));
    }

    @Test
    void badInputNamesTheValue() {
        double[][] k = new double[4][4];
        assertMessage(() -> LabelAwareness.of(k, new int[] {0, 1, 0}), "labels: 3 entries for 4 samples");
        assertMessage(() -> LabelAwareness.of(k, new int[] {2, 2, 2, 2}), "1 class (label 2)");
        assertMessage(() -> LabelAwareness.of(k, new int[] {0, 0, 0, 5}), "class 5 has 1 sample");
        assertMessage(() -> LabelAwareness.of(new double[][] {{1, 2}, {3}}, new int[] {0, 1}), "row 1 has 1 entries");
        assertMessage(
                () -> LabelAwareness.of(new KernelMatrix(3, 4, Mode.TRACE, 1, true), new int[] {0, 1, 0}),
                "3 x 4 samples");
    }
}
