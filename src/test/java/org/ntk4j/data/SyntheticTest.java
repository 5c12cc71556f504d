package org.ntk4j.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;

/**
 * Statistics of the synthetic generators. Monte Carlo checks use 5σ tolerances derived from the
 * sample size (σ of a sample mean of n unit-variance values is 1/√n; of a sample variance of n
 * Gaussians with variance λ it is λ√(2/n)); deterministic identities use float32 round-off bounds.
 */
class SyntheticTest {
    private static double[] sampleCov(float[] x, int n, int d) {
        double[] c = new double[d * d];
        for (int i = 0; i < n; i++) {
            for (int a = 0; a < d; a++) {
                for (int b = 0; b < d; b++) {
                    c[a * d + b] += (double) x[i * d + a] * x[i * d + b] / n;
                }
            }
        }
        return c;
    }

    private static double[] sortedEigenvaluesDesc(double[] sym, int d) {
        var eig = DecompositionFactory_DDRM.eig(d, false, true);
        assertTrue(eig.decompose(new DMatrixRMaj(d, d, true, sym.clone())));
        double[] ev = new double[d];
        for (int k = 0; k < d; k++) {
            ev[k] = eig.getEigenvalue(k).getReal();
        }
        Arrays.sort(ev);
        for (int k = 0; k < d / 2; k++) {
            double t = ev[k];
            ev[k] = ev[d - 1 - k];
            ev[d - 1 - k] = t;
        }
        return ev;
    }

    @Test
    void standardGaussianMomentsAndDeterminism() {
        int n = 4000;
        int d = 5;
        float[] x = Synthetic.gaussian(n, d, 11);
        assertArrayEquals(x, Synthetic.gaussian(n, d, 11));
        double[] c = sampleCov(x, n, d);
        double sum = 0;
        for (float v : x) {
            sum += v;
        }
        assertEquals(0, sum / x.length, 5 / Math.sqrt(x.length));
        for (int a = 0; a < d; a++) {
            for (int b = 0; b < d; b++) {
                // var of a diagonal entry: 2/n; of an off-diagonal one: 1/n
                double tol = 5 * Math.sqrt((a == b ? 2.0 : 1.0) / n);
                assertEquals(a == b ? 1 : 0, c[a * d + b], tol);
            }
        }
    }

    @Test
    void powerLawAxisAlignedVariances() {
        int n = 20000;
        double[] lambda = Synthetic.powerLawSpectrum(6, 1.5);
        assertEquals(1.0, lambda[0]);
        assertEquals(Math.pow(3, -1.5), lambda[2], 1e-15);
        float[] x = Synthetic.gaussian(n, lambda, false, 3);
        double[] c = sampleCov(x, n, 6);
        for (int k = 0; k < 6; k++) {
            assertEquals(lambda[k], c[k * 6 + k], 5 * lambda[k] * Math.sqrt(2.0 / n));
        }
    }

    @Test
    void haarBasisKeepsSpectrum() {
        int n = 20000;
        int d = 5;
        double[] lambda = Synthetic.inverseOnePlusPowerSpectrum(d, 1.0);
        assertEquals(0.5, lambda[0]);
        assertEquals(1.0 / 3.0, lambda[1], 1e-15);
        float[] x = Synthetic.gaussian(n, lambda, true, 4);
        double[] c = sampleCov(x, n, d);
        double[] ev = sortedEigenvaluesDesc(c, d);
        // eigenvalue estimates fluctuate like λ√(2/n); 5σ, plus λ_max√(2/n)·5 for mixing
        for (int k = 0; k < d; k++) {
            assertEquals(lambda[k], ev[k], 5 * lambda[0] * Math.sqrt(2.0 / n));
        }
        // a random basis spreads variance: the covariance is not diagonal
        double off = 0;
        for (int a = 0; a < d; a++) {
            for (int b = 0; b < d; b++) {
                off += a == b ? 0 : Math.abs(c[a * d + b]);
            }
        }
        assertTrue(off > 0.05, "off-diagonal mass " + off);
        // the Haar matrix itself is orthogonal
        double[] o = Synthetic.haar(d, new java.util.SplittableRandom(1));
        DMatrixRMaj om = new DMatrixRMaj(d, d, true, o);
        DMatrixRMaj oto = new DMatrixRMaj(d, d);
        CommonOps_DDRM.multTransA(om, om, oto);
        assertTrue(org.ejml.dense.row.MatrixFeatures_DDRM.isIdentity(oto, 1e-12));
    }

    @Test
    void geometricSpectrumEnds() {
        double[] g = Synthetic.geometricSpectrum(20, 4, 0.05);
        assertEquals(4, g[0], 1e-12);
        assertEquals(0.05, g[19], 1e-12);
        assertEquals(g[1] / g[0], g[19] / g[18], 1e-12);
    }

    @Test
    void whitenedTeacherFullRank() {
        int p = 100;
        int d = 25;
        double s = 1.3;
        Synthetic.Teacher t = Synthetic.whitenedLinearTeacher(p, d, s, 21);
        RegressionData r = t.data();
        double[] c = sampleCov(r.x(), p, d); // XᵀX/P
        for (int a = 0; a < d; a++) {
            for (int b = 0; b < d; b++) {
                assertEquals(a == b ? 1 : 0, c[a * d + b], 1e-5);
            }
        }
        assertEquals(1, Synthetic.dot(t.weights(), t.weights()), 1e-12);
        double yy = 0;
        for (int i = 0; i < p; i++) {
            double v = 0;
            for (int j = 0; j < d; j++) {
                v += t.weights()[j] * r.x()[i * d + j];
            }
            assertEquals(s * v, r.y()[i], 1e-5);
            yy += r.y()[i] * r.y()[i];
        }
        // mean of y² = s² βᵀΣβ = s² exactly for whitened data
        assertEquals(s * s, yy / p, 1e-4);
    }

    @Test
    void whitenedTeacherFewerPointsThanDimensionsHasBetaInSpan() {
        int p = 10;
        int d = 30;
        Synthetic.Teacher t = Synthetic.whitenedLinearTeacher(p, d, 1.0, 22);
        double[] c = sampleCov(t.data().x(), p, d); // projector onto span
        double[] pb = new double[d];
        for (int a = 0; a < d; a++) {
            for (int b = 0; b < d; b++) {
                pb[a] += c[a * d + b] * t.weights()[b];
            }
        }
        for (int a = 0; a < d; a++) {
            assertEquals(t.weights()[a], pb[a], 1e-5, "Πβ = β");
        }
        double tr = 0;
        for (int a = 0; a < d; a++) {
            tr += c[a * d + a];
        }
        assertEquals(p, tr, 1e-4, "rank-P projector");
    }

    @Test
    void multiOutputTeacherHasPrescribedSingularValues() {
        double[] sv = {2, 1, 0.5};
        Synthetic.Teacher t = Synthetic.multiOutputTeacher(60, 12, sv, 5);
        assertEquals(3, t.outputs());
        assertEquals(3, t.data().outputs());
        var svd = DecompositionFactory_DDRM.svd(3, 12, false, false, true);
        assertTrue(svd.decompose(new DMatrixRMaj(3, 12, true, t.weights().clone())));
        double[] got = svd.getSingularValues().clone();
        Arrays.sort(got);
        assertArrayEquals(new double[] {0.5, 1, 2}, got, 1e-10);
        float[] again = t.predict(t.data().x(), 1.0);
        assertArrayEquals(t.data().y(), again, 1e-6f);
        assertThrows(UserException.class, () -> Synthetic.multiOutputTeacher(2, 12, sv, 5));
    }

    @Test
    void anisotropicTeacherSignalVariance() {
        int p = 20000;
        double s = 2.0;
        double[] lambda = Synthetic.geometricSpectrum(8, 4, 0.05);
        Synthetic.Teacher t = Synthetic.anisotropicLinearTeacher(p, lambda, false, s, 8);
        double expected = 0; // E[y²] = s² βᵀΣβ (y = s βᵀx), Σ = diag(λ)
        for (int k = 0; k < 8; k++) {
            expected += s * s * lambda[k] * t.weights()[k] * t.weights()[k];
        }
        double yy = 0;
        for (float y : t.data().y()) {
            yy += (double) y * y;
        }
        // y is Gaussian, so Var[y²] = 2 E[y²]²: σ of the mean is E[y²]·√(2/p)
        assertEquals(expected, yy / p, 5 * expected * Math.sqrt(2.0 / p));
        assertEquals(1, Synthetic.dot(t.weights(), t.weights()), 1e-12);
    }

    @Test
    void innerProductPairsAreUnitWithGivenDot() {
        double[] rhos = {0.1, 0.3, 0.5, 0.7, 0.9, -0.4, 1.0};
        int d = 50;
        float[] x = Synthetic.innerProductPairs(d, rhos, 3);
        for (int i = 0; i < rhos.length; i++) {
            double na = 0;
            double nb = 0;
            double ab = 0;
            for (int k = 0; k < d; k++) {
                double a = x[2 * i * d + k];
                double b = x[(2 * i + 1) * d + k];
                na += a * a;
                nb += b * b;
                ab += a * b;
            }
            assertEquals(1, na, 1e-6);
            assertEquals(1, nb, 1e-6);
            assertEquals(rhos[i], ab, 1e-6);
        }
        assertThrows(UserException.class, () -> Synthetic.innerProductPairs(d, new double[] {1.2}, 1));
    }

    @Test
    void chainMonomialLabelsAndEgop() {
        RegressionData r = Synthetic.chainMonomial(384, 32, 5, 1);
        double ss = 0;
        double m = 0;
        for (float y : r.y()) {
            m += y;
        }
        m /= r.n();
        for (float y : r.y()) {
            ss += (y - m) * (y - m);
        }
        assertEquals(1, Math.sqrt(ss / r.n()), 1e-5, "labels scaled to std 1");
        // the labels are proportional to the chain monomial of the inputs
        float[] x = r.x();
        double ratio = Double.NaN;
        for (int i = 0; i < 5; i++) {
            double v = 0;
            for (int k = 0; k < 5; k++) {
                v += (double) x[i * 32 + k] * x[i * 32 + (k + 1) % 5];
            }
            if (Double.isNaN(ratio)) {
                ratio = r.y()[i] / v;
            } else {
                assertEquals(ratio, r.y()[i] / v, 1e-4 * Math.abs(ratio));
            }
        }
        double[] g = Synthetic.chainMonomialEgop(32, 5);
        assertArrayEquals(new double[] {2, 0, 1, 1, 0}, Arrays.copyOf(g, 5), 0);
        double[] block = new double[25];
        for (int a = 0; a < 5; a++) {
            for (int b = 0; b < 5; b++) {
                block[a * 5 + b] = g[a * 32 + b];
            }
        }
        double[] ev = sortedEigenvaluesDesc(block, 5);
        assertArrayEquals(new double[] {4, 2.618034, 2.618034, 0.381966, 0.381966}, ev, 1e-6);
        double rest = 0;
        for (int k = 0; k < g.length; k++) {
            rest += Math.abs(g[k]);
        }
        double inBlock = 0;
        for (double v : block) {
            inBlock += Math.abs(v);
        }
        assertEquals(inBlock, rest, 1e-12, "zero outside the r×r block");
        // r = 3: I + 11ᵀ
        double[] g3 = Synthetic.chainMonomialEgop(3, 3);
        assertArrayEquals(new double[] {2, 1, 1, 1, 2, 1, 1, 1, 2}, g3, 0);
    }

    @Test
    void chainMonomialEgopMatchesMonteCarlo() {
        // E[∇y∇yᵀ] with ∇y = A x; the Monte Carlo mean of (Ax)(Ax)ᵀ over n points has entries with
        // variance ≤ (A²)_aa (A²)_bb + (A²)_ab² ≤ 2·4² per point, so σ ≤ √(32/n).
        int n = 20000;
        int d = 6;
        int r = 5;
        float[] x = Synthetic.gaussian(n, d, 9);
        double[] mc = new double[d * d];
        for (int i = 0; i < n; i++) {
            double[] grad = new double[d];
            for (int k = 0; k < r; k++) {
                int a = k;
                int b = (k + 1) % r;
                grad[a] += x[i * d + b];
                grad[b] += x[i * d + a];
            }
            for (int a = 0; a < d; a++) {
                for (int b = 0; b < d; b++) {
                    mc[a * d + b] += grad[a] * grad[b] / n;
                }
            }
        }
        double[] g = Synthetic.chainMonomialEgop(d, r);
        for (int k = 0; k < d * d; k++) {
            assertEquals(g[k], mc[k], 5 * Math.sqrt(32.0 / n));
        }
    }

    @Test
    void highRankPolynomialIsPositiveWithUnitStd() {
        RegressionData r = Synthetic.highRankPolynomial(200, 16, 2);
        double m = 0;
        for (float y : r.y()) {
            assertTrue(y >= 0);
            m += y;
        }
        m /= r.n();
        double ss = 0;
        for (float y : r.y()) {
            ss += (y - m) * (y - m);
        }
        assertEquals(1, Math.sqrt(ss / r.n()), 1e-5);
    }

    @Test
    void alignmentReversingInverseSquareGram() {
        int n = 40;
        int d = 5;
        RegressionData r = Synthetic.alignmentReversing(n, d, 0.5, 0.5, 0.0, 3);
        assertEquals(n, r.n());
        for (int i = 0; i < n; i++) {
            assertEquals(i < 20 ? 1 + 1e-5 : 1e-5, r.y()[i], 1e-7);
        }
        DMatrixRMaj x1 = new DMatrixRMaj(20, d, true, toDouble(Arrays.copyOfRange(r.x(), 0, 20 * d)));
        DMatrixRMaj x2 = new DMatrixRMaj(20, d, true, toDouble(Arrays.copyOfRange(r.x(), 20 * d, 40 * d)));
        DMatrixRMaj g1 = new DMatrixRMaj(d, d);
        CommonOps_DDRM.multTransA(x1, x1, g1);
        DMatrixRMaj inv = new DMatrixRMaj(d, d);
        assertTrue(CommonOps_DDRM.invert(g1, inv));
        DMatrixRMaj expected = new DMatrixRMaj(d, d);
        CommonOps_DDRM.mult(inv, inv, expected);
        DMatrixRMaj g2 = new DMatrixRMaj(d, d);
        CommonOps_DDRM.multTransA(x2, x2, g2);
        double err = 0;
        double norm = 0;
        for (int k = 0; k < d * d; k++) {
            err += Math.pow(g2.data[k] - expected.data[k], 2);
            norm += Math.pow(expected.data[k], 2);
        }
        // float32 storage of X: relative error ~1e-6 per entry, amplified by cond(X1ᵀX1)
        assertTrue(Math.sqrt(err / norm) < 1e-3, "relative error " + Math.sqrt(err / norm));
        // rank-deficient case (n1 < d) runs under the documented truncation
        RegressionData small = Synthetic.alignmentReversing(16, 12, 0.25, 0.5, 1e-2, 4);
        assertEquals(16, small.n());
        assertThrows(UserException.class, () -> Synthetic.alignmentReversing(10, 3, 0.01, 0.5, 0, 1));
    }

    @Test
    void oneDimensionalSubspaceReductionPreservesLoss() {
        double[] c = {0.5, -1.2, 2.0, 0.3, -0.7};
        double[] y = {1.0, -0.4, 2.2, 0.1, 0.0};
        int d = 7;
        RegressionData r = Synthetic.oneDimensionalSubspace(c, y, d, 5);
        RegressionData one = Synthetic.reduceToSinglePoint(r);
        assertEquals(1, one.n());
        double ec2 = 0;
        double ecy = 0;
        double ey2 = 0;
        for (int i = 0; i < c.length; i++) {
            ec2 += c[i] * c[i] / c.length;
            ecy += c[i] * y[i] / c.length;
            ey2 += y[i] * y[i] / c.length;
        }
        double norm = 0;
        for (float v : one.x()) {
            norm += (double) v * v;
        }
        assertEquals(ec2, norm, 1e-5, "|x̄|² = E[c²]");
        assertEquals(Math.abs(ecy / Math.sqrt(ec2)), Math.abs(one.y()[0]), 1e-5);
        // MSE of any linear model w·x on the set = single-point loss + E[y²] − E[cy]²/E[c²]
        double constant = ey2 - ecy * ecy / ec2;
        java.util.SplittableRandom rng = new java.util.SplittableRandom(1);
        for (int trial = 0; trial < 3; trial++) {
            double[] w = new double[d];
            for (int j = 0; j < d; j++) {
                w[j] = rng.nextGaussian();
            }
            double mse = 0;
            for (int i = 0; i < r.n(); i++) {
                double f = 0;
                for (int j = 0; j < d; j++) {
                    f += w[j] * r.x()[i * d + j];
                }
                mse += (f - r.y()[i]) * (f - r.y()[i]) / r.n();
            }
            double f1 = 0;
            for (int j = 0; j < d; j++) {
                f1 += w[j] * one.x()[j];
            }
            double single = (f1 - one.y()[0]) * (f1 - one.y()[0]);
            assertEquals(mse, single + constant, 1e-5);
        }
        RegressionData notLine = Synthetic.randomPoints(4, d, 1);
        assertThrows(UserException.class, () -> Synthetic.reduceToSinglePoint(notLine));
    }

    @Test
    void randomPointsHaveUnitExpectedNorm() {
        int n = 2000;
        int d = 50;
        RegressionData r = Synthetic.randomPoints(n, d, 3);
        double sq = 0;
        for (float v : r.x()) {
            sq += (double) v * v;
        }
        // |x|² = (1/d)·χ²_d has mean 1, variance 2/d; the mean over n points has σ = √(2/(n d))
        assertEquals(1, sq / n, 5 * Math.sqrt(2.0 / (n * d)));
        double yy = 0;
        for (float y : r.y()) {
            yy += (double) y * y;
        }
        assertEquals(1, yy / n, 5 * Math.sqrt(2.0 / n));
    }

    @Test
    void reluTeacherLabelsAreBalanced() {
        RegressionData r = Synthetic.reluTeacherMedianLabels(400, 50, 1.0, 4, 7);
        int pos = 0;
        for (float y : r.y()) {
            assertTrue(y == 1f || y == -1f);
            pos += y > 0 ? 1 : 0;
        }
        assertEquals(200, pos);
        RegressionData train = r.rows(0, 200);
        RegressionData test = r.rows(200, 400);
        assertEquals(200, train.n());
        assertArrayEquals(Arrays.copyOfRange(r.x(), 200 * 50, 201 * 50), test.input(0));
    }

    private static double[] toDouble(float[] a) {
        double[] d = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            d[i] = a[i];
        }
        return d;
    }
}
