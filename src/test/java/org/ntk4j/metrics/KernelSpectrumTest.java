package org.ntk4j.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;

/**
 * The spectrum against kernels built from a known spectrum (K = Q Λ Qᵀ with a random orthogonal Q by
 * Gram–Schmidt), the effective ranks against their closed forms, and the cumulative target power
 * against the alignment computed directly in the sample basis (a second derivation of
 * A(K, Y) = Σ_i λ_i ‖v_iᵀY‖² / (‖Λ‖_F ‖YYᵀ‖_F)).
 */
class KernelSpectrumTest {
    static double[][] orthogonal(int n, long seed) {
        Random r = new Random(seed);
        double[][] q = new double[n][n]; // columns q[.][c]
        for (int c = 0; c < n; c++) {
            double[] v = new double[n];
            for (int i = 0; i < n; i++) {
                v[i] = r.nextGaussian();
            }
            for (int p = 0; p < c; p++) {
                double d = 0;
                for (int i = 0; i < n; i++) {
                    d += v[i] * q[i][p];
                }
                for (int i = 0; i < n; i++) {
                    v[i] -= d * q[i][p];
                }
            }
            double norm = 0;
            for (double x : v) {
                norm += x * x;
            }
            for (int i = 0; i < n; i++) {
                q[i][c] = v[i] / Math.sqrt(norm);
            }
        }
        return q;
    }

    static double[][] withSpectrum(double[][] q, double[] lambda) {
        int n = lambda.length;
        double[][] k = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                for (int c = 0; c < n; c++) {
                    k[i][j] += q[i][c] * lambda[c] * q[j][c];
                }
            }
        }
        return k;
    }

    @Test
    void recoversAKnownSpectrumAndEigenvectors() {
        double[] lambda = {9, 4, 2.5, 1, 0.5, 0.25, 0.1, 0};
        double[][] q = orthogonal(lambda.length, 3);
        double[][] k = withSpectrum(q, lambda);
        KernelSpectrum s = KernelSpectrum.of(k);
        assertArrayEquals(lambda, s.eigenvalues(), 1e-12);
        for (int c = 0; c < lambda.length - 1; c++) { // the null eigenvector is defined up to sign only like the others
            double[] v = s.eigenvector(c);
            double dot = 0;
            for (int i = 0; i < v.length; i++) {
                dot += v[i] * q[i][c];
            }
            assertEquals(1.0, Math.abs(dot), 1e-10, "eigenvector " + c + " equals ±q_" + c);
        }
    }

    @Test
    void effectiveRanksHaveTheirClosedForms() {
        int n = 6;
        double[][] q = orthogonal(n, 5);
        KernelSpectrum identity = KernelSpectrum.of(withSpectrum(q, new double[] {1, 1, 1, 1, 1, 1}));
        assertEquals(n, identity.effectiveRank(), 1e-10);
        assertEquals(n, identity.entropyEffectiveRank(), 1e-10);
        KernelSpectrum rankOne = KernelSpectrum.of(withSpectrum(q, new double[] {7, 0, 0, 0, 0, 0}));
        assertEquals(1, rankOne.effectiveRank(), 1e-10);
        assertEquals(1, rankOne.entropyEffectiveRank(), 1e-10);
        // λ = (3, 1): participation ratio 16/10, entropy rank exp(−¾ln¾ − ¼ln¼)
        KernelSpectrum two = KernelSpectrum.of(withSpectrum(q, new double[] {3, 1, 0, 0, 0, 0}));
        assertEquals(1.6, two.effectiveRank(), 1e-10);
        assertEquals(Math.exp(-0.75 * Math.log(0.75) - 0.25 * Math.log(0.25)), two.entropyEffectiveRank(), 1e-10);
    }

    @Test
    void cumulativeTargetPowerIsTheSpectralFormOfAlignment() {
        int n = 12;
        int o = 3;
        Random r = new Random(7);
        double[] lambda = new double[n];
        for (int i = 0; i < n; i++) {
            lambda[i] = Math.pow(0.6, i) * (1 + 0.1 * r.nextDouble());
        }
        java.util.Arrays.sort(lambda);
        for (int i = 0; i < n / 2; i++) { // descending
            double t = lambda[i];
            lambda[i] = lambda[n - 1 - i];
            lambda[n - 1 - i] = t;
        }
        double[][] q = orthogonal(n, 11);
        double[][] k = withSpectrum(q, lambda);
        float[] y = new float[n * o];
        for (int i = 0; i < n; i++) {
            y[i * o + r.nextInt(o)] = 1;
        }
        KernelSpectrum s = KernelSpectrum.of(k);
        double[] c = s.cumulativeTargetPower(y, o);
        assertEquals(1.0, c[n - 1], 1e-12, "all eigenvectors together hold all of Y");
        for (int i = 1; i < n; i++) {
            assertTrue(c[i] >= c[i - 1] - 1e-15, "cumulative power is non-decreasing");
        }
        // A(K, Y) = Σ_i λ_i p_i ‖Y‖² / (‖Λ‖_F ‖YYᵀ‖_F) with p_i = C(i) − C(i−1)
        double normY2 = 0;
        for (float v : y) {
            normY2 += v * v;
        }
        double num = 0;
        double lam2 = 0;
        for (int i = 0; i < n; i++) {
            num += lambda[i] * (c[i] - (i == 0 ? 0 : c[i - 1])) * normY2;
            lam2 += lambda[i] * lambda[i];
        }
        double yyNorm = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double d = 0;
                for (int a = 0; a < o; a++) {
                    d += y[i * o + a] * y[j * o + a];
                }
                yyNorm += d * d;
            }
        }
        assertEquals(Alignment.alignment(k, y, o), num / Math.sqrt(lam2 * yyNorm), 1e-12);
    }

    @Test
    void targetsOnTheTopEigenvectorHaveAllTheirPowerThere() {
        int n = 5;
        double[][] q = orthogonal(n, 13);
        KernelSpectrum s = KernelSpectrum.of(withSpectrum(q, new double[] {5, 4, 3, 2, 1}));
        float[] y = new float[n];
        for (int i = 0; i < n; i++) {
            y[i] = (float) q[i][0];
        }
        assertEquals(1.0, s.cumulativeTargetPower(y, 1)[0], 1e-6); // float targets: 1e-7 rounding per entry
    }

    @Test
    void rejectsNonSymmetricOrNonSquareKernels() {
        UserException e = assertThrows(UserException.class, () -> KernelSpectrum.of(new double[][] {{1, 2}, {0, 1}}));
        assertTrue(e.getMessage().contains("not symmetric at (0, 1)"), e.getMessage());
        assertThrows(UserException.class, () -> KernelSpectrum.of(new double[][] {{1, 2, 3}, {2, 1, 0}}));
        KernelSpectrum s = KernelSpectrum.of(new double[][] {{2, 1}, {1, 2}});
        assertThrows(UserException.class, () -> s.cumulativeTargetPower(new float[3], 1));
    }
}
