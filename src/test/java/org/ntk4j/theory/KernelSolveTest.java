package org.ntk4j.theory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.junit.jupiter.api.Test;

/**
 * The LU solves of the t = ∞ regression (MKL's dgetrf/dgetrs and the engine's inverse) against the spectral pseudo-inverse of {@link KernelRegression}
 * (EJML's eigendecomposition): the same predictions where Θ + λI is nonsingular, and a refusal (null) where it is not.
 */
class KernelSolveTest {
    /** Θ = A Aᵀ / d for a Gaussian A (n×d): positive definite when d ≥ n, of rank d otherwise. */
    static DMatrixRMaj gram(int n, int d, long seed) {
        DMatrixRMaj a = KernelRegressionTest.random(n, d, seed);
        DMatrixRMaj k = new DMatrixRMaj(n, n);
        CommonOps_DDRM.multTransB(a, a, k);
        CommonOps_DDRM.scale(1.0 / d, k);
        return k;
    }

    static double maxAbs(DMatrixRMaj m) {
        double s = 0;
        for (double v : m.data) {
            s = Math.max(s, Math.abs(v));
        }
        return s;
    }

    /**
     * Train and test predictions equal the eigendecomposition's to 1e-8 of their size (float64; Θ's condition number
     * here is ~10³, so both solves carry errors near 1e-13), with ridge 0 and 0.1, and with Θ copied in slabs of 7
     * rows (a slab boundary inside the matrix, the ridge added on each slab's diagonal).
     */
    @Test
    void equalsTheSpectralPredictions() {
        int n = 120;
        int m = 30;
        DMatrixRMaj x = KernelRegressionTest.random(n + m, 400, 5);
        DMatrixRMaj all = new DMatrixRMaj(n + m, n + m);
        CommonOps_DDRM.multTransB(x, x, all);
        DMatrixRMaj k = CommonOps_DDRM.extract(all, 0, n, 0, n);
        DMatrixRMaj kt = CommonOps_DDRM.extract(all, n, n + m, 0, n);
        DMatrixRMaj y = KernelRegressionTest.random(n, 3, 6);
        for (double ridge : new double[] {0, 0.1}) {
            for (long slab : new long[] {7L * n, Long.MAX_VALUE / 2}) {
                DMatrixRMaj kr = k.copy();
                for (int i = 0; i < n; i++) {
                    kr.add(i, i, ridge);
                }
                KernelRegression reg = new KernelRegression(kr);
                DMatrixRMaj lu = KernelSolve.coefficients(k, ridge, y, slab);
                DMatrixRMaj inverse = KernelSolve.byInverse(k, ridge, y, slab);
                assertNotNull(lu, "ridge " + ridge);
                assertNotNull(inverse, "ridge " + ridge);
                for (DMatrixRMaj alpha : new DMatrixRMaj[] {lu, inverse}) {
                    for (DMatrixRMaj rows : new DMatrixRMaj[] {k, kt}) {
                        DMatrixRMaj want = reg.testPrediction(rows, y, null, null, 1, Double.POSITIVE_INFINITY);
                        DMatrixRMaj got = KernelSolve.times(rows, alpha);
                        double scale = maxAbs(want);
                        for (int i = 0; i < want.data.length; i++) {
                            assertEquals(want.data[i], got.data[i], 1e-8 * scale, "ridge " + ridge + ", entry " + i);
                        }
                    }
                }
            }
        }
    }

    /** A rank-10 Θ of 60 points with ridge 0 cannot be solved for Gaussian targets: null, not a wrong α. */
    @Test
    void refusesASingularKernel() {
        DMatrixRMaj k = gram(60, 10, 7);
        DMatrixRMaj y = KernelRegressionTest.random(60, 2, 8);
        assertNull(KernelSolve.coefficients(k, 0, y));
        assertNotNull(KernelSolve.coefficients(k, 0.5, y), "the same kernel with a ridge is solvable");
    }
}
