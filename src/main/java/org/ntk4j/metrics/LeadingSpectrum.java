package org.ntk4j.metrics;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Arrays;
import java.util.Random;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.decomposition.TriangularSolver_DDRM;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.CholeskyDecomposition_F64;
import org.ntk4j.UserException;

/**
 * The k leading eigenpairs T v_i = λ_i v_i (λ_1 ≥ … ≥ λ_k) of a positive semi-definite traced kernel T (every
 * Θ(X, X) is one), by randomized subspace iteration (Halko, Martinsson &amp; Tropp, "Finding structure with
 * randomness", SIAM Review 53(2), 2011: Algorithm 4.4, with the Rayleigh–Ritz step of Algorithm 5.3 at every
 * iteration). With a Gaussian N × l start Ω, l = k + max(k, 16) columns,
 * <pre>
 *   Q₀ = orth(Ω),   Z_q = T Q_{q−1},   Q_{q−1}ᵀ Z_q = U Θ Uᵀ,   Q_q = orth(Z_q U)
 * </pre>
 * and the estimates are the Ritz pairs (θ_i, v_i = Q_{q−1} u_i) of the last step, whose residuals
 * ‖T v_i − θ_i v_i‖ = ‖Z_q u_i − θ_i v_i‖ come from the same product. The products T Q run on the engine over T's
 * slabs ({@link TracedKernel#times}); only l × l matrices (eigen-decomposed by LAPACK) and the N × k eigenvectors
 * reach the host. orth is column-scaled Cholesky QR applied twice (Yamamoto, Nakatsukasa, Yanagisawa &amp; Fukaya,
 * "Roundoff error analysis of the CholeskyQR2 algorithm", ETNA 44, 2015), with the shift of Fukaya et al.
 * ("Shifted Cholesky QR for computing the QR factorization of ill-conditioned matrices", SISC 42, 2020) when the Gram
 * matrix is numerically singular.
 *
 * <p>Where N ≥ {@value #KRYLOV_MIN_BLOCKS} l, the start is not a Gaussian basis but the l leading Ritz vectors of a
 * block Krylov space of blocks of b = max(k, 16) columns ({@link #krylov}): on the traced MLP NTKs of issue #21 it took
 * 8 products of 32 columns where the subspace iteration took 12-13 of 64, and the metrics of a 4,000-sample kernel
 * 11-39 % less time, of a 10,000-sample one 33-38 % (benchmarks/RESULTS.md, "The eigen-solve's block Krylov start").
 *
 * <p>The iteration stops when the backward error max_{i≤k} ‖T v_i − θ_i v_i‖ / θ_1 is at most the tolerance: each
 * (θ_i, v_i) is then an exact eigenpair of a kernel within tolerance·‖T‖₂ of T, and the Ritz values, which err by
 * about the squared residual over the gap to the next eigenvalue, are much closer than that. A float32 kernel is
 * iterated with float32 products until the backward error reaches the tolerance or stops falling (float32 rounding
 * puts a floor near 1e-7); the last step is then repeated with float64 products, so the reported eigenvalues and
 * residuals are float64 Rayleigh–Ritz values, and iteration continues in float64 while the tolerance is not met.
 */
public final class LeadingSpectrum {
    /** Default backward-error tolerance max_i ‖T v_i − θ_i v_i‖ / θ_1. */
    public static final double TOLERANCE = 2e-7;
    /** Default cap on the products T Q (passes over the kernel). */
    public static final int MAX_PASSES = 60;
    /** A step whose backward error is above this fraction of the previous one has stalled. */
    private static final double STALL = 0.9;
    /** The block Krylov start's basis holds at most this many times l columns. */
    static final int KRYLOV_BASIS = 4;
    /** The block Krylov start runs where N is at least this many times l (smaller kernels need few passes). */
    static final int KRYLOV_MIN_BLOCKS = 8;
    /** ... and where more passes than this are allowed (it takes two blocks before it can hand over). */
    private static final int KRYLOV_MIN_PASSES = 3;

    private final int n;
    private final double[] values;
    private final double[] vectors;
    private final double[] residuals;
    private final int passes;
    private final int block;
    private final boolean converged;

    private LeadingSpectrum(
            int n, double[] values, double[] vectors, double[] residuals, int passes, int block, boolean converged) {
        this.n = n;
        this.values = values;
        this.vectors = vectors;
        this.residuals = residuals;
        this.passes = passes;
        this.block = block;
        this.converged = converged;
    }

    /** The {@code k} leading eigenpairs with the default tolerance, pass cap and seed 0. */
    public static LeadingSpectrum of(TracedKernel t, int k) {
        return of(t, k, TOLERANCE, MAX_PASSES, 0);
    }

    /**
     * The {@code k} (at most N) leading eigenpairs of {@code t}, iterated until the backward error is at most
     * {@code tolerance} or {@code maxPasses} products T Q were taken; {@code seed} draws the Gaussian start.
     */
    public static LeadingSpectrum of(TracedKernel t, int k, double tolerance, int maxPasses, long seed) {
        return of(t, k, tolerance, maxPasses, seed, true);
    }

    /**
     * As {@link #of(TracedKernel, int, double, int, long)}; {@code krylov} false leaves out the block Krylov start
     * (the subspace iteration from a Gaussian basis alone, for comparison).
     */
    static LeadingSpectrum of(TracedKernel t, int k, double tolerance, int maxPasses, long seed, boolean krylov) {
        if (k < 1) {
            throw new UserException("eigenvalues: " + k + "; expected at least 1 leading eigenvalue");
        }
        if (!(tolerance > 0) || maxPasses < 1) {
            throw new IllegalArgumentException("tolerance " + tolerance + " and passes " + maxPasses + " must be > 0");
        }
        int n = t.size();
        k = Math.min(k, n);
        int l = basis(n, k);
        Random random = new Random(seed);
        try (NDManager m = t.manager().newSubManager()) {
            NDArray q;
            int start = 1;
            boolean float64 = !t.isFloat32();
            if (krylov && usesKrylov(n, l) && maxPasses > KRYLOV_MIN_PASSES) {
                // the block Krylov start; its float32 products end in the float64 step below (the same Q once more)
                WarmStart w = krylov(t, m, k, tolerance, maxPasses - 1, random);
                q = w.basis();
                start = w.passes() + 1;
                // converged: the float64 step confirms it; else the subspace iteration goes on in the kernel's
                // precision
                float64 = float64 || w.converged();
            } else {
                q = orthonormal(t, m, t.fromHost(m, gaussian(random, (long) n * l), new Shape(n, l)), random);
            }
            double previous = Double.POSITIVE_INFINITY;
            for (int products = start; ; products++) {
                try (NDScope scope = new NDScope()) {
                    Step s = step(t, q, float64);
                    double backward = s.estimatedBackwardError(k);
                    boolean done = backward <= tolerance;
                    if (float64 && (done || products >= maxPasses)) {
                        LeadingSpectrum out = s.result(t, m, q, k, products, l, tolerance);
                        if (out.converged() || products >= maxPasses) {
                            return out;
                        }
                        // the estimate passed, the direct residual did not: go on
                    } else if (!float64 && (done || products >= maxPasses)) {
                        float64 = true; // the same Q once more, with float64 products
                        continue;
                    }
                    // float32 rounding stops the fall near 1e-7: go on in float64
                    float64 = float64 || backward > STALL * previous;
                    previous = backward;
                    NDArray next = s.nextBasis(t, m, random);
                    q.close();
                    q = next;
                }
            }
        }
    }

    /** Columns b = max(k, 16) of a Krylov block (at most N). */
    private static int block(int n, int k) {
        return Math.min(n, Math.max(k, 16));
    }

    /** Columns l = k + b of the iterated subspace (at most N). */
    private static int basis(int n, int k) {
        return Math.min(n, k + block(n, k));
    }

    private static boolean usesKrylov(int n, int l) {
        return n >= KRYLOV_MIN_BLOCKS * l;
    }

    /**
     * The most N-long float64 columns the {@code k} leading eigenpairs hold at once: the subspace iteration's eight N × l
     * arrays (Q, Z, W and the temporaries of a step) and the N × k eigenvectors; with the block Krylov start, its Q and
     * TQ ({@value #KRYLOV_BASIS} l columns each), five blocks of temporaries and the l hand-over vectors, if more.
     */
    static long workingColumns(int n, int k) {
        k = Math.min(n, k);
        int b = block(n, k);
        int l = basis(n, k);
        long subspace = 8L * l + k;
        return usesKrylov(n, l) ? Math.max(subspace, 2L * Math.min(n, KRYLOV_BASIS * l) + 5L * b + l + k) : subspace;
    }

    /** λ_1 ≥ … ≥ λ_k. */
    public double[] eigenvalues() {
        return values.clone();
    }

    /** v_i (i from 0), unit norm. */
    public double[] eigenvector(int i) {
        int k = values.length;
        double[] v = new double[n];
        for (int r = 0; r < n; r++) {
            v[r] = vectors[r * k + i];
        }
        return v;
    }

    /** ‖T v_i − λ_i v_i‖₂ for each pair. */
    public double[] residuals() {
        return residuals.clone();
    }

    /** The backward error max_i ‖T v_i − λ_i v_i‖ / λ_1 (0 for a zero kernel). */
    public double backwardError() {
        double r = 0;
        for (double v : residuals) {
            r = Math.max(r, v);
        }
        return values[0] == 0 ? r == 0 ? 0 : Double.POSITIVE_INFINITY : r / Math.abs(values[0]);
    }

    /** Products T Q taken (passes over the kernel). */
    public int passes() {
        return passes;
    }

    /** Columns l of the iterated subspace. */
    public int block() {
        return block;
    }

    /** Whether the tolerance was met within the pass cap. */
    public boolean converged() {
        return converged;
    }

    /**
     * C(i) for i = 1..k: the fraction of ‖Y‖_F² in the span of the leading i eigenvectors, Σ_{j≤i} ‖v_jᵀY‖² / ‖Y‖_F²
     * (Canatar, Bordelon &amp; Pehlevan 2021, as {@link KernelSpectrum#cumulativeTargetPower}); Y is N × {@code outputs},
     * row-major.
     */
    public double[] cumulativeTargetPower(float[] y, int outputs) {
        if (y.length != (long) n * outputs) {
            throw new UserException(
                    "targets have " + y.length + " values; expected " + n + " samples × " + outputs + " outputs");
        }
        int k = values.length;
        double total = 0;
        for (float v : y) {
            total += (double) v * v;
        }
        double[] proj = new double[k * outputs];
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < k; i++) {
                double vi = vectors[r * k + i];
                for (int o = 0; o < outputs; o++) {
                    proj[i * outputs + o] += vi * y[r * outputs + o];
                }
            }
        }
        double[] c = new double[k];
        double acc = 0;
        for (int i = 0; i < k; i++) {
            for (int o = 0; o < outputs; o++) {
                acc += proj[i * outputs + o] * proj[i * outputs + o];
            }
            c[i] = total == 0 ? 0 : acc / total;
        }
        return c;
    }

    /**
     * One product Z = T Q and its Rayleigh–Ritz step: θ and U from QᵀZ = U Θ Uᵀ, the rotated product W = Z U (its
     * column i is T v_i for the Ritz vector v_i = Q u_i) and its squared column norms ‖T v_i‖².
     */
    private record Step(NDArray z, NDArray w, double[] theta, double[] u, double[] norms2) {
        /**
         * max_{i≤k} ‖T v_i − θ_i v_i‖ / θ_1 from ‖T v_i − θ_i v_i‖² = ‖T v_i‖² − θ_i² (v_i ⟂ the residual): free of a
         * pass, accurate while the residual is above ~1e-8 θ_1, which is all the stopping test needs; the reported
         * residuals are recomputed directly ({@link #result}).
         */
        double estimatedBackwardError(int k) {
            double r = 0;
            for (int i = 0; i < k; i++) {
                r = Math.max(r, Math.sqrt(Math.max(0, norms2[i] - theta[i] * theta[i])));
            }
            return theta[0] == 0 ? r == 0 ? 0 : Double.POSITIVE_INFINITY : r / Math.abs(theta[0]);
        }

        /** The k leading Ritz pairs with their residuals ‖T v_i − θ_i v_i‖ = ‖W_i − θ_i Q u_i‖ computed directly. */
        LeadingSpectrum result(TracedKernel t, NDManager m, NDArray q, int k, int passes, int block, double tolerance) {
            int l = theta.length;
            NDIndex lead = new NDIndex(":, 0:{}", k);
            NDArray ritz = q.matMul(t.fromHost(m, u, new Shape(l, l)).get(lead));
            NDArray th = t.fromHost(m, Arrays.copyOf(theta, k), new Shape(1, k));
            NDArray r = w.get(lead).sub(ritz.mul(th));
            double[] residuals = t.toHost(r.mul(r).sum(new int[] {0}).sqrt());
            double[] vectors = t.toHost(ritz);
            int n = Math.toIntExact(q.getShape().get(0));
            double worst = 0;
            for (double r0 : residuals) {
                worst = Math.max(worst, r0);
            }
            boolean converged = theta[0] == 0 ? worst == 0 : worst <= tolerance * Math.abs(theta[0]);
            return new LeadingSpectrum(n, Arrays.copyOf(theta, k), vectors, residuals, passes, block, converged);
        }

        /** Q_next = orth(W): W's columns scaled to unit norm (a vanished one replaced), then Cholesky QR. */
        NDArray nextBasis(TracedKernel t, NDManager m, Random random) {
            return orthonormal(t, m, w, norms2, random);
        }
    }

    /** The basis a block Krylov start hands over (N × l, orthonormal) and the products T Q it took. */
    private record WarmStart(NDArray basis, int passes, boolean converged) {}

    /**
     * A block Krylov start (Musco &amp; Musco, "Randomized block Krylov methods for stronger and faster approximate
     * singular value decomposition", NeurIPS 2015, Algorithm 2; Golub &amp; Van Loan, Matrix Computations, 4th ed.,
     * §10.3, block Lanczos without the three-term recurrence): from a Gaussian N × b block Q₁, the blocks Q_{j+1} =
     * orth(T Q_j − Σ_i Q_i Q_iᵀ T Q_j), each orthogonalised twice against all the earlier ones, and the Rayleigh–Ritz
     * pairs of the whole basis Q = [Q₁ … Q_j] from QᵀTQ, built a block at a time (only the new block's columns are
     * multiplied). Its error falls as the Chebyshev polynomials of the Krylov space allow,
     * exp(−2j√γ) for the relative gap γ between λ_k and λ_{b+1}, where the subspace iteration's falls as
     * (λ_{l+1}/λ_k)^j: on the traced MLP NTKs of issue #21 the 32 leading pairs reached the tolerance after 8 products of
     * 32 columns instead of 12 of 64. It stops when the estimated backward error (from ‖T v_i‖ = ‖(TQ) u_i‖, as {@link
     * Step#estimatedBackwardError}) is at most {@code tolerance} or the basis would exceed {@value #KRYLOV_BASIS} l
     * columns, and hands the l leading Ritz vectors to the subspace iteration, whose float64 step gives the reported
     * values and residuals. T Q is in the kernel's precision; everything else in float64. Q and TQ are kept as
     * rows (l·{@value #KRYLOV_BASIS} × N each), so a block is a contiguous row range.
     */
    private static WarmStart krylov(
            TracedKernel t, NDManager m, int k, double tolerance, int maxPasses, Random random) {
        int n = t.size();
        int b = block(n, k);
        int l = basis(n, k);
        int cap = Math.min(n, KRYLOV_BASIS * l);
        double[] bq = new double[cap * cap]; // QᵀTQ
        NDArray qRows = m.zeros(new Shape(cap, n), DataType.FLOAT64);
        NDArray zRows = m.zeros(new Shape(cap, n), DataType.FLOAT64);
        NDArray block = orthonormal(t, m, t.fromHost(m, gaussian(random, (long) n * b), new Shape(n, b)), random);
        int cols = 0;
        int passes = 0;
        while (true) {
            try (NDScope scope = new NDScope()) {
                int w = Math.toIntExact(block.getShape().get(1));
                NDArray z = t.times(block, !t.isFloat32());
                passes++;
                NDIndex rows = new NDIndex("{}:{}", cols, cols + w);
                qRows.set(rows, block.transpose());
                zRows.set(rows, z.transpose());
                int c1 = cols + w;
                NDArray q = qRows.get(new NDIndex("0:{}", c1));
                NDArray zz = zRows.get(new NDIndex("0:{}", c1));
                NDArray qz = q.matMul(z); // c1 × w: the new columns of QᵀTQ
                double[] newB = t.toHost(qz);
                for (int i = 0; i < c1; i++) {
                    for (int j = 0; j < w; j++) {
                        int c = cols + j;
                        // T is symmetric: QᵢᵀTQ_c = Q_cᵀTQᵢ; the new block's own w × w part is symmetrised
                        double vb = i >= cols ? 0.5 * (newB[i * w + j] + newB[c * w + (i - cols)]) : newB[i * w + j];
                        bq[i * cap + c] = vb;
                        bq[c * cap + i] = vb;
                    }
                }
                cols = c1;
                // fewer than l columns cannot be handed over: no Ritz step before then
                Ritz r = cols >= l ? ritz(t, m, bq, cap, cols, k, zz) : null;
                boolean full = cols + b > cap || passes >= maxPasses;
                if (r != null && (r.backwardError() <= tolerance || full)) {
                    // the l leading Ritz vectors Q u_i, i < l, as columns
                    NDArray lead = t.fromHost(m, leading(r.pairs().u(), cols, l), new Shape(cols, l));
                    NDArray basis = q.transpose().matMul(lead);
                    NDScope.unregister(basis);
                    block.close();
                    qRows.close();
                    zRows.close();
                    return new WarmStart(basis, passes, r.backwardError() <= tolerance);
                }
                // the next block: T Q_j less its parts along Q, twice (classical Gram–Schmidt, reorthogonalised)
                NDArray x = z.sub(q.transpose().matMul(qz));
                x = x.sub(q.transpose().matMul(q.matMul(x)));
                double[] norms2 = t.toHost(x.mul(x).sum(new int[] {0}));
                NDArray next = orthonormal(t, m, x, norms2, random);
                if (anyDead(norms2)) {
                    // a column T left in span Q was replaced by a Gaussian one: once more against Q
                    NDArray clean = next.sub(q.transpose().matMul(q.matMul(next)));
                    next.close();
                    next = orthonormal(t, m, clean, random);
                }
                block.close();
                block = next;
            }
        }
    }

    /** The Rayleigh–Ritz pairs of a Krylov basis (cols × cols) and their estimated backward error. */
    private record Ritz(Pairs pairs, double backwardError) {}

    /** Eigenpairs: θ descending, U (row-major) with u_i as column i. */
    private record Pairs(double[] theta, double[] u) {}

    /**
     * The Ritz pairs of the leading {@code cols} × {@code cols} of B = QᵀTQ (row stride {@code cap}), and the estimated
     * backward error max_{i<k} √(‖T v_i‖² − θ_i²) / θ_1 (as {@link Step#estimatedBackwardError}), ‖T v_i‖ = ‖(TQ) u_i‖
     * from the rows {@code zRows} of (TQ)ᵀ on the engine.
     */
    private static Ritz ritz(TracedKernel t, NDManager m, double[] bq, int cap, int cols, int k, NDArray zRows) {
        DMatrixRMaj bm = new DMatrixRMaj(cols, cols);
        for (int i = 0; i < cols; i++) {
            System.arraycopy(bq, i * cap, bm.data, i * cols, cols);
        }
        Pairs pairs = descending(bm);
        double[] theta = pairs.theta();
        double[] u = pairs.u();
        int kk = Math.min(k, cols);
        NDArray tv = zRows.transpose().matMul(t.fromHost(m, leading(u, cols, kk), new Shape(cols, kk)));
        double[] norms2 = t.toHost(tv.mul(tv).sum(new int[] {0}));
        double worst = 0;
        for (int i = 0; i < kk; i++) {
            worst = Math.max(worst, Math.sqrt(Math.max(0, norms2[i] - theta[i] * theta[i])));
        }
        double backward = theta[0] == 0 ? worst == 0 ? 0 : Double.POSITIVE_INFINITY : worst / Math.abs(theta[0]);
        return new Ritz(pairs, backward);
    }

    /**
     * The eigenpairs of a symmetric {@code cols} × {@code cols} matrix, θ descending and U row-major, by LAPACK's dsyevd
     * (EJML where libtorch carries no MKL; {@link org.ntk4j.natives.Lapack}).
     */
    private static Pairs descending(DMatrixRMaj b) {
        int cols = b.numRows;
        org.ntk4j.natives.Lapack.Eigen eig = org.ntk4j.natives.Lapack.symmetric(b);
        double[] theta = new double[cols];
        double[] u = new double[cols * cols];
        for (int c = 0; c < cols; c++) {
            int from = cols - 1 - c; // ascending to descending
            theta[c] = eig.values()[from];
            for (int r = 0; r < cols; r++) {
                u[r * cols + c] = eig.vectors().get(r, from);
            }
        }
        return new Pairs(theta, u);
    }

    /** The first {@code l} columns of a {@code cols} × {@code cols} row-major matrix. */
    private static double[] leading(double[] u, int cols, int l) {
        double[] out = new double[cols * l];
        for (int r = 0; r < cols; r++) {
            System.arraycopy(u, r * cols, out, r * l, l);
        }
        return out;
    }

    private static Step step(TracedKernel t, NDArray q, boolean float64) {
        int l = Math.toIntExact(q.getShape().get(1));
        NDManager m = q.getManager();
        NDArray z = t.times(q, float64);
        double[] b = t.toHost(q.transpose().matMul(z));
        DMatrixRMaj bm = new DMatrixRMaj(l, l);
        for (int i = 0; i < l; i++) {
            for (int j = 0; j < l; j++) {
                bm.set(i, j, 0.5 * (b[i * l + j] + b[j * l + i]));
            }
        }
        Pairs pairs = descending(bm);
        double[] theta = pairs.theta();
        double[] u = pairs.u();
        NDArray w = z.matMul(t.fromHost(m, u, new Shape(l, l)));
        double[] norms2 = t.toHost(w.mul(w).sum(new int[] {0}));
        return new Step(z, w, theta, u, norms2);
    }

    /** Orthonormal columns spanning those of W (N × l). */
    static NDArray orthonormal(TracedKernel t, NDManager m, NDArray w, Random random) {
        try (NDScope scope = new NDScope()) {
            double[] norms2 = t.toHost(w.mul(w).sum(new int[] {0}));
            NDArray q = orthonormal(t, m, w, norms2, random);
            NDScope.unregister(q);
            return q;
        }
    }

    /**
     * Orthonormal columns spanning those of W (N × l, squared column norms {@code norms2}): the columns scaled to
     * unit norm (one that T annihilated, T having rank below l, replaced by a Gaussian one), then Cholesky QR, repeated
     * while the Cholesky factor's diagonal shows a Gram matrix with κ ≥ 900 (which would leave more than ~1e-13 of
     * non-orthogonality), and shifted where the Gram matrix is numerically singular.
     */
    static NDArray orthonormal(TracedKernel t, NDManager m, NDArray w, double[] norms2, Random random) {
        int n = Math.toIntExact(w.getShape().get(0));
        int l = Math.toIntExact(w.getShape().get(1));
        try (NDScope scope = new NDScope()) {
            double max = Arrays.stream(norms2).max().orElse(0);
            boolean[] dead = new boolean[l];
            boolean any = false;
            double[] scale = new double[l];
            for (int j = 0; j < l; j++) {
                dead[j] = dead(norms2[j], max);
                any |= dead[j];
                scale[j] = dead[j] ? 0 : 1 / Math.sqrt(norms2[j]);
            }
            NDArray x = w.mul(t.fromHost(m, scale, new Shape(1, l)));
            if (any) {
                double[] fresh = new double[n * l];
                for (int r = 0; r < n; r++) {
                    for (int j = 0; j < l; j++) {
                        fresh[r * l + j] = dead[j] ? random.nextGaussian() / Math.sqrt(n) : 0;
                    }
                }
                x = x.add(t.fromHost(m, fresh, new Shape(n, l)));
            }
            for (int round = 0; ; round++) {
                if (round == 4) {
                    throw new IllegalStateException("Cholesky QR did not orthonormalise an N × " + l + " basis");
                }
                DMatrixRMaj g =
                        new DMatrixRMaj(l, l, true, t.toHost(x.transpose().matMul(x)));
                DMatrixRMaj lower = cholesky(g);
                // CholeskyQR leaves ~κ(G)·2⁻⁵³ of non-orthogonality; (max L_ii / min L_ii)² ≤ κ(G) flags a poor basis
                boolean again = lower == null || diagonalRatio(lower) > 30;
                if (lower == null) {
                    // Fukaya et al. 2020, eq. (4.2): s = 11 (N l + l (l + 1)) u ‖X‖₂², with ‖X‖₂² ≤ tr G
                    double s = 11.0 * ((double) n * l + (double) l * (l + 1)) * 0x1p-53 * CommonOps_DDRM.trace(g);
                    for (int i = 0; i < l; i++) {
                        g.add(i, i, s);
                    }
                    lower = cholesky(g);
                    if (lower == null) {
                        throw new IllegalStateException("shifted Cholesky QR failed on an N × " + l + " basis");
                    }
                }
                TriangularSolver_DDRM.invertLower(lower.data, l); // L⁻¹ in place; X L⁻ᵀ has orthonormal columns
                x = x.matMul(t.fromHost(m, CommonOps_DDRM.transpose(lower, null).getData(), new Shape(l, l)));
                if (!again) {
                    break;
                }
            }
            NDScope.unregister(x);
            return x;
        }
    }

    /** Whether a column of squared norm {@code norm2} vanished beside the largest, {@code max} ({@link #orthonormal}). */
    private static boolean dead(double norm2, double max) {
        return !(norm2 > 1e-28 * max);
    }

    /** Whether {@link #orthonormal} replaces any of these columns by a Gaussian one. */
    private static boolean anyDead(double[] norms2) {
        double max = Arrays.stream(norms2).max().orElse(0);
        return Arrays.stream(norms2).anyMatch(v -> dead(v, max));
    }

    private static double diagonalRatio(DMatrixRMaj lower) {
        double max = 0;
        double min = Double.POSITIVE_INFINITY;
        for (int i = 0; i < lower.numRows; i++) {
            max = Math.max(max, lower.get(i, i));
            min = Math.min(min, lower.get(i, i));
        }
        return max / min;
    }

    /** The lower Cholesky factor L of G = L Lᵀ, or null when G is not numerically positive definite. */
    private static DMatrixRMaj cholesky(DMatrixRMaj g) {
        CholeskyDecomposition_F64<DMatrixRMaj> chol = DecompositionFactory_DDRM.chol(g.numRows, true);
        DMatrixRMaj copy = g.copy();
        if (!chol.decompose(copy)) {
            return null;
        }
        DMatrixRMaj lower = chol.getT(null);
        for (int i = 0; i < lower.numRows; i++) {
            if (!(lower.get(i, i) > 0)) {
                return null;
            }
        }
        return lower;
    }

    private static double[] gaussian(Random random, long count) {
        double[] v = new double[Math.toIntExact(count)];
        for (int i = 0; i < v.length; i++) {
            v[i] = random.nextGaussian();
        }
        return v;
    }
}
