package org.ntk4j.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StandardizerWhiteningTest {
    /** n×d data with features of different scales and means, plus correlations. */
    private static float[] data(int n, int d, long seed) {
        float[] z = Synthetic.gaussian(n, d, seed);
        float[] x = new float[n * d];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < d; j++) {
                x[i * d + j] = (float) ((j + 1) * z[i * d + j] + 0.5 * z[i * d] + 3 - j);
            }
        }
        return x;
    }

    private static double[] colMeans(float[] x, int n, int d) {
        double[] m = new double[d];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < d; j++) {
                m[j] += x[i * d + j] / (double) n;
            }
        }
        return m;
    }

    /** XᵀX (d×d). */
    private static double[] gram(float[] x, int n, int d) {
        double[] g = new double[d * d];
        for (int i = 0; i < n; i++) {
            for (int a = 0; a < d; a++) {
                for (int b = 0; b < d; b++) {
                    g[a * d + b] += (double) x[i * d + a] * x[i * d + b];
                }
            }
        }
        return g;
    }

    @Test
    void perFeatureStandardisedTrainHasMeanZeroStdOne() {
        int n = 300;
        int d = 6;
        float[] x = data(n, d, 1);
        Standardizer s = Standardizer.fit(x, n, d, Standardizer.Mode.PER_FEATURE);
        float[] t = s.apply(x);
        double[] m = colMeans(t, n, d);
        double[] g = gram(t, n, d);
        for (int j = 0; j < d; j++) {
            assertEquals(0, m[j], 1e-5);
            assertEquals(1, g[j * d + j] / n, 1e-5);
        }
        // test data get the training statistics, not their own
        float[] test = data(50, d, 2);
        float[] tt = s.apply(test);
        assertEquals((test[3] - s.means()[3]) / s.stds()[3], tt[3], 1e-5);
    }

    @Test
    void constantFeatureIsOnlyCentred() {
        float[] x = {1, 5, 2, 5, 3, 5};
        Standardizer s = Standardizer.fit(x, 3, 2, Standardizer.Mode.PER_FEATURE);
        float[] t = s.apply(x);
        assertEquals(0f, t[1]);
        assertEquals(1f, s.stds()[1]);
    }

    @Test
    void globalAndCentreModes() {
        int n = 200;
        int d = 5;
        float[] x = data(n, d, 3);
        float[] g = Standardizer.fit(x, n, d, Standardizer.Mode.GLOBAL).apply(x);
        double sum = 0;
        double sq = 0;
        for (float v : g) {
            sum += v;
            sq += (double) v * v;
        }
        assertEquals(0, sum / g.length, 1e-5);
        assertEquals(1, sq / g.length, 1e-5);
        float[] c = Standardizer.fit(x, n, d, Standardizer.Mode.CENTRE).apply(x);
        double[] m = colMeans(c, n, d);
        for (int j = 0; j < d; j++) {
            assertEquals(0, m[j], 1e-5);
        }
        assertEquals(x[7] - colMeans(x, n, d)[2], c[7], 1e-4);
    }

    @Test
    void fullWhiteningGivesIdentityGram() {
        int n = 200;
        int d = 12;
        float[] x = data(n, d, 4);
        Whitening w = Whitening.fit(x, n, d, 0.0);
        assertEquals(d, w.rank());
        double[] g = gram(w.fittedTrain(), n, d);
        for (int a = 0; a < d; a++) {
            for (int b = 0; b < d; b++) {
                assertEquals(a == b ? 1 : 0, g[a * d + b], 1e-5, "X_0^T X_0 [" + a + "," + b + "]");
            }
        }
        Whitening u = Whitening.fit(x, n, d, 0.0, Whitening.DEFAULT_RCOND, Whitening.Rescale.UNIT_MEAN_EIGENVALUE);
        double[] gu = gram(u.fittedTrain(), n, d);
        for (int a = 0; a < d; a++) {
            for (int b = 0; b < d; b++) {
                assertEquals(a == b ? 1 : 0, gu[a * d + b] / n, 1e-5, "X_0^T X_0 / n");
            }
        }
    }

    @Test
    void gammaOneIsIdentity() {
        int n = 80;
        int d = 7;
        float[] x = data(n, d, 5);
        Whitening w = Whitening.fit(x, n, d, 1.0);
        float[] f = w.fittedTrain();
        float[] test = data(9, d, 6);
        float[] ft = w.apply(test);
        for (int k = 0; k < x.length; k++) {
            assertEquals(x[k], f[k], 1e-4 * (1 + Math.abs(x[k])));
        }
        for (int k = 0; k < test.length; k++) {
            assertEquals(test[k], ft[k], 1e-4 * (1 + Math.abs(test[k])));
        }
    }

    @Test
    void testPointPathReproducesFittedTrain() {
        int n = 60;
        int d = 10;
        float[] x = data(n, d, 7);
        for (double gamma : new double[] {0, 0.25, 0.5}) {
            Whitening w =
                    Whitening.fit(x, n, d, gamma, Whitening.DEFAULT_RCOND, Whitening.Rescale.UNIT_MEAN_EIGENVALUE);
            float[] fitted = w.fittedTrain();
            float[] viaTest = w.apply(x);
            for (int k = 0; k < x.length; k++) {
                assertEquals(fitted[k], viaTest[k], 1e-4 * (1 + Math.abs(fitted[k])), "gamma " + gamma);
            }
            // the eigenvalues of X_γᵀX_γ are c²·s_k^{2γ} (λ_k → λ_k^γ up to scale)
            double[] sv = w.singularValues();
            double[] g = gram(fitted, n, d);
            org.ejml.data.DMatrixRMaj gm = new org.ejml.data.DMatrixRMaj(d, d, true, g);
            var eig = org.ejml.dense.row.factory.DecompositionFactory_DDRM.eig(d, false, true);
            assertTrue(eig.decompose(gm));
            double[] ev = new double[d];
            for (int k = 0; k < d; k++) {
                ev[k] = eig.getEigenvalue(k).getReal();
            }
            java.util.Arrays.sort(ev);
            double tr = 0;
            for (int k = 0; k < d; k++) {
                double expected = w.scale() * w.scale() * Math.pow(sv[k], 2 * gamma);
                assertEquals(expected, ev[d - 1 - k], 1e-4 * expected, "eigenvalue " + k + ", gamma " + gamma);
                tr += ev[k];
            }
            assertEquals(n * (double) d, tr, 1e-4 * n * d, "‖X_γ‖_F² = n·r");
        }
    }

    @Test
    void rankDeficientDataWhitenToAProjector() {
        int n = 50;
        int d = 6;
        float[] x = data(n, d, 8);
        for (int i = 0; i < n; i++) {
            x[i * d + 2] = 0f; // an always-zero "pixel"
            x[i * d + 4] = x[i * d + 1] - x[i * d + 3]; // an exact linear dependence
        }
        Whitening w = Whitening.fit(x, n, d, 0.0);
        assertEquals(d - 2, w.rank());
        double[] g = gram(w.fittedTrain(), n, d);
        // X_0^T X_0 = V_r V_r^T: symmetric, idempotent, trace r, and zero on the dead pixel
        double tr = 0;
        for (int j = 0; j < d; j++) {
            tr += g[j * d + j];
            assertEquals(0, g[2 * d + j], 1e-6);
        }
        assertEquals(d - 2, tr, 1e-5);
        for (int a = 0; a < d; a++) {
            for (int b = 0; b < d; b++) {
                double sq = 0;
                for (int k = 0; k < d; k++) {
                    sq += g[a * d + k] * g[k * d + b];
                }
                assertEquals(g[a * d + b], sq, 1e-5, "idempotent");
            }
        }
        // a test point's component along a dropped direction is mapped to zero
        float[] e2 = new float[d];
        e2[2] = 1f;
        assertArrayEquals(new float[d], w.apply(e2), 1e-6f);
    }
}
