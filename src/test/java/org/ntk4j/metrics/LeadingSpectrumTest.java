package org.ntk4j.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.SplittableRandom;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.QRDecomposition;
import org.junit.jupiter.api.Test;

/**
 * The block Krylov start of {@link LeadingSpectrum} on kernels with a known spectrum: T = U diag(λ) Uᵀ with a random
 * orthogonal U. A Ritz value θ_i with residual r_i = ‖T v_i − θ_i v_i‖ lies within r_i of an eigenvalue of T (the
 * residual bound for symmetric matrices, Parlett, The Symmetric Eigenvalue Problem, ch. 4), and r_i ≤
 * {@link LeadingSpectrum#TOLERANCE}·λ₁ once converged, so |θ_i − λ_i| ≤ TOLERANCE·λ₁ is the bound asserted (the gaps
 * between these spectra's leading eigenvalues are far wider, so θ_i pairs with λ_i).
 */
class LeadingSpectrumTest {
    static final int N = 640;
    static final int K = 32;

    /** U diag(λ) Uᵀ for a Haar-like orthogonal U (the Q of a Gaussian matrix's QR). */
    static double[][] withSpectrum(double[] lambda, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        DMatrixRMaj g = new DMatrixRMaj(N, N);
        for (int i = 0; i < g.data.length; i++) {
            g.data[i] = r.nextGaussian();
        }
        QRDecomposition<DMatrixRMaj> qr = DecompositionFactory_DDRM.qr(N, N);
        assertTrue(qr.decompose(g));
        DMatrixRMaj u = qr.getQ(null, false);
        DMatrixRMaj ud = u.copy();
        for (int i = 0; i < N; i++) {
            for (int j = 0; j < N; j++) {
                ud.set(i, j, u.get(i, j) * (j < lambda.length ? lambda[j] : 0));
            }
        }
        DMatrixRMaj t = new DMatrixRMaj(N, N);
        CommonOps_DDRM.multTransB(ud, u, t);
        double[][] out = new double[N][N];
        for (int i = 0; i < N; i++) {
            for (int j = 0; j <= i; j++) {
                out[i][j] = 0.5 * (t.get(i, j) + t.get(j, i));
                out[j][i] = out[i][j];
            }
        }
        return out;
    }

    /** λ_i = i^−1.5 (i from 1): λ_65/λ_32 ≈ 0.35, the slow decay that made the subspace iteration take 12-13 passes. */
    static double[] powerLaw(int count) {
        double[] l = new double[count];
        for (int i = 0; i < count; i++) {
            l[i] = Math.pow(i + 1, -1.5);
        }
        return l;
    }

    static void assertWithin(double[] expected, LeadingSpectrum lead, String what) {
        assertTrue(lead.converged(), what + ": converged in " + lead.passes() + " passes, " + lead.backwardError());
        double[] got = lead.eigenvalues();
        assertEquals(K, got.length);
        for (int i = 0; i < K; i++) {
            assertEquals(expected[i], got[i], LeadingSpectrum.TOLERANCE * expected[0], what + " λ_" + (i + 1));
        }
    }

    @Test
    void theKrylovStartFindsTheSpectrumInFewerPassesThanTheSubspaceIteration() {
        double[] lambda = powerLaw(N);
        double[][] t = withSpectrum(lambda, 1);
        try (NDManager m = NDManager.newBaseManager();
                TracedKernel a = TracedKernel.of(m, t);
                TracedKernel b = TracedKernel.of(m, t)) {
            LeadingSpectrum krylov = LeadingSpectrum.of(a, K);
            LeadingSpectrum subspace =
                    LeadingSpectrum.of(b, K, LeadingSpectrum.TOLERANCE, LeadingSpectrum.MAX_PASSES, 0, false);
            assertWithin(lambda, krylov, "Krylov start");
            assertWithin(lambda, subspace, "subspace iteration");
            assertTrue(
                    krylov.passes() < subspace.passes(),
                    "Krylov " + krylov.passes() + " passes, subspace iteration " + subspace.passes());
        }
    }

    /** A float32 kernel: float32 Krylov products, then the float64 step that reports the values. */
    @Test
    void aFloat32KernelEndsInAFloat64Step() {
        double[] lambda = powerLaw(N);
        double[][] t = withSpectrum(lambda, 2);
        float[] flat = new float[N * N];
        double[][] rounded = new double[N][N];
        for (int i = 0; i < N; i++) {
            for (int j = 0; j < N; j++) {
                flat[i * N + j] = (float) t[i][j];
                rounded[i][j] = flat[i * N + j];
            }
        }
        double[] exact = KernelSpectrum.of(rounded).eigenvalues(); // of the kernel as float32 holds it
        try (NDManager m = NDManager.newBaseManager();
                NDArray k = m.create(flat, new Shape(N, N));
                TracedKernel tk = TracedKernel.of(k)) {
            assertTrue(tk.isFloat32());
            assertWithin(exact, LeadingSpectrum.of(tk, K), "float32");
        }
    }

    /**
     * A kernel of rank 40 below l = 64: the Krylov space is exhausted after two blocks, the columns T leaves in its
     * span are replaced by Gaussian ones, and the eigenvalues past the rank come out 0.
     */
    @Test
    void aLowRankKernelExhaustsTheKrylovSpace() {
        double[] lambda = powerLaw(40);
        double[][] t = withSpectrum(lambda, 3);
        try (NDManager m = NDManager.newBaseManager();
                TracedKernel tk = TracedKernel.of(m, t)) {
            LeadingSpectrum lead = LeadingSpectrum.of(tk, K);
            assertWithin(lambda, lead, "rank 40");
            try (TracedKernel all = TracedKernel.of(m, t)) {
                double[] more = LeadingSpectrum.of(all, 48).eigenvalues();
                for (int i = 40; i < 48; i++) {
                    assertEquals(0, more[i], LeadingSpectrum.TOLERANCE * lambda[0], "λ_" + (i + 1) + " past the rank");
                }
            }
        }
    }

    /**
     * A zero kernel (a network whose units are all dead): every Krylov direction vanishes and is replaced by a Gaussian
     * one, orthogonalised against the basis again; the 32 eigenvalues are 0 and their residuals too.
     */
    @Test
    void aZeroKernelGivesZeroEigenvalues() {
        try (NDManager m = NDManager.newBaseManager();
                TracedKernel tk = TracedKernel.of(m, new double[N][N])) {
            LeadingSpectrum lead = LeadingSpectrum.of(tk, K);
            assertTrue(lead.converged());
            for (int i = 0; i < K; i++) {
                assertEquals(0, lead.eigenvalues()[i], "λ_" + (i + 1));
                double[] v = lead.eigenvector(i);
                double norm = 0;
                for (double x : v) {
                    norm += x * x;
                }
                assertEquals(1, norm, 1e-12, "unit eigenvector " + (i + 1));
            }
            assertEquals(0, lead.backwardError());
        }
    }
}
