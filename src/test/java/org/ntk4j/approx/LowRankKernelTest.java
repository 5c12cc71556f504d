package org.ntk4j.approx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;
import java.util.Random;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.junit.jupiter.api.Test;
import org.ntk4j.theory.KernelRegression;

/**
 * Regression and spectrum in r dimensions against the N×N computation they replace (EJML, float64). Features are
 * float32 values, read exactly as float64 by both sides, so the two agree to the conditioning of the solve times
 * 1e-16; 1e-8 relative leaves room for it with ridge λ = 0.1 and the pseudo-inverse.
 */
class LowRankKernelTest {
    static float[] random(int rows, int cols, long seed) {
        Random r = new Random(seed);
        float[] f = new float[rows * cols];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) r.nextGaussian();
        }
        return f;
    }

    static DMatrixRMaj dense(float[] f, int rows, int cols) {
        DMatrixRMaj m = new DMatrixRMaj(rows, cols);
        for (int i = 0; i < f.length; i++) {
            m.data[i] = f[i];
        }
        return m;
    }

    @Test
    void regressionEqualsTheFullKernelRegression() {
        int n = 30;
        int mt = 7;
        int r = 6;
        float[] f = random(n, r, 1);
        float[] g = random(mt, r, 2);
        LowRankKernel k = new LowRankKernel("test", f, n, g, mt, r);
        DMatrixRMaj y = new DMatrixRMaj(n, 3);
        Random rng = new Random(3);
        for (int i = 0; i < n; i++) {
            y.set(i, rng.nextInt(3), 1);
        }
        DMatrixRMaj ff = dense(f, n, r);
        DMatrixRMaj gg = dense(g, mt, r);
        DMatrixRMaj kk = new DMatrixRMaj(n, n);
        CommonOps_DDRM.multTransB(ff, ff, kk);
        DMatrixRMaj kt = new DMatrixRMaj(mt, n);
        CommonOps_DDRM.multTransB(gg, ff, kt);
        for (double ridge : new double[] {0.1, 0}) {
            DMatrixRMaj kr = kk.copy();
            for (int i = 0; i < n; i++) {
                kr.add(i, i, ridge);
            }
            // the N×N reference: f(x*) = K(x*, X) (K + λI)⁺ Y, rank 6 so the pseudo-inverse drops 24 zero eigenvalues
            KernelRegression ref = new KernelRegression(kr, 1e-10);
            DMatrixRMaj want = ref.testPrediction(kt, y, null, null, 1, Double.POSITIVE_INFINITY);
            DMatrixRMaj wantTrain = ref.testPrediction(kk, y, null, null, 1, Double.POSITIVE_INFINITY);
            LowRankKernel.Predictions p = k.regress(y, ridge);
            double scale = CommonOps_DDRM.elementMaxAbs(want);
            for (int i = 0; i < want.getNumElements(); i++) {
                assertEquals(want.get(i), p.test().get(i), 1e-8 * scale, "ridge " + ridge + " test " + i);
            }
            for (int i = 0; i < wantTrain.getNumElements(); i++) {
                assertEquals(wantTrain.get(i), p.train().get(i), 1e-8 * scale, "ridge " + ridge + " train " + i);
            }
        }
        assertNull(new LowRankKernel("t", f, n, null, 0, r).regress(y, 0).test());
    }

    /**
     * Two equal feature columns make FᵀF singular (ridge 0): the predictions still equal the N×N pseudo-inverse's,
     * whichever of the LU solve and the spectral fallback answers (the null direction of FᵀF is also F's, so it cannot
     * change F·B).
     */
    @Test
    void singularGramGivesThePseudoInversePredictions() {
        int n = 30;
        int r = 6;
        float[] f = random(n, r, 5);
        for (int i = 0; i < n; i++) {
            f[i * r + 5] = f[i * r + 4];
        }
        DMatrixRMaj y = new DMatrixRMaj(n, 2);
        Random rng = new Random(6);
        for (int i = 0; i < y.data.length; i++) {
            y.data[i] = rng.nextGaussian();
        }
        DMatrixRMaj ff = dense(f, n, r);
        DMatrixRMaj kk = new DMatrixRMaj(n, n);
        CommonOps_DDRM.multTransB(ff, ff, kk);
        DMatrixRMaj want =
                new KernelRegression(kk, 1e-10).testPrediction(kk, y, null, null, 1, Double.POSITIVE_INFINITY);
        DMatrixRMaj got = new LowRankKernel("t", f, n, null, 0, r).regress(y, 0).train();
        double scale = CommonOps_DDRM.elementMaxAbs(want);
        for (int i = 0; i < want.getNumElements(); i++) {
            assertEquals(want.get(i), got.get(i), 1e-8 * scale, "train " + i);
        }
    }

    @Test
    void spectrumEqualsTheFullKernelsLeadingEigenvalues() {
        int n = 25;
        int r = 5;
        float[] f = random(n, r, 4);
        LowRankKernel k = new LowRankKernel("test", f, n, null, 0, r);
        DMatrixRMaj ff = dense(f, n, r);
        DMatrixRMaj kk = new DMatrixRMaj(n, n);
        CommonOps_DDRM.multTransB(ff, ff, kk);
        double[] all = new KernelRegression(kk).eigenvalues();
        Arrays.sort(all);
        double[] s = k.spectrum(3);
        assertEquals(3, s.length);
        for (int i = 0; i < 3; i++) {
            assertEquals(all[n - 1 - i], s[i], 1e-9 * all[n - 1]);
        }
        assertEquals(CommonOps_DDRM.trace(kk), k.trace(), 1e-9 * CommonOps_DDRM.trace(kk));
        assertEquals(r, k.spectrum(10).length);
    }
}
