package org.ntk4j.approx;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Arrays;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ntk4j.UserException;
import org.ntk4j.natives.Lapack;
import org.ntk4j.theory.KernelSolve;

/**
 * A traced kernel held as features, never as the N×N matrix: train features F (N×r) and test features G (M×r) with
 * <pre>
 *   K(X, X) ≈ F Fᵀ,    K(X*, X) ≈ G Fᵀ
 * </pre>
 * (Nyström: F = C W^{+1/2} with C = K(X, L), W = K(L, L) for landmarks L; sketched tangent features: F = J S, the
 * per-sample gradients J projected by a random S). Every approximation of this package that is not a kernel of its
 * own ends here, so regression, the spectrum and the error report are written once.
 *
 * <p>Kernel regression (ridge λ ≥ 0, the t = ∞ predictor of {@code ntk4j regress}) works in r dimensions by the
 * push-through identity F Fᵀ (F Fᵀ + λI)⁺ = F (FᵀF + λI)⁺ Fᵀ:
 * <pre>
 *   f(X*) = G (FᵀF + λI)⁺ Fᵀ Y,     f(X) = F (FᵀF + λI)⁺ Fᵀ Y
 * </pre>
 * solved by the engine's LU inverse of the r×r matrix FᵀF + λI ({@link KernelSolve}; its residual checked, the
 * eigendecomposition's pseudo-inverse taken when it fails), and the nonzero eigenvalues of F Fᵀ are those of FᵀF (one
 * symmetric eigendecomposition, EJML, computed only for the spectrum or that fallback). FᵀF and FᵀY come from one pass
 * over F, F·B from a second, on the engine in float64 over row slabs, so the host holds the float32 features once and
 * the engine at most one slab of them.
 *
 * <p>The features are float32, row-major: row i of F is {@code train[i*r .. i*r + r)}. A producer (a sketch, Nyström)
 * hands over its arrays; this class does not copy them.
 */
public final class LowRankKernel {
    /** Rows per engine slab of the products over F and G. */
    static final int SLAB = 8192;
    /**
     * Bytes of one float64 slab at most: 16 MiB stays below the launcher's glibc mmap threshold (32 MiB), so each
     * slab reuses freed heap blocks instead of mapping and zero-filling fresh pages (at N = 20,000, r = 2000 the
     * conversions of 131 MB slabs took as long as the products).
     */
    static final long SLAB_BYTES = 16L << 20;
    /** Eigenvalues of FᵀF + λI at most this fraction of the largest are dropped (as in the exact regression). */
    public static final double RCOND = 1e-12;

    private final String method;
    private final int n;
    private final int m;
    private final int r;
    private final float[] train;
    private final float[] test;
    private double[] gramValues;
    private DMatrixRMaj gramVectors;

    /**
     * @param method the approximation, as {@link ApproxSpec#toString()} writes it (kept in outputs)
     * @param train F, N×r row-major float32
     * @param n N, the train rows
     * @param test G, M×r row-major float32; null without test rows
     * @param m M, the test rows (0 without)
     * @param rank r, the number of features per row
     */
    public LowRankKernel(String method, float[] train, int n, float[] test, int m, int rank) {
        if (rank < 1 || n < 1 || train.length != (long) n * rank) {
            throw new IllegalArgumentException(
                    "train features: " + train.length + " values for " + n + " rows of rank " + rank);
        }
        if (test == null ? m != 0 : test.length != (long) m * rank) {
            throw new IllegalArgumentException("test features: " + (test == null ? 0 : test.length) + " values for " + m
                    + " rows of rank " + rank);
        }
        this.method = method;
        this.n = n;
        this.m = m;
        this.r = rank;
        this.train = train;
        this.test = test;
    }

    /** From engine arrays F (N, r) and G (M, r) or null, copied to the host as float32. */
    public static LowRankKernel of(String method, NDArray train, NDArray test) {
        int n = (int) train.getShape().get(0);
        int rank = (int) train.getShape().get(1);
        float[] f = train.toType(DataType.FLOAT32, false).toFloatArray();
        float[] g = test == null ? null : test.toType(DataType.FLOAT32, false).toFloatArray();
        return new LowRankKernel(
                method, f, n, g, test == null ? 0 : (int) test.getShape().get(0), rank);
    }

    public String method() {
        return method;
    }

    /** r, the features per row. */
    public int rank() {
        return r;
    }

    /** N, the train rows. */
    public int trainRows() {
        return n;
    }

    /** M, the test rows (0 without). */
    public int testRows() {
        return m;
    }

    /** F, N×r row-major (the array itself, not a copy). */
    public float[] trainFeatures() {
        return train;
    }

    /** G, M×r row-major (the array itself), or null. */
    public float[] testFeatures() {
        return test;
    }

    /** Bytes of the features on the host. */
    public long bytes() {
        return 4L * r * (n + (long) m);
    }

    /**
     * The approximate train kernel on the given rows and columns, K̂[a, b] = F_a · F_b (float64, |rows|×|cols|
     * row-major): what the error report compares with the exact kernel on the same subset.
     */
    public double[] block(int[] rows, int[] cols) {
        double[] out = new double[rows.length * cols.length];
        for (int a = 0; a < rows.length; a++) {
            int ia = rows[a] * r;
            for (int b = 0; b < cols.length; b++) {
                int ib = cols[b] * r;
                double s = 0;
                for (int k = 0; k < r; k++) {
                    s += (double) train[ia + k] * train[ib + k];
                }
                out[a * cols.length + b] = s;
            }
        }
        return out;
    }

    /** The k leading eigenvalues of F Fᵀ (those of FᵀF), largest first; fewer when r &lt; k. */
    public double[] spectrum(int k) {
        decompose();
        double[] s = gramValues.clone();
        Arrays.sort(s);
        int take = Math.min(k, s.length);
        double[] out = new double[take];
        for (int i = 0; i < take; i++) {
            out[i] = Math.max(0, s[s.length - 1 - i]);
        }
        return out;
    }

    /** The trace of F Fᵀ, Σ_i ‖F_i‖². */
    public double trace() {
        double s = 0;
        for (float v : train) {
            s += (double) v * v;
        }
        return s;
    }

    /**
     * Kernel regression predictions at t = ∞ with ridge λ (the class comment's formula).
     *
     * @param y targets, N×O
     * @return train predictions (N×O) and test predictions (M×O, null without test rows)
     */
    public Predictions regress(DMatrixRMaj y, double ridge) {
        if (y.numRows != n) {
            throw new UserException("the targets have " + y.numRows + " rows but the kernel has " + n + " train rows");
        }
        if (!(ridge >= 0) || !Double.isFinite(ridge)) {
            throw new UserException("the ridge must be a finite number >= 0 (got " + ridge + ")");
        }
        DMatrixRMaj[] gy = gramAndTransposeTimes(y);
        DMatrixRMaj b = KernelSolve.coefficients(gy[0], ridge, gy[1]);
        if (b == null) {
            b = spectralCoefficients(gy[1], ridge);
        }
        return new Predictions(times(train, n, b), test == null ? null : times(test, m, b));
    }

    /**
     * B = (FᵀF + λI)⁺ FᵀY from the eigendecomposition of FᵀF, eigenvalues of FᵀF + λI at most {@link #RCOND} of the
     * largest dropped: the path for a Gram matrix the LU solve cannot solve to its tolerance.
     */
    private DMatrixRMaj spectralCoefficients(DMatrixRMaj fty, double ridge) {
        decompose();
        double max = 0;
        for (double s : gramValues) {
            max = Math.max(max, Math.abs(s + ridge));
        }
        double cut = RCOND * max;
        // B = V diag(1 / (s + λ)) Vᵀ Fᵀ Y
        DMatrixRMaj proj = new DMatrixRMaj(r, fty.numCols);
        CommonOps_DDRM.multTransA(gramVectors, fty, proj);
        for (int i = 0; i < r; i++) {
            double s = gramValues[i] + ridge;
            double g = Math.abs(s) <= cut ? 0 : 1 / s;
            for (int c = 0; c < fty.numCols; c++) {
                proj.set(i, c, proj.get(i, c) * g);
            }
        }
        DMatrixRMaj b = new DMatrixRMaj(r, fty.numCols);
        CommonOps_DDRM.mult(gramVectors, proj, b);
        return b;
    }

    /** Train and test predictions of {@link #regress}. */
    public record Predictions(DMatrixRMaj train, DMatrixRMaj test) {}

    /** Eigendecomposes FᵀF once (r×r, float64). */
    private void decompose() {
        if (gramValues != null) {
            return;
        }
        DMatrixRMaj g = gram();
        Lapack.Eigen eig = eigen(g, "feature Gram matrix", "features");
        gramValues = eig.values();
        gramVectors = eig.vectors();
    }

    /** The eigendecomposition of a symmetric {@code what}, a failure one line blaming non-finite {@code source}. */
    static Lapack.Eigen eigen(DMatrixRMaj a, String what, String source) {
        try {
            return Lapack.symmetric(a);
        } catch (ArithmeticException e) {
            throw new UserException("the eigendecomposition of the " + a.numRows + "×" + a.numCols + " " + what
                    + " failed (non-finite " + source + "?)");
        }
    }

    /** FᵀF in float64, r×r, summed over row slabs on the engine. */
    DMatrixRMaj gram() {
        try (NDManager mg = NDManager.newBaseManager(Device.cpu())) {
            NDArray acc = mg.zeros(new Shape(r, r), DataType.FLOAT64);
            int step = slabRows(r);
            for (int s = 0; s < n; s += step) {
                int rows = Math.min(step, n - s);
                try (NDManager sm = mg.newSubManager()) {
                    NDArray f = slab(sm, train, s, rows);
                    acc.addi(f.transpose().matMul(f));
                }
            }
            return new DMatrixRMaj(r, r, true, acc.toDoubleArray());
        }
    }

    /** FᵀF (r×r) and Fᵀ Y (r×O) in float64, from one pass over F's row slabs (each converted to float64 once). */
    private DMatrixRMaj[] gramAndTransposeTimes(DMatrixRMaj y) {
        int o = y.numCols;
        try (NDManager mg = NDManager.newBaseManager(Device.cpu())) {
            NDArray gram = mg.zeros(new Shape(r, r), DataType.FLOAT64);
            NDArray acc = mg.zeros(new Shape(r, o), DataType.FLOAT64);
            int step = slabRows(r);
            for (int s = 0; s < n; s += step) {
                int rows = Math.min(step, n - s);
                try (NDManager sm = mg.newSubManager()) {
                    NDArray f = slab(sm, train, s, rows);
                    NDArray ft = f.transpose();
                    gram.addi(ft.matMul(f));
                    double[] ys = Arrays.copyOfRange(y.data, s * o, (s + rows) * o);
                    acc.addi(ft.matMul(native64(sm, ys, new Shape(rows, o))));
                }
            }
            return new DMatrixRMaj[] {
                new DMatrixRMaj(r, r, true, gram.toDoubleArray()), new DMatrixRMaj(r, o, true, acc.toDoubleArray())
            };
        }
    }

    /** A·B for row-major float32 A (rows×r) and B (r×O), float64. */
    private DMatrixRMaj times(float[] a, int rows, DMatrixRMaj b) {
        return new DMatrixRMaj(rows, b.numCols, true, product(a, rows, r, b));
    }

    /**
     * A·B in float64 on the engine for a row-major float32 A (rows×cols) and B (cols×k), over row slabs of A; the
     * result row-major (rows×k).
     */
    static double[] product(float[] a, int rows, int cols, DMatrixRMaj b) {
        int o = b.numCols;
        double[] out = new double[Math.multiplyExact(rows, o)];
        try (NDManager mg = NDManager.newBaseManager(Device.cpu())) {
            NDArray bb = native64(mg, b.data, new Shape(cols, o));
            int step = slabRows(cols);
            for (int s = 0; s < rows; s += step) {
                int k = Math.min(step, rows - s);
                try (NDManager sm = mg.newSubManager()) {
                    double[] part = slab(sm, a, cols, s, k).matMul(bb).toDoubleArray();
                    System.arraycopy(part, 0, out, s * o, part.length);
                }
            }
        }
        return out;
    }

    /** Rows of a slab of {@code cols} float64 columns: at most {@link #SLAB} and {@link #SLAB_BYTES}, at least one. */
    static int slabRows(int cols) {
        return (int) Math.max(1, Math.min(SLAB, SLAB_BYTES / (8L * Math.max(1, cols))));
    }

    /** A float64 engine array copied natively from Java values (no Java buffer stays aliased). */
    private static NDArray native64(NDManager mg, double[] values, Shape shape) {
        try (NDArray tmp = mg.create(values, shape)) {
            return tmp.duplicate();
        }
    }

    /** Rows [s, s + rows) of a row-major float32 matrix as a float64 engine array (its own native copy). */
    private NDArray slab(NDManager sm, float[] a, int s, int rows) {
        return slab(sm, a, r, s, rows);
    }

    /** Rows [s, s + rows) of a row-major float32 matrix of {@code cols} columns as a float64 engine array. */
    static NDArray slab(NDManager sm, float[] a, int cols, int s, int rows) {
        float[] part = Arrays.copyOfRange(a, s * cols, (s + rows) * cols);
        return sm.create(part, new Shape(rows, cols)).toType(DataType.FLOAT64, false);
    }
}
