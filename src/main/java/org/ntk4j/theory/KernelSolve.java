package org.ntk4j.theory;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Arrays;
import org.ejml.data.DMatrixRMaj;
import org.ntk4j.natives.Lapack;

/**
 * The t = ∞ kernel regression coefficients α = (Θ + λI)⁻¹ Y of {@link KernelRegression} by an LU factorisation with
 * partial pivoting (LAPACK {@code dgetrf}/{@code dgetrs} from the MKL in libtorch_cpu, {@link Lapack#solve}, ~⅔N³ flops
 * on one native copy of Θ, 8·N² bytes) instead of EJML's single-threaded symmetric eigendecomposition (~9N³ in plain
 * Java: at N = 10,000 minutes instead of hours on two cores). Where MKL cannot be reached, the engine's LU inverse
 * (libtorch's {@code linalg_inv}, ~2N³, Θ, its factors and the inverse on the engine, 24·N² bytes) does it. The
 * predictions are then f(X*) = Θ(X*, X) α.
 *
 * <p>The result is accepted only when the relative residual ‖(Θ + λI)α − Y‖_F / ‖Y‖_F is at most {@link #TOLERANCE}:
 * then Θ + λI is nonsingular to working precision and α is the same as the spectral pseudo-inverse's (which drops
 * only eigenvalues below 10⁻¹²·λ_max). A kernel too ill-conditioned for that gives null, and the caller takes the
 * spectral path. On the engine path Θ is copied in row slabs of at most 256 MiB (no Java buffer of N² entries, so N² × 8
 * bytes may exceed 2 GiB).
 */
public final class KernelSolve {
    /** Largest relative residual ‖(Θ + λI)α − Y‖_F / ‖Y‖_F accepted. */
    public static final double TOLERANCE = 1e-6;

    private static final long SLAB_VALUES = 32L << 20;

    private KernelSolve() {}

    /**
     * α = (Θ + λI)⁻¹ Y (N×O) for the symmetric N×N {@code theta}, or null when the inverse does not solve the system to
     * {@link #TOLERANCE} (singular or too ill-conditioned Θ + λI, non-finite entries).
     */
    public static DMatrixRMaj coefficients(DMatrixRMaj theta, double ridge, DMatrixRMaj y) {
        return coefficients(theta, ridge, y, SLAB_VALUES);
    }

    /** {@link #coefficients(DMatrixRMaj, double, DMatrixRMaj)} copying Θ in slabs of at most {@code slab} values. */
    static DMatrixRMaj coefficients(DMatrixRMaj theta, double ridge, DMatrixRMaj y, long slab) {
        int n = theta.numRows;
        if (theta.numCols != n || y.numRows != n) {
            throw new IllegalArgumentException(
                    "theta " + theta.numRows + "x" + theta.numCols + " and targets with " + y.numRows + " rows");
        }
        DMatrixRMaj alpha = Lapack.solve(theta, ridge, y);
        if (alpha == null) {
            alpha = byInverse(theta, ridge, y, slab);
        }
        if (alpha == null) {
            return null;
        }
        DMatrixRMaj r = times(theta, alpha);
        double num = 0;
        double den = 0;
        for (int i = 0; i < r.data.length; i++) {
            double d = r.data[i] + ridge * alpha.data[i] - y.data[i];
            num += d * d;
            den += y.data[i] * y.data[i];
        }
        return Math.sqrt(num) <= TOLERANCE * Math.sqrt(den) ? alpha : null;
    }

    /** α by the engine's LU inverse (where MKL's LAPACK cannot be reached), or null when the engine refuses. */
    static DMatrixRMaj byInverse(DMatrixRMaj theta, double ridge, DMatrixRMaj y, long slab) {
        int n = theta.numRows;
        DMatrixRMaj alpha;
        try (NDManager mg = NDManager.newBaseManager(Device.cpu())) {
            NDArray a = mg.zeros(new Shape(n, n), DataType.FLOAT64);
            int rows = (int) Math.max(1, Math.min(n, slab / n));
            for (int s = 0; s < n; s += rows) {
                int k = Math.min(rows, n - s);
                double[] part = Arrays.copyOfRange(theta.data, s * n, (s + k) * n);
                for (int i = 0; i < k; i++) {
                    part[i * n + s + i] += ridge;
                }
                try (NDManager sm = mg.newSubManager()) {
                    a.set(new NDIndex(s + ":" + (s + k)), sm.create(part, new Shape(k, n)));
                }
            }
            NDArray inv = a.inverse();
            a.close();
            NDArray yy;
            try (NDArray tmp = mg.create(y.data, new Shape(n, y.numCols))) {
                yy = tmp.duplicate();
            }
            alpha = new DMatrixRMaj(n, y.numCols, true, inv.matMul(yy).toDoubleArray());
        } catch (ai.djl.engine.EngineException e) {
            return null;
        }
        return alpha;
    }

    /** A·B (float64) for A (rows×N) and B (N×O), on the engine over row slabs of A. */
    public static DMatrixRMaj times(DMatrixRMaj a, DMatrixRMaj b) {
        int rows = a.numRows;
        int cols = a.numCols;
        int o = b.numCols;
        double[] out = new double[Math.multiplyExact(rows, o)];
        try (NDManager mg = NDManager.newBaseManager(Device.cpu())) {
            NDArray bb;
            try (NDArray tmp = mg.create(b.data, new Shape(cols, o))) {
                bb = tmp.duplicate();
            }
            int step = (int) Math.max(1, Math.min(rows, SLAB_VALUES / Math.max(1, cols)));
            for (int s = 0; s < rows; s += step) {
                int k = Math.min(step, rows - s);
                try (NDManager sm = mg.newSubManager()) {
                    double[] part = Arrays.copyOfRange(a.data, s * cols, (s + k) * cols);
                    double[] p = sm.create(part, new Shape(k, cols)).matMul(bb).toDoubleArray();
                    System.arraycopy(p, 0, out, s * o, p.length);
                }
            }
        }
        return new DMatrixRMaj(rows, o, true, out);
    }
}
