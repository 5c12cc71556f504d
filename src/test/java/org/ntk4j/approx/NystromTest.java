package org.ntk4j.approx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.Arrays;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.testing.TinyMlp;

/**
 * Nyström features against the exact traced kernel of a tiny MLP in float64.
 *
 * <p>Tolerances: the features are stored in float32 (relative rounding 6e-8 per entry), so F Fᵀ reproduces an exact
 * kernel to ~1e-7 relative; 1e-5 (relative to the largest entry) leaves room for the sums over ≤ 24 features and for
 * W^{+1/2}'s conditioning (the tiny kernel's eigenvalues span &lt; 10⁴), while a wrong landmark, a transposed block
 * or a missing square root is an O(1) error.
 */
class NystromTest {
    private static NDManager manager;

    @BeforeAll
    static void setUp() {
        manager = NDManager.newBaseManager();
    }

    @AfterAll
    static void tearDown() {
        manager.close();
    }

    static Network net() {
        return TinyMlp.TANH_16.build(manager, 42);
    }

    static NDArray inputs(int n, long seed) {
        return TinyMlp.inputs(manager, n, seed);
    }

    static double[] exact(Ntk ntk, NDArray x1, NDArray x2) {
        KernelResult k = ntk.compute(x1, x2);
        try {
            return k.total().toDoubleArray();
        } finally {
            k.release();
        }
    }

    static double maxAbs(double[] a) {
        return Arrays.stream(a).map(Math::abs).max().orElse(0);
    }

    @Test
    void allLandmarksGiveTheExactKernel() {
        try (Network net = net()) {
            int n = 20;
            int mt = 5;
            NDArray x = inputs(n, 1);
            NDArray xt = inputs(mt, 2);
            Ntk ntk = Ntk.of(net).mode(Mode.TRACE).float64();
            double[] k = exact(ntk, x, x);
            double[] kt = exact(ntk, xt, x);
            Nystrom.Result r = Nystrom.compute(ntk, x, xt, ApproxSpec.parse("nystrom:" + n), 7);
            assertEquals(n, r.landmarks().length);
            LowRankKernel f = r.kernel();
            int[] all = java.util.stream.IntStream.range(0, n).toArray();
            double[] approx = f.block(all, all);
            double scale = maxAbs(k);
            for (int i = 0; i < k.length; i++) {
                assertEquals(k[i], approx[i], 1e-5 * scale, "entry " + i);
            }
            // test rows: G Fᵀ = K(X*, X)
            float[] g = f.testFeatures();
            float[] tr = f.trainFeatures();
            for (int a = 0; a < mt; a++) {
                for (int b = 0; b < n; b++) {
                    double s = 0;
                    for (int j = 0; j < f.rank(); j++) {
                        s += (double) g[a * f.rank() + j] * tr[b * f.rank() + j];
                    }
                    assertEquals(kt[a * n + b], s, 1e-5 * scale, "test entry " + a + "," + b);
                }
            }
        }
    }

    @Test
    void fewerLandmarksAreExactOnTheirRowsAndBelowTheKernel() {
        try (Network net = net()) {
            int n = 24;
            NDArray x = inputs(n, 3);
            Ntk ntk = Ntk.of(net).mode(Mode.TRACE).float64();
            double[] k = exact(ntk, x, x);
            for (String variant : new String[] {"uniform", "leverage"}) {
                Nystrom.Result r = Nystrom.compute(ntk, x, null, ApproxSpec.parse("nystrom:6:" + variant), 11);
                int[] l = r.landmarks();
                assertEquals(6, Arrays.stream(l).distinct().count(), variant);
                assertTrue(Arrays.stream(l).allMatch(i -> i >= 0 && i < n), variant);
                int[] all = java.util.stream.IntStream.range(0, n).toArray();
                double[] approx = r.kernel().block(all, all);
                double scale = maxAbs(k);
                // C W⁺ Cᵀ reproduces the landmark rows: W⁺ W = I on W's range
                for (int a : l) {
                    for (int b = 0; b < n; b++) {
                        assertEquals(k[a * n + b], approx[a * n + b], 1e-5 * scale, variant + " row " + a);
                    }
                }
                // K − C W⁺ Cᵀ is a Schur complement: positive semi-definite, and not zero with 6 of 24 landmarks
                DMatrixRMaj d = new DMatrixRMaj(n, n);
                for (int i = 0; i < n * n; i++) {
                    d.data[i] = k[i] - approx[i];
                }
                EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(n, false, true);
                assertTrue(eig.decompose(d));
                double min = Double.POSITIVE_INFINITY;
                double max = 0;
                for (int i = 0; i < n; i++) {
                    min = Math.min(min, eig.getEigenvalue(i).getReal());
                    max = Math.max(max, eig.getEigenvalue(i).getReal());
                }
                assertTrue(min > -1e-5 * scale, variant + " residual eigenvalue " + min);
                assertTrue(max > 1e-3 * scale, variant + " residual too small: " + max);
            }
        }
    }

    @Test
    void uniformLandmarksAreSeededAndDistinct() {
        int[] a = Nystrom.uniform(100, 30, 5);
        assertArrayEquals(a, Nystrom.uniform(100, 30, 5));
        assertEquals(30, Arrays.stream(a).distinct().count());
        assertTrue(!Arrays.equals(a, Nystrom.uniform(100, 30, 6)));
        // weighted sampling never draws a zero weight while positive ones remain
        double[] w = new double[50];
        for (int i = 0; i < 50; i += 2) {
            w[i] = 1 + i;
        }
        assertTrue(Arrays.stream(Nystrom.weightedSample(w, 25, 3)).allMatch(i -> i % 2 == 0));
    }

    /**
     * The ridge leverage scores against their definition ℓ_i = Fᵢ (FᵀF + λI)⁻¹ Fᵢᵀ, λ = tr(FᵀF)/r, by EJML's inverse in
     * float64 (features stored in float32, the scores O(1): 1e-9 is far above float64 rounding and far below any
     * wrong term), and Σ ℓ_i = Σ s/(s + λ) ≤ r.
     */
    @Test
    void leverageScoresMatchTheirDefinition() {
        int n = 40;
        int r = 6;
        java.util.Random rng = new java.util.Random(11);
        float[] f = new float[n * r];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) (rng.nextGaussian() * (1 + i % r));
        }
        LowRankKernel k = new LowRankKernel("test", f, n, null, 0, r);
        double[] got = Nystrom.leverageScores(k);
        DMatrixRMaj fm = new DMatrixRMaj(n, r);
        for (int i = 0; i < f.length; i++) {
            fm.data[i] = f[i];
        }
        DMatrixRMaj g = new DMatrixRMaj(r, r);
        org.ejml.dense.row.CommonOps_DDRM.multTransA(fm, fm, g);
        double lambda = org.ejml.dense.row.CommonOps_DDRM.trace(g) / r;
        for (int i = 0; i < r; i++) {
            g.add(i, i, lambda);
        }
        org.ejml.dense.row.CommonOps_DDRM.invert(g);
        double total = 0;
        for (int i = 0; i < n; i++) {
            double want = 0;
            for (int a = 0; a < r; a++) {
                for (int b = 0; b < r; b++) {
                    want += fm.get(i, a) * g.get(a, b) * fm.get(i, b);
                }
            }
            assertEquals(want, got[i], 1e-9, "row " + i);
            total += got[i];
        }
        assertTrue(total > 0 && total <= r, "sum " + total);
    }
}
