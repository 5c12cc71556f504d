package org.ntk4j.natives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.junit.jupiter.api.Test;

/** LAPACK's dsyevd from libtorch's MKL against EJML, and against the definition A V = V diag(s), VᵀV = I. */
class LapackTest {
    /** A random symmetric n×n matrix of rank {@code rank} (B Bᵀ) plus a symmetric perturbation of scale eps. */
    private static DMatrixRMaj matrix(int n, int rank, double eps, long seed) {
        Random r = new Random(seed);
        DMatrixRMaj b = new DMatrixRMaj(n, rank);
        for (int i = 0; i < b.data.length; i++) {
            b.data[i] = r.nextGaussian();
        }
        DMatrixRMaj a = new DMatrixRMaj(n, n);
        CommonOps_DDRM.multTransB(b, b, a);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j <= i; j++) {
                double e = eps * r.nextGaussian();
                a.add(i, j, e);
                if (i != j) {
                    a.add(j, i, e);
                }
            }
        }
        return a;
    }

    @Test
    void mklIsReachedOnLinux() {
        if (com.sun.jna.Platform.isLinux() && System.getenv("NTK4J_LAPACK") == null) {
            assertEquals("mkl dsyevd (libtorch_cpu)", Lapack.provider());
        }
    }

    /**
     * A small decomposition runs on this thread alone and leaves MKL's thread-local setting as it found it: the engine's
     * GEMMs on this thread use the same setting, and would otherwise stay single-threaded.
     */
    @Test
    void aSmallDecompositionRestoresTheThreadSetting() {
        if (!Lapack.provider().startsWith("mkl")) {
            return; // EJML: no MKL threads to set
        }
        com.sun.jna.Function local = com.sun.jna.NativeLibrary.getInstance(
                        OneDnn.loaded("libtorch_cpu").orElseThrow().toString())
                .getFunction("MKL_Set_Num_Threads_Local");
        int outer = local.invokeInt(new Object[] {3});
        try {
            Lapack.symmetric(matrix(Lapack.SINGLE_THREAD_BELOW - 1, 8, 1e-3, 5));
            assertEquals(3, local.invokeInt(new Object[] {3}), "the setting before the call, restored");
            local.invokeInt(new Object[] {0});
            Lapack.symmetric(matrix(64, 8, 1e-3, 6));
            assertEquals(0, local.invokeInt(new Object[] {0}), "the global setting, restored");
        } finally {
            local.invokeInt(new Object[] {outer});
        }
    }

    @Test
    void equalsEjmlAndTheDefinition() {
        for (int[] c : new int[][] {{1, 1}, {2, 2}, {7, 3}, {64, 64}, {300, 120}}) {
            int n = c[0];
            DMatrixRMaj a = matrix(n, c[1], 1e-3, n);
            DMatrixRMaj before = a.copy();
            Lapack.Eigen l = Lapack.symmetric(a);
            Lapack.Eigen e = Lapack.ejml(a);
            assertTrue(before.equals(a) || java.util.Arrays.equals(before.data, a.data), "input untouched");
            double max = Math.abs(e.values()[n - 1]);
            for (int i = 0; i < n; i++) {
                // eigenvalues of a symmetric matrix are perfectly conditioned: |δs| ≤ ‖δA‖₂ ~ n·ε·‖A‖
                assertEquals(e.values()[i], l.values()[i], 1e-10 * max, "eigenvalue " + i + " of " + n);
                if (i > 0) {
                    assertTrue(l.values()[i] >= l.values()[i - 1], "ascending");
                }
            }
            DMatrixRMaj av = new DMatrixRMaj(n, n);
            CommonOps_DDRM.mult(a, l.vectors(), av);
            DMatrixRMaj vtv = new DMatrixRMaj(n, n);
            CommonOps_DDRM.multTransA(l.vectors(), l.vectors(), vtv);
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    assertEquals(l.vectors().get(i, j) * l.values()[j], av.get(i, j), 1e-10 * max, "A v = s v");
                    assertEquals(i == j ? 1 : 0, vtv.get(i, j), 1e-10, "orthonormal");
                }
            }
        }
    }

    /** A non-symmetric A (so the row/column-major transposition is exercised) with a ridge: (A + λI) X = B. */
    @Test
    void luSolvesANonSymmetricSystem() {
        if (!Lapack.provider().startsWith("mkl")) {
            return;
        }
        int n = 50;
        Random r = new Random(3);
        DMatrixRMaj a = new DMatrixRMaj(n, n);
        for (int i = 0; i < a.data.length; i++) {
            a.data[i] = r.nextGaussian();
        }
        DMatrixRMaj b = new DMatrixRMaj(n, 3);
        for (int i = 0; i < b.data.length; i++) {
            b.data[i] = r.nextGaussian();
        }
        DMatrixRMaj x = Lapack.solve(a, 2.5, b);
        DMatrixRMaj ar = a.copy();
        for (int i = 0; i < n; i++) {
            ar.add(i, i, 2.5);
        }
        DMatrixRMaj want = new DMatrixRMaj(n, 3);
        CommonOps_DDRM.solve(ar, b, want);
        for (int i = 0; i < want.data.length; i++) {
            assertEquals(want.data[i], x.data[i], 1e-9 * (1 + Math.abs(want.data[i])), "entry " + i);
        }
        assertEquals(null, Lapack.solve(new DMatrixRMaj(3, 3), 0, new DMatrixRMaj(3, 1)), "exactly singular");
    }

    /** The provenance line follows whether the launcher's shim library is mapped into this process. */
    @Test
    void mklDispatchSaysWhetherTheShimIsLoaded() {
        String preload = System.getenv("LD_PRELOAD");
        boolean shim = preload != null && preload.contains("libntk4j_mkl_amd");
        assertEquals(shim ? "by instruction set (AMD shim)" : "as shipped", Lapack.mklDispatch());
    }

    @Test
    void nonFiniteEntriesAreRefused() {
        DMatrixRMaj a = matrix(4, 4, 0, 1);
        a.set(1, 2, Double.NaN);
        assertThrows(ArithmeticException.class, () -> Lapack.symmetric(a));
    }
}
