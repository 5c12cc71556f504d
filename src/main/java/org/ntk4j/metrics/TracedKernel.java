package org.ntk4j.metrics;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import org.ntk4j.UserException;
import org.ntk4j.kernel.KernelMatrix;

/**
 * The traced kernel T(x_i, x_j) = Σ_o Θ(x_i, x_j)_oo of a square kernel Θ(X, X) (N × N traced, N × N × O diagonal
 * or N × N × O × O full), held by the engine on the kernel's device in row slabs, and the reductions the kernel
 * metrics are built from: one pass over T gives its trace, diagonal, row and column sums and ‖T‖_F²; a pass with a
 * thin N × k matrix R gives T R. Every slab is reduced in float64 (a float32 slab is widened one slab at a time), so
 * a reduction needs O(N·k) memory beyond the kernel, never an N × N copy; only O(N·k) numbers reach the host.
 *
 * <p>A traced kernel that is already an engine array is used in place (its slabs are views); a diagonal or full one
 * is traced once into float64 slabs (1/O or 1/O² of the kernel's entries), and the full kernel's off-diagonal output
 * blocks Σ_{k≠s} |Θ_ks| are summed on the way for {@link BlockStructure}. A kernel held on the host
 * ({@link KernelMatrix}, {@code double[][]}) is copied into engine slabs once, or, with {@link #streamed}, copied slab
 * by slab at every pass so that it needs one slab of extra memory.
 *
 * <p>A diagonal or full kernel is traced into one float64 N × N array made before the first slab, the held slabs its
 * row views, and its float64 temporaries are made and freed in blocks of {@link #TRACE_ENTRIES}, not a slab at a
 * time: glibc kept each slab's 32 MiB temporaries (just under the launcher's mmap threshold) cached without reusing
 * them for the next slab's, so that tracing a full kernel grew the process by some 150–250 MiB beyond its working set;
 * 4 MiB blocks are reused, with nothing to hand back to the system. The later passes keep nothing.
 */
public final class TracedKernel implements AutoCloseable {
    /** Entries of one row slab of the kernel (32 MiB as float64): the working set of one reduction step. */
    static final long SLAB_ENTRIES = 1L << 22;

    /**
     * Entries of a diagonal or full kernel traced at once (4 MiB as float64): the block of its float64 temporaries,
     * small enough that glibc reuses them block after block (a slab's 32 MiB it did not).
     */
    static final long TRACE_ENTRIES = 1L << 19;

    private final NDManager manager;
    private final int n;
    private final int outputs;
    private final int rank;
    private Slabs slabs;
    private final boolean float32;
    private double offDiagonalAbs = Double.NaN;
    private Moments moments;
    private double centredSquaredNorm = Double.NaN;
    private final List<HostProduct> pending = new ArrayList<>();
    private final List<HostProduct> products = new ArrayList<>();
    private long passes;
    private long hostBytes;

    /** A row slab of T: rows {@code r0 .. r0 + rows} by N columns. */
    @FunctionalInterface
    interface SlabVisitor {
        void visit(int r0, NDArray slab);
    }

    /** Where the slabs come from: held on the engine, or copied from the host at each pass. */
    private interface Slabs extends AutoCloseable {
        void forEach(SlabVisitor v);

        @Override
        void close();
    }

    /**
     * The sums one pass over T gives (float64).
     *
     * @param trace tr T = Σ_i T_ii
     * @param squaredNorm ‖T‖_F² = Σ_ij T_ij²
     * @param diagonal T_ii
     * @param rowSums (T 1)_i
     * @param columnSums (Tᵀ 1)_j
     */
    public record Moments(double trace, double squaredNorm, double[] diagonal, double[] rowSums, double[] columnSums) {}

    private TracedKernel(NDManager manager, int n, int outputs, int rank, boolean float32, Slabs slabs) {
        this.manager = manager;
        this.n = n;
        this.outputs = outputs;
        this.rank = rank;
        this.float32 = float32;
        this.slabs = slabs;
    }

    /**
     * The traced kernel of an engine array Θ(X, X) of shape (N, N), (N, N, O) or (N, N, O, O), float32 or float64,
     * on whatever device it is. A traced kernel is used in place: the caller keeps it open while this is used.
     */
    public static TracedKernel of(NDArray kernel) {
        Shape s = kernel.getShape();
        int rank = s.dimension();
        if (rank < 2 || rank > 4 || s.get(0) != s.get(1) || rank == 4 && s.get(2) != s.get(3)) {
            throw new UserException("kernel: shape " + s + "; expected a square kernel Θ(X, X) of shape (N, N),"
                    + " (N, N, O) or (N, N, O, O)");
        }
        DataType type = kernel.getDataType();
        if (type != DataType.FLOAT32 && type != DataType.FLOAT64) {
            throw new UserException("kernel: data type " + type + "; expected float32 or float64");
        }
        int n = Math.toIntExact(s.get(0));
        int outputs = rank == 2 ? 1 : Math.toIntExact(s.get(2));
        int rows = rowsPerSlab(n, rank == 2 ? 1 : rank == 3 ? outputs : (long) outputs * outputs);
        int[] start = new int[(n + rows - 1) / rows + 1];
        for (int i = 0; i < start.length; i++) {
            start[i] = Math.min(n, i * rows);
        }
        List<NDArray> held = new ArrayList<>();
        TracedKernel t = new TracedKernel(
                kernel.getManager().newSubManager(),
                n,
                outputs,
                rank,
                rank == 2 && type == DataType.FLOAT32,
                new Held(held, start));
        try {
            if (rank == 2) {
                for (int i = 0; i < start.length - 1; i++) {
                    held.add(t.rowsOf(kernel, new NDIndex("{}:{}", start[i], start[i + 1])));
                }
                return t;
            }
            NDArray all = t.tracedMatrix();
            for (int i = 0; i < start.length - 1; i++) {
                held.add(t.rowsOf(all, new NDIndex("{}:{}", start[i], start[i + 1])));
            }
            double off = 0;
            for (int i = 0; i < start.length - 1; i++) {
                try (NDScope scope = new NDScope()) {
                    NDIndex slab = new NDIndex("{}:{}", start[i], start[i + 1]);
                    NDArray raw = kernel.get(t.manager, slab);
                    all.set(slab, t.trace(raw));
                    off += rank == 4 ? t.offDiagonal(raw) : 0;
                }
            }
            t.offDiagonalAbs = rank == 4 ? off : Double.NaN;
            return t;
        } catch (RuntimeException e) {
            t.close();
            throw e;
        }
    }

    /**
     * The traced kernel of a host kernel Θ(X, X) of any mode, copied into engine slabs on {@code manager}'s device
     * (a traced kernel in its own precision, a diagonal or full one traced into float64).
     */
    public static TracedKernel of(NDManager manager, KernelMatrix kernel) {
        TracedKernel t = streamed(manager, kernel);
        List<NDArray> held = new ArrayList<>();
        List<Integer> starts = new ArrayList<>();
        try {
            ((HostStream) t.slabs).forEachKept((r0, slab) -> {
                held.add(slab);
                starts.add(r0);
            });
        } catch (RuntimeException e) {
            held.forEach(NDArray::close);
            t.close();
            throw e;
        }
        starts.add(t.n);
        t.slabs = new Held(held, starts.stream().mapToInt(Integer::intValue).toArray());
        return t;
    }

    /**
     * The traced kernel of a host kernel that stays on the host: every pass copies it to the engine one slab at a
     * time ({@link #SLAB_ENTRIES} entries), so it needs one slab of engine memory, at the price of a copy per pass.
     */
    public static TracedKernel streamed(NDManager manager, KernelMatrix kernel) {
        if (kernel.rows() != kernel.cols()) {
            throw new UserException("kernel: " + kernel.rows() + " x " + kernel.cols() + " samples; expected a"
                    + " square kernel of the samples with themselves");
        }
        int rank = kernel.shape().length;
        int outputs = rank == 2 ? 1 : kernel.outputs();
        TracedKernel t = new TracedKernel(
                manager.newSubManager(), kernel.rows(), outputs, rank, rank == 2 && !kernel.isFloat64(), null);
        t.slabs = t.new HostStream(kernel);
        return t;
    }

    /** The traced kernel of a host N × N matrix, copied into float64 slabs on {@code manager}'s device. */
    public static TracedKernel of(NDManager manager, double[][] kernel) {
        int n = checkSquare(kernel);
        int rows = rowsPerSlab(n, 1);
        int[] start = new int[(n + rows - 1) / rows + 1];
        for (int i = 0; i < start.length; i++) {
            start[i] = Math.min(n, i * rows);
        }
        List<NDArray> held = new ArrayList<>();
        TracedKernel t = new TracedKernel(manager.newSubManager(), n, 1, 2, false, new Held(held, start));
        try {
            for (int i = 0; i < start.length - 1; i++) {
                double[] flat = new double[(start[i + 1] - start[i]) * n];
                for (int r = start[i]; r < start[i + 1]; r++) {
                    System.arraycopy(kernel[r], 0, flat, (r - start[i]) * n, n);
                }
                held.add(t.fromHost(t.manager, flat, new Shape(start[i + 1] - start[i], n)));
            }
            return t;
        } catch (RuntimeException e) {
            t.close();
            throw e;
        }
    }

    /**
     * The traced kernel of a host full kernel {@code kernel[i][j][k][s]} (N × N × O × O, validated by the caller),
     * copied to {@code manager}'s device and traced into float64 slabs, its off-diagonal blocks summed.
     */
    public static TracedKernel of(NDManager manager, double[][][][] kernel) {
        int n = kernel.length;
        int o = kernel[0][0].length;
        double[] flat = new double[Math.multiplyExact(Math.multiplyExact(n, n), o * o)];
        int p = 0;
        for (double[][][] row : kernel) {
            for (double[][] block : row) {
                for (double[] line : block) {
                    System.arraycopy(line, 0, flat, p, o);
                    p += o;
                }
            }
        }
        try (NDArray full = owned(manager, flat, new Shape(n, n, o, o))) {
            TracedKernel t = of(full); // its slabs are traced copies: the full array may close
            t.hostBytes += 8L * flat.length;
            return t;
        }
    }

    /** Number of samples N. */
    public int size() {
        return n;
    }

    /** Outputs O of the kernel this was traced from (1 for a traced kernel). */
    public int outputs() {
        return outputs;
    }

    /** Whether T was traced from a full kernel (N × N × O × O), whose off-diagonal blocks are then known. */
    public boolean isFull() {
        return rank == 4;
    }

    /** Σ_{i,j} Σ_{k≠s} |Θ(x_i, x_j)_ks| of a full kernel; NaN for a traced or diagonal one. */
    public double offDiagonalAbsSum() {
        if (rank == 4 && Double.isNaN(offDiagonalAbs)) {
            moments(); // a streamed full kernel sums them on its first pass
        }
        return offDiagonalAbs;
    }

    /** The device of the slabs. */
    public Device device() {
        return manager.getDevice();
    }

    /** Passes over T so far (each reads every entry once). */
    public long passes() {
        return passes;
    }

    /**
     * Bytes copied between the host and the engine so far: the copy of a host kernel, and the O(N·k) inputs and
     * results of the reductions (a kernel already on the engine adds none of its N² entries).
     */
    public long hostBytes() {
        return hostBytes;
    }

    /**
     * Trace, squared Frobenius norm, diagonal, row and column sums, from one pass (cached; taken on the way by the
     * first float64 pass, whichever reduction makes it).
     */
    public Moments moments() {
        if (moments == null) {
            try (NDArray none = pass(null, true)) {
                // the moments, and any prefetched products, from one float64 pass
            }
        }
        return moments;
    }

    /** The moment sums of T accumulated slab by slab, from float64 slabs. */
    private final class MomentSums {
        private final double[] diagonal = new double[n];
        private final double[] rowSums = new double[n];
        private final NDArray columns = manager.zeros(new Shape(n), DataType.FLOAT64);
        private double squares;

        void add(int r0, NDArray d) {
            int rows = Math.toIntExact(d.getShape().get(0));
            System.arraycopy(
                    toHost(d.get(new NDIndex(":, {}:{}", r0, r0 + rows)).diagonal()), 0, diagonal, r0, rows);
            System.arraycopy(toHost(d.sum(new int[] {1})), 0, rowSums, r0, rows);
            NDArray flat = d.flatten();
            squares += scalar(flat.dot(flat));
            columns.addi(d.sum(new int[] {0}));
        }

        Moments done() {
            double[] columnSums = toHost(columns);
            double trace = 0;
            for (double v : diagonal) {
                trace += v;
            }
            return new Moments(trace, squares, diagonal, rowSums, columnSums);
        }
    }

    /**
     * ‖HTH‖_F² with H = I − 11ᵀ/N, from the moments: ‖T‖_F² − (‖T1‖² + ‖Tᵀ1‖²)/N + (1ᵀT1)²/N² (expand
     * tr(HTHTᵀ) with H² = H); where that cancels to below 1e-8 of ‖T‖_F² (a nearly constant kernel), by a second pass
     * that sums the centred entries T_ij − (T1)_i/N − (Tᵀ1)_j/N + 1ᵀT1/N² directly. Cached.
     */
    public double centredSquaredNorm() {
        if (!Double.isNaN(centredSquaredNorm)) {
            return centredSquaredNorm;
        }
        Moments mo = moments();
        double rr = 0;
        double cc = 0;
        double all = 0;
        for (int i = 0; i < n; i++) {
            rr += mo.rowSums()[i] * mo.rowSums()[i];
            cc += mo.columnSums()[i] * mo.columnSums()[i];
            all += mo.rowSums()[i];
        }
        double v = mo.squaredNorm() - (rr + cc) / n + all * all / ((double) n * n);
        if (v > 1e-8 * mo.squaredNorm()) {
            centredSquaredNorm = v;
            return v;
        }
        double grand = all / ((double) n * n);
        double[] columnMeans = new double[n];
        for (int j = 0; j < n; j++) {
            columnMeans[j] = mo.columnSums()[j] / n;
        }
        double[] sum = {0};
        try (NDManager m = manager.newSubManager()) {
            NDArray columns = fromHost(m, columnMeans, new Shape(1, n));
            forEach((r0, slab) -> {
                try (NDScope scope = new NDScope()) {
                    NDArray d = slab.toType(DataType.FLOAT64, false);
                    int rows = Math.toIntExact(d.getShape().get(0));
                    double[] rowTerms = new double[rows];
                    for (int r = 0; r < rows; r++) {
                        rowTerms[r] = mo.rowSums()[r0 + r] / n - grand;
                    }
                    NDArray c = d.sub(fromHost(m, rowTerms, new Shape(rows, 1))).sub(columns);
                    sum[0] += scalar(c.mul(c).sum());
                }
            });
        }
        centredSquaredNorm = sum[0];
        return sum[0];
    }

    /**
     * Asks for T R (R: N × {@code cols} float64, row-major, on the host) to be taken on the next float64 pass over T,
     * whichever reduction makes it, so that several metrics share one pass; {@link #timesHost} then returns it
     * without a pass of its own.
     */
    public void prefetch(double[] r, int cols) {
        if (product(r, cols) == null && pending.stream().noneMatch(p -> p.matches(r, cols))) {
            pending.add(new HostProduct(r, cols, null));
        }
    }

    /** T R for a host R (N × {@code cols} float64, row-major) as a host array: prefetched, or from a float64 pass. */
    public double[] timesHost(double[] r, int cols) {
        double[] done = product(r, cols);
        if (done == null) {
            prefetch(r, cols);
            try (NDArray none = pass(null, true)) {
                done = product(r, cols);
            }
        }
        return done;
    }

    /**
     * T R for a thin matrix R (N × k, any floating type, on this kernel's device), as float64 owned by R's manager.
     * With {@code float64} false a float32 kernel is multiplied in float32 (the float64 result then carries float32
     * rounding, about 1e-7 of ‖T‖); otherwise every slab is widened to float64 first, and the pass also takes the
     * prefetched host products and, the first time, the moments.
     */
    public NDArray times(NDArray r, boolean float64) {
        if (r.getShape().dimension() != 2 || r.getShape().get(0) != n) {
            throw new IllegalArgumentException("R has shape " + r.getShape() + "; expected (" + n + ", k)");
        }
        return pass(r, float64);
    }

    /** One pass: T [R, prefetched] (R may be null), the prefetched part kept on the host. */
    private NDArray pass(NDArray r, boolean float64) {
        NDManager out = r == null ? manager : r.getManager();
        boolean single = float32 && !float64;
        List<HostProduct> riders = single ? List.of() : new ArrayList<>(pending);
        pending.removeAll(riders);
        int own = r == null ? 0 : Math.toIntExact(r.getShape().get(1));
        int extra = riders.stream().mapToInt(HostProduct::cols).sum();
        List<NDArray> parts = new ArrayList<>();
        try (NDScope outer = new NDScope()) {
            NDArray rr = r == null ? null : r.toType(single ? DataType.FLOAT32 : DataType.FLOAT64, false);
            if (extra > 0) {
                double[] joined = new double[n * extra];
                int c0 = 0;
                for (HostProduct p : riders) {
                    for (int i = 0; i < n; i++) {
                        System.arraycopy(p.r(), i * p.cols(), joined, i * extra + c0, p.cols());
                    }
                    c0 += p.cols();
                }
                NDArray more = fromHost(manager, joined, new Shape(n, extra));
                rr = rr == null ? more : rr.concat(more, 1);
            }
            NDArray rhs = rr;
            MomentSums sums = !single && moments == null ? new MomentSums() : null;
            forEach((r0, slab) -> {
                try (NDScope scope = new NDScope()) {
                    NDArray a = single ? slab : slab.toType(DataType.FLOAT64, false);
                    if (sums != null) {
                        sums.add(r0, a);
                    }
                    if (rhs != null) {
                        NDArray p = a.matMul(rhs).toType(DataType.FLOAT64, false);
                        NDScope.unregister(p);
                        p.attach(out);
                        parts.add(p);
                    }
                }
            });
            if (sums != null) {
                moments = sums.done();
            }
            if (rhs == null) {
                return null;
            }
            NDArray result = parts.size() == 1 ? parts.get(0) : NDArrays.concat(new NDList(parts), 0);
            if (parts.size() > 1) {
                parts.forEach(NDArray::close);
            }
            if (extra > 0) {
                double[] host = toHost(result.get(new NDIndex(":, {}:", own)));
                int c0 = 0;
                for (HostProduct p : riders) {
                    double[] z = new double[n * p.cols()];
                    for (int i = 0; i < n; i++) {
                        System.arraycopy(host, i * extra + c0, z, i * p.cols(), p.cols());
                    }
                    products.add(new HostProduct(p.r(), p.cols(), z));
                    c0 += p.cols();
                }
                NDArray mine = own == 0
                        ? null
                        : result.get(new NDIndex(":, 0:{}", own)).duplicate();
                result.close();
                result = mine;
            }
            if (result != null) {
                NDScope.unregister(result);
                result.attach(out);
            }
            return result;
        }
    }

    private double[] product(double[] r, int cols) {
        for (HostProduct p : products) {
            if (p.matches(r, cols)) {
                return p.product();
            }
        }
        return null;
    }

    /** A host R (N × cols, row-major) and, once taken, T R. */
    private record HostProduct(double[] r, int cols, double[] product) {
        boolean matches(double[] other, int c) {
            return cols == c && java.util.Arrays.equals(r, other);
        }
    }

    /** Whether T's slabs are float32 (a traced float32 kernel; everything else is float64). */
    public boolean isFloat32() {
        return float32;
    }

    /** T as a host N × N matrix (O(N²) host memory: for the exact spectrum on request). */
    public double[][] toHostMatrix() {
        double[][] out = new double[n][];
        forEach((r0, slab) -> {
            try (NDScope scope = new NDScope()) {
                double[] v = toHost(slab.toType(DataType.FLOAT64, false));
                int rows = v.length / n;
                for (int r = 0; r < rows; r++) {
                    out[r0 + r] = java.util.Arrays.copyOfRange(v, r * n, (r + 1) * n);
                }
            }
        });
        return out;
    }

    /** A float64 array of {@code shape} with {@code values} (row-major) on this kernel's device, owned by {@code m}. */
    NDArray fromHost(NDManager m, double[] values, Shape shape) {
        hostBytes += 8L * values.length;
        return owned(m, values, shape);
    }

    /** The values of an engine array as float64 on the host. */
    double[] toHost(NDArray a) {
        try (NDScope scope = new NDScope()) {
            double[] v = a.toType(DataType.FLOAT64, false).toDoubleArray();
            hostBytes += 8L * v.length;
            return v;
        }
    }

    double scalar(NDArray a) {
        return toHost(a)[0];
    }

    /**
     * The entries of the traced kernel that are not finite (NaN or ±∞), counted slab by slab on the engine in one
     * pass; a diagonal or full kernel's traced entry is non-finite where any of its O or O² entries is (a sum with a
     * NaN or an infinity is not finite).
     */
    public long nonFiniteEntries() {
        long[] count = {0};
        forEach((r0, slab) -> {
            try (NDScope scope = new NDScope()) {
                count[0] +=
                        slab.isNaN().logicalOr(slab.isInfinite()).countNonzero().getLong();
            }
        });
        return count[0];
    }

    /** The manager that owns the slabs (for the reductions' device arrays). */
    NDManager manager() {
        return manager;
    }

    void forEach(SlabVisitor v) {
        passes++;
        slabs.forEach(v);
    }

    @Override
    public void close() {
        slabs.close();
        manager.close();
    }

    /** Rows per slab so that a slab of {@code inner} entries per pair holds at most {@link #SLAB_ENTRIES}. */
    static int rowsPerSlab(int n, long inner) {
        return rowsPer(SLAB_ENTRIES, n, inner);
    }

    /** Rows (at least one) of N pairs of {@code inner} entries each that hold at most {@code entries}. */
    private static int rowsPer(long entries, int n, long inner) {
        return (int) Math.max(1, Math.min(n, entries / Math.max(1, (long) n * inner)));
    }

    /** An N × N float64 array in this kernel's manager, kept beyond any open scope: the traced slabs are its rows. */
    private NDArray tracedMatrix() {
        NDArray all = manager.create(new Shape(n, n), DataType.FLOAT64);
        NDScope.unregister(all);
        return all;
    }

    /** Rows {@code rows} of {@code a} as a view owned by this kernel's manager, kept beyond any open scope. */
    private NDArray rowsOf(NDArray a, NDIndex rows) {
        NDArray view = a.get(manager, rows);
        NDScope.unregister(view);
        return view;
    }

    /** The traced s × N slab of a raw slab (s, N[, O[, O]]): itself when traced, else Σ_o Θ_oo in float64. */
    private NDArray trace(NDArray raw) {
        if (rank == 2) {
            return raw;
        }
        long rows = raw.getShape().get(0);
        int block = rowsPer(TRACE_ENTRIES, n, rank == 3 ? outputs : (long) outputs * outputs);
        if (rows <= block) {
            return traceBlock(raw);
        }
        NDArray traced = raw.getManager().create(new Shape(rows, n), DataType.FLOAT64);
        for (long r0 = 0; r0 < rows; r0 += block) {
            try (NDScope scope = new NDScope()) {
                NDIndex part = new NDIndex("{}:{}", r0, Math.min(rows, r0 + block));
                traced.set(part, traceBlock(raw.get(part)));
            }
        }
        return traced;
    }

    /** Σ_o Θ_oo of a diagonal or full raw block, in float64. */
    private NDArray traceBlock(NDArray raw) {
        return rank == 3
                ? raw.toType(DataType.FLOAT64, false).sum(new int[] {2})
                : raw.diagonal(0, 2, 3).toType(DataType.FLOAT64, false).sum(new int[] {2});
    }

    /**
     * Σ |Θ_ks|, k ≠ s, over a full raw slab (s, N, O, O), in float64 (masked, so exact zeros stay zero), block by
     * block of {@link #TRACE_ENTRIES}.
     */
    private double offDiagonal(NDArray raw) {
        if (outputs == 1) {
            return 0;
        }
        long rows = raw.getShape().get(0);
        int block = rowsPer(TRACE_ENTRIES, n, (long) outputs * outputs);
        double sum = 0;
        try (NDScope scope = new NDScope()) {
            NDArray mask = manager.ones(new Shape(outputs, outputs), DataType.FLOAT64)
                    .sub(manager.eye(outputs, outputs, 0, DataType.FLOAT64));
            for (long r0 = 0; r0 < rows; r0 += block) {
                try (NDScope inner = new NDScope()) {
                    NDArray part = raw.get(new NDIndex("{}:{}", r0, Math.min(rows, r0 + block)));
                    sum += scalar(
                            part.toType(DataType.FLOAT64, false).abs().mul(mask).sum());
                }
            }
        }
        return sum;
    }

    private static int checkSquare(double[][] kernel) {
        if (kernel == null || kernel.length == 0) {
            throw new UserException("kernel: no samples; expected a square N x N traced kernel");
        }
        int n = kernel.length;
        for (int i = 0; i < n; i++) {
            if (kernel[i] == null || kernel[i].length != n) {
                throw new UserException("kernel: row " + i + " has " + (kernel[i] == null ? 0 : kernel[i].length)
                        + " entries for " + n + " rows; expected a square N x N traced kernel");
            }
        }
        return n;
    }

    /** {@code f} applied to the traced kernel of a host N × N matrix, on a CPU manager of its own. */
    static <R> R onHost(double[][] kernel, java.util.function.Function<TracedKernel, R> f) {
        try (NDManager m = NDManager.newBaseManager(Device.cpu());
                TracedKernel t = of(m, kernel)) {
            return f.apply(t);
        }
    }

    /** {@code f} applied to the traced kernel of a host kernel of any mode, on a CPU manager of its own. */
    static <R> R onHost(KernelMatrix kernel, java.util.function.Function<TracedKernel, R> f) {
        try (NDManager m = NDManager.newBaseManager(Device.cpu());
                TracedKernel t = of(m, kernel)) {
            return f.apply(t);
        }
    }

    /** An engine array with its own native memory (not aliasing a Java buffer), owned by {@code m}. */
    static NDArray owned(NDManager m, double[] values, Shape shape) {
        try (NDArray tmp = m.create(values, shape)) {
            return tmp.duplicate();
        }
    }

    /**
     * Slabs copied from a host kernel at every pass: its entries stream through one direct buffer of
     * {@link #SLAB_ENTRIES} entries into engine arrays (on the CPU the array maps the buffer, on a GPU it is copied),
     * are traced, visited and released. A full kernel's off-diagonal blocks are summed on the first pass.
     */
    private final class HostStream implements Slabs {
        private final KernelMatrix kernel;

        HostStream(KernelMatrix kernel) {
            this.kernel = kernel;
        }

        @Override
        public void forEach(SlabVisitor v) {
            stream(v, false);
        }

        /**
         * One pass whose traced slabs the visitor keeps, owned by the kernel's manager: a traced kernel's slabs each
         * get a buffer of their own (on the CPU the engine array maps it, so the host entries are copied once); a
         * diagonal or full kernel's are row views of one N × N float64 array that the slabs are traced into.
         */
        void forEachKept(SlabVisitor v) {
            stream(v, true);
        }

        private void stream(SlabVisitor v, boolean keep) {
            int bytes = kernel.isFloat64() ? 8 : 4;
            long rowBytes = (long) n * kernel.inner() * bytes;
            int rows = rowsPerSlab(n, kernel.inner());
            int capacity = Math.toIntExact(rows * rowBytes);
            ByteBuffer[] buf = {ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN)};
            DataType type = kernel.isFloat64() ? DataType.FLOAT64 : DataType.FLOAT32;
            boolean sumOff = rank == 4 && Double.isNaN(offDiagonalAbs);
            NDArray all = keep && rank != 2 ? tracedMatrix() : null;
            double[] off = {0};
            int[] row = {0};
            Runnable flush = () -> {
                int r = Math.toIntExact(buf[0].position() / rowBytes);
                if (r == 0) {
                    return;
                }
                buf[0].flip();
                long[] shape = rank == 2
                        ? new long[] {r, n}
                        : rank == 3 ? new long[] {r, n, outputs} : new long[] {r, n, outputs, outputs};
                try (NDManager tmp = manager.newSubManager();
                        NDScope scope = new NDScope()) {
                    NDArray raw = tmp.create(buf[0], new Shape(shape), type);
                    hostBytes += buf[0].limit();
                    off[0] += sumOff ? offDiagonal(raw) : 0;
                    NDArray traced = trace(raw);
                    if (all != null) {
                        NDIndex slab = new NDIndex("{}:{}", row[0], row[0] + r);
                        all.set(slab, traced);
                        traced = rowsOf(all, slab);
                    } else if (keep) {
                        NDScope.unregister(traced);
                        traced.attach(manager);
                        // the array maps this buffer: the next slab gets a new one
                        buf[0] = ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
                    }
                    v.visit(row[0], traced);
                }
                row[0] += r;
                buf[0].clear();
            };
            WritableByteChannel channel = new WritableByteChannel() {
                @Override
                public int write(ByteBuffer src) {
                    int written = src.remaining();
                    while (src.hasRemaining()) {
                        int take = Math.min(src.remaining(), buf[0].remaining());
                        ByteBuffer part = src.slice();
                        part.limit(take);
                        buf[0].put(part);
                        src.position(src.position() + take);
                        if (!buf[0].hasRemaining()) {
                            flush.run();
                        }
                    }
                    return written;
                }

                @Override
                public boolean isOpen() {
                    return true;
                }

                @Override
                public void close() {}
            };
            try {
                kernel.writeTo(channel);
            } catch (IOException e) {
                throw new UncheckedIOException("reading the kernel for its metrics", e);
            }
            flush.run();
            if (sumOff) {
                offDiagonalAbs = off[0];
            }
        }

        @Override
        public void close() {}
    }

    /** Slabs held on the engine. */
    private record Held(List<NDArray> slabs, int[] start) implements Slabs {
        @Override
        public void forEach(SlabVisitor v) {
            for (int i = 0; i < slabs.size(); i++) {
                v.visit(start[i], slabs.get(i));
            }
        }

        @Override
        public void close() {
            slabs.forEach(NDArray::close);
        }
    }
}
