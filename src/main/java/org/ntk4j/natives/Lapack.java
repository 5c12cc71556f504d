package org.ntk4j.natives;

import ai.djl.engine.Engine;
import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import java.nio.file.Path;
import java.util.Optional;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;

/**
 * The symmetric eigendecomposition A = V diag(s) Vᵀ of a float64 matrix by LAPACK's divide-and-conquer {@code dsyevd}
 * (Demmel, "Applied Numerical Linear Algebra", §5.3.3), taken from the MKL that libtorch's CPU library carries and
 * exports (the LAPACK libtorch's own {@code linalg_eigh} calls; DJL 0.35 binds no eigendecomposition), reached
 * through JNA like {@link OneDnn}. It runs on libtorch's threads: at m = 8,000 seconds where EJML's single-threaded
 * Java QR algorithm takes many minutes, which is what limited Nyström to a few thousand landmarks.
 *
 * <p>Below order {@value #SINGLE_THREAD_BELOW} it runs on the calling thread alone (MKL's thread-local setting, restored
 * after): its tridiagonal reduction is a sequence of n matrix-vector products, each a parallel region, and where the
 * engine's OpenMP workers sleep between regions (the launcher's choice when other processes keep cores busy) each
 * region pays a wake-up. On the 2-core benchmark machine ({@code benchmarks/metrics/lapack_threads.sh}, two runs) a
 * 256 × 256 decomposition took 3.2-3.3 ms on one thread against 11.5-23.5 ms on two sleeping workers and 2.5 ms on two
 * spinning ones (the launcher's choice on free cores); 384 × 384 7.6-12.4 against 33-41 and 5-11 ms. Below 512 one
 * thread loses at most ~2 ms to spinning workers and gains up to 30 ms over sleeping ones, which the kernel command's
 * metrics also meet when its output writer holds a core (benchmarks/RESULTS.md, "Small eigen-decompositions on one
 * thread").
 *
 * <p>When the symbol cannot be reached (not Linux, a libtorch without MKL), EJML's symmetric QR algorithm gives the
 * same decomposition (tested against each other to 1e-10 of the largest eigenvalue); {@link #provider()} says which.
 */
public final class Lapack {
    /** Below this order {@link #symmetric(DMatrixRMaj)} runs on the calling thread alone. */
    public static final int SINGLE_THREAD_BELOW = 512;

    private static final Object LOCK = new Object();
    private static final java.util.Map<String, Optional<Function>> FUNCTIONS = new java.util.HashMap<>();

    private Lapack() {}

    /**
     * The eigendecomposition of a symmetric matrix.
     *
     * @param values the eigenvalues, ascending
     * @param vectors the orthonormal eigenvectors as columns, in the order of {@code values}
     */
    public record Eigen(double[] values, DMatrixRMaj vectors) {}

    /**
     * How libtorch's MKL picks its kernels in this process, for provenance: "by instruction set (AMD shim)" when the
     * launcher preloaded {@code scripts/mkl_amd_cpu.c}'s library (AMD processors, {@code NTK4J_MKL_AMD}), else "as
     * shipped" (by CPU vendor).
     */
    public static String mklDispatch() {
        return OneDnn.loaded("libntk4j_mkl_amd").isPresent() ? "by instruction set (AMD shim)" : "as shipped";
    }

    /** "mkl dsyevd (libtorch_cpu)" or "ejml" (the fallback), for provenance. */
    public static String provider() {
        return function("dsyevd_").isPresent() ? "mkl dsyevd (libtorch_cpu)" : "ejml";
    }

    /**
     * The eigendecomposition of the symmetric {@code a} (only its lower triangle in row-major order, i.e. LAPACK's
     * upper triangle in column order, is read; {@code a} is not modified).
     *
     * @throws ArithmeticException when the decomposition fails (non-finite entries, no convergence)
     */
    public static Eigen symmetric(DMatrixRMaj a) {
        return symmetric(a, a.numRows < SINGLE_THREAD_BELOW ? 1 : 0);
    }

    /**
     * As {@link #symmetric(DMatrixRMaj)} on {@code threads} MKL threads (MKL's setting for the calling thread, restored
     * after; 0 leaves the engine's setting), for the comparison that chose {@link #SINGLE_THREAD_BELOW}
     * ({@code benchmarks/metrics/lapack_threads.sh}).
     */
    public static Eigen symmetric(DMatrixRMaj a, int threads) {
        int n = a.numRows;
        if (a.numCols != n) {
            throw new IllegalArgumentException("not square: " + a.numRows + "x" + a.numCols);
        }
        for (double v : a.data) {
            if (!Double.isFinite(v)) {
                throw new ArithmeticException("the " + n + "×" + n + " matrix has a non-finite entry");
            }
        }
        Optional<Function> f = function("dsyevd_");
        if (f.isEmpty() || n == 0) {
            return ejml(a);
        }
        Optional<Function> local = threads > 0 ? function("MKL_Set_Num_Threads_Local") : Optional.empty();
        int previous = local.isPresent() ? local.get().invokeInt(new Object[] {threads}) : 0;
        try {
            return dsyevd(f.get(), a);
        } finally {
            if (local.isPresent()) {
                local.get().invokeInt(new Object[] {previous}); // this thread's setting as it was (0: the global one)
            }
        }
    }

    /** EJML's symmetric QR algorithm, ascending like LAPACK. */
    static Eigen ejml(DMatrixRMaj a) {
        int n = a.numRows;
        EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(n, true, true);
        if (!eig.decompose(a.copy())) {
            throw new ArithmeticException("the eigendecomposition of a " + n + "×" + n + " matrix did not converge");
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(
                order,
                (p, q) -> Double.compare(
                        eig.getEigenvalue(p).getReal(), eig.getEigenvalue(q).getReal()));
        double[] values = new double[n];
        DMatrixRMaj vectors = new DMatrixRMaj(n, n);
        for (int c = 0; c < n; c++) {
            values[c] = eig.getEigenvalue(order[c]).getReal();
            DMatrixRMaj v = eig.getEigenVector(order[c]);
            double norm = Math.sqrt(CommonOps_DDRM.dot(v, v));
            for (int r = 0; r < n; r++) {
                vectors.set(r, c, norm == 0 ? 0 : v.get(r) / norm);
            }
        }
        return new Eigen(values, vectors);
    }

    /** LAPACK dsyevd('V', 'U', ...) on a column-major copy; LAPACK's column j is eigenvector j. */
    private static Eigen dsyevd(Function f, DMatrixRMaj a) {
        int n = a.numRows;
        long bytes = 8L * n * n;
        try (Memory m = new Memory(bytes);
                Memory w = new Memory(8L * n);
                Memory ints = new Memory(4L * 4);
                Memory query = new Memory(8);
                Memory iquery = new Memory(4);
                Memory jobz = chars("V");
                Memory uplo = chars("U")) {
            m.write(0, a.data, 0, n * n); // symmetric: row-major = column-major
            ints.setInt(0, n); // N, LDA
            ints.setInt(4, -1); // LWORK, LIWORK (query)
            ints.setInt(8, 0); // INFO
            f.invokeVoid(new Object[] {
                jobz, uplo, ints, m, ints, w, query, ints.share(4), iquery, ints.share(4), ints.share(8), 1L, 1L
            });
            check(ints.getInt(8), n);
            long lwork = (long) Math.ceil(query.getDouble(0));
            int liwork = iquery.getInt(0);
            if (lwork > Integer.MAX_VALUE) {
                throw new ArithmeticException("a " + n + "×" + n + " eigendecomposition needs too much workspace");
            }
            try (Memory work = new Memory(8L * lwork);
                    Memory iwork = new Memory(4L * Math.max(1, liwork));
                    Memory lw = new Memory(4);
                    Memory liw = new Memory(4)) {
                lw.setInt(0, (int) lwork);
                liw.setInt(0, liwork);
                f.invokeVoid(new Object[] {jobz, uplo, ints, m, ints, w, work, lw, iwork, liw, ints.share(8), 1L, 1L});
                check(ints.getInt(8), n);
            }
            double[] values = w.getDoubleArray(0, n);
            // column-major V read row-major is Vᵀ: row j holds eigenvector j
            double[] vt = m.getDoubleArray(0, n * n);
            DMatrixRMaj v = new DMatrixRMaj(n, n, true, vt);
            CommonOps_DDRM.transpose(v);
            return new Eigen(values, v);
        }
    }

    /**
     * X = (A + λI)⁻¹ B by LAPACK's LU factorisation with partial pivoting ({@code dgetrf} + {@code dgetrs}) on one
     * native copy of A (8·N² bytes, no inverse formed), or null when MKL cannot be reached here or A + λI is exactly
     * singular; the caller checks the residual.
     *
     * @param a N×N (row-major, not modified)
     * @param ridge λ added to the diagonal of the copy
     * @param b N×O right-hand sides (not modified)
     */
    public static DMatrixRMaj solve(DMatrixRMaj a, double ridge, DMatrixRMaj b) {
        Optional<Function> getrf = function("dgetrf_");
        Optional<Function> getrs = function("dgetrs_");
        int n = a.numRows;
        int o = b.numCols;
        if (getrf.isEmpty() || getrs.isEmpty() || n == 0 || a.numCols != n || b.numRows != n) {
            return null;
        }
        try (Memory m = new Memory(8L * n * n);
                Memory x = new Memory(8L * n * Math.max(1, o));
                Memory ipiv = new Memory(4L * n);
                Memory ints = new Memory(4L * 4);
                Memory trans = chars("T")) {
            // row-major A is column-major Aᵀ: factor Aᵀ and solve (Aᵀ)ᵀ X = B with TRANS = 'T'
            long slab = 1L << 22;
            for (long s = 0; s < (long) n * n; s += slab) {
                int k = (int) Math.min(slab, (long) n * n - s);
                m.write(8L * s, a.data, (int) s, k);
            }
            for (int i = 0; i < n; i++) {
                long at = 8L * ((long) i * n + i);
                m.setDouble(at, m.getDouble(at) + ridge);
            }
            double[] col = new double[n];
            for (int c = 0; c < o; c++) {
                for (int i = 0; i < n; i++) {
                    col[i] = b.data[i * o + c];
                }
                x.write(8L * c * n, col, 0, n);
            }
            ints.setInt(0, n); // N, M, LDA, LDB
            ints.setInt(4, o); // NRHS
            ints.setInt(8, 0); // INFO
            getrf.get().invokeVoid(new Object[] {ints, ints, m, ints, ipiv, ints.share(8)});
            if (ints.getInt(8) != 0) {
                return null; // < 0: an argument (a defect here); > 0: an exact zero pivot
            }
            getrs.get()
                    .invokeVoid(new Object[] {trans, ints, ints.share(4), m, ints, ipiv, x, ints, ints.share(8), 1L});
            if (ints.getInt(8) != 0) {
                return null;
            }
            DMatrixRMaj out = new DMatrixRMaj(n, o);
            for (int c = 0; c < o; c++) {
                x.read(8L * c * n, col, 0, n);
                for (int i = 0; i < n; i++) {
                    out.data[i * o + c] = col[i];
                }
            }
            return out;
        }
    }

    private static void check(int info, int n) {
        if (info != 0) {
            throw new ArithmeticException("LAPACK dsyevd failed on a " + n + "×" + n + " matrix (info " + info + ")");
        }
    }

    private static Memory chars(String s) {
        Memory m = new Memory(2);
        m.setByte(0, (byte) s.charAt(0));
        m.setByte(1, (byte) 0);
        return m;
    }

    private static Optional<Function> function(String name) {
        synchronized (LOCK) {
            return FUNCTIONS.computeIfAbsent(name, Lapack::lookup);
        }
    }

    private static Optional<Function> lookup(String name) {
        if (System.getenv("NTK4J_LAPACK") != null
                && System.getenv("NTK4J_LAPACK").equals("ejml")) {
            return Optional.empty();
        }
        if (!Platform.isLinux()) {
            return Optional.empty();
        }
        try {
            Engine.getInstance(); // libtorch must be mapped
            Optional<Path> lib = OneDnn.loaded("libtorch_cpu");
            if (lib.isEmpty()) {
                return Optional.empty();
            }
            NativeLibrary torch = NativeLibrary.getInstance(lib.get().toString());
            return Optional.of(torch.getFunction(name));
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            return Optional.empty();
        }
    }
}
