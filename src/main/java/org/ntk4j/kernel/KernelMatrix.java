package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.Arrays;
import org.ntk4j.kernel.factor.Mode;

/**
 * A kernel, row-major with shape (N1, N2) for TRACE, (N1, N2, O) for DIAGONAL and (N1, N2, O, O) for FULL; float32
 * or float64 entries held in the engine (as the engine computed it: {@link #array()}, read on the host through
 * direct buffers), in a Java array, or in a float32 file mapped from disk. Entry access ({@link #get}) reads the host
 * copy in place; {@link #release()} frees the storage (engine memory is also freed once the matrix is unreachable).
 */
public final class KernelMatrix {
    private final int n1;
    private final int n2;
    private final int inner;
    private final Mode mode;
    private final int outputs;
    private final KernelStore store;

    /** A kernel held in a Java array. */
    public KernelMatrix(int n1, int n2, Mode mode, int outputs, boolean float64) {
        this(n1, n2, mode, outputs, float64, null);
    }

    /**
     * A kernel held in a Java array, or — when {@code spillDir} is given — in a float32 file mapped
     * from {@code spillDir} (for kernels larger than the heap; float64 accumulation is then not offered).
     */
    public KernelMatrix(int n1, int n2, Mode mode, int outputs, boolean float64, java.nio.file.Path spillDir) {
        this.n1 = n1;
        this.n2 = n2;
        this.mode = mode;
        this.outputs = outputs;
        this.inner = mode == Mode.TRACE ? 1 : mode == Mode.DIAGONAL ? outputs : outputs * outputs;
        long len = (long) n1 * n2 * inner;
        if (spillDir != null) {
            this.store = new KernelStore.Mapped(len, spillDir);
        } else {
            if (len > Integer.MAX_VALUE - 8) {
                throw new org.ntk4j.UserException("kernel of " + len + " entries exceeds one Java array; raise --memory"
                        + " so it streams to disk, use --mode trace, or fewer samples");
            }
            this.store = KernelStore.heap(len, float64);
        }
    }

    private KernelMatrix(int n1, int n2, Mode mode, int outputs, KernelStore store) {
        this.n1 = n1;
        this.n2 = n2;
        this.mode = mode;
        this.outputs = outputs;
        this.inner = mode == Mode.TRACE ? 1 : mode == Mode.DIAGONAL ? outputs : outputs * outputs;
        this.store = store;
    }

    /**
     * The kernel {@code array} (N1, N2[, O[, O]]) held in the engine, float32 or float64, on any device; {@code
     * owner} owns it and is closed by {@link #release()}. Its host slabs are made now: views on the CPU, one copy
     * from another device.
     */
    static KernelMatrix engine(NDArray array, Mode mode, int outputs, NDManager owner) {
        var s = array.getShape();
        return new KernelMatrix((int) s.get(0), (int) s.get(1), mode, outputs, new KernelStore.Engine(array, owner));
    }

    /**
     * A kernel held in the engine from a copy of {@code array} (N1, N2[, O[, O]], float32 or float64, any device),
     * owned by the matrix: for kernels computed elsewhere in the engine.
     */
    public static KernelMatrix of(NDArray array, Mode mode, int outputs) {
        NDManager owner = NDManager.newBaseManager(array.getDevice());
        NDArray copy = array.duplicate();
        copy.attach(owner);
        ai.djl.ndarray.NDScope.unregister(copy);
        return engine(copy, mode, outputs, owner);
    }

    /** A kernel in the mapped float32 {@code store}, N2 = {@code cols}. */
    static KernelMatrix mapped(KernelStore.Mapped store, Mode mode, int outputs, int cols) {
        long inner = mode == Mode.TRACE ? 1 : mode == Mode.DIAGONAL ? outputs : (long) outputs * outputs;
        return new KernelMatrix((int) (store.size() / (cols * inner)), cols, mode, outputs, store);
    }

    /** The engine shape of an N1 × N2 kernel of {@code mode}: (N1, N2), (N1, N2, O) or (N1, N2, O, O). */
    static Shape shapeOf(int n1, int n2, Mode mode, int outputs) {
        switch (mode) {
            case TRACE:
                return new Shape(n1, n2);
            case DIAGONAL:
                return new Shape(n1, n2, outputs);
            default:
                return new Shape(n1, n2, outputs, outputs);
        }
    }

    /**
     * The kernel in the engine, on the device it was computed on (N1, N2[, O[, O]]), for engine-side reductions; null
     * when it is held in a Java array or on disk. Valid until {@link #release()}; the caller must not close it.
     */
    public NDArray array() {
        return store instanceof KernelStore.Engine e ? e.array : null;
    }

    /** Whether the entries are held in the engine ({@link #array()} is not null). */
    public boolean inEngine() {
        return store instanceof KernelStore.Engine;
    }

    /** Bytes the host needs for a kernel of this shape. */
    public static long bytes(int n1, int n2, Mode mode, int outputs, boolean float64) {
        long inner = mode == Mode.TRACE ? 1 : mode == Mode.DIAGONAL ? outputs : (long) outputs * outputs;
        return (long) n1 * n2 * inner * (float64 ? 8 : 4);
    }

    /** Whether the entries live in a file on disk. */
    public boolean onDisk() {
        return store instanceof KernelStore.Mapped;
    }

    /** Releases the storage: an engine kernel's native memory, an on-disk kernel's file. */
    public void release() {
        store.close();
    }

    public int rows() {
        return n1;
    }

    public int cols() {
        return n2;
    }

    public Mode mode() {
        return mode;
    }

    public int outputs() {
        return outputs;
    }

    public boolean isFloat64() {
        return store.isFloat64();
    }

    /** Entries per (i, j) pair: 1, O or O². */
    public int inner() {
        return inner;
    }

    public long[] shape() {
        switch (mode) {
            case TRACE:
                return new long[] {n1, n2};
            case DIAGONAL:
                return new long[] {n1, n2, outputs};
            default:
                return new long[] {n1, n2, outputs, outputs};
        }
    }

    /** Entry k (0..inner-1) of pair (i, j). */
    public double get(int i, int j, int k) {
        return store.get(((long) i * n2 + j) * inner + k);
    }

    public double get(int i, int j) {
        return get(i, j, 0);
    }

    /**
     * Adds (or, with {@code transpose}, adds the transpose of) a block computed for rows r0.., cols
     * c0..: {@code block} is row-major (br, bc, inner) — or (bc, br, inner) transposed, in which case
     * the inner O×O axes are transposed too (Θ[j,i,p,o] = Θ[i,j,o,p]).
     */
    public void addBlock(int r0, int c0, int br, int bc, double[] block, boolean transpose) {
        addBlock(r0, c0, br, bc, i -> block[i], transpose);
    }

    /** As {@link #addBlock(int, int, int, int, double[], boolean)}, reading entry i of the block from {@code block}. */
    public void addBlock(
            int r0, int c0, int br, int bc, java.util.function.IntToDoubleFunction block, boolean transpose) {
        for (int a = 0; a < br; a++) {
            for (int b = 0; b < bc; b++) {
                int src = (a * bc + b) * inner;
                int i = transpose ? c0 + b : r0 + a;
                int j = transpose ? r0 + a : c0 + b;
                long dst = ((long) i * n2 + j) * inner;
                if (transpose && mode == Mode.FULL) {
                    for (int o = 0; o < outputs; o++) {
                        for (int p = 0; p < outputs; p++) {
                            add(dst + p * outputs + o, block.applyAsDouble(src + o * outputs + p));
                        }
                    }
                } else {
                    for (int k = 0; k < inner; k++) {
                        add(dst + k, block.applyAsDouble(src + k));
                    }
                }
            }
        }
    }

    private void add(long idx, double v) {
        store.add(idx, v);
    }

    /** Entry at flat index i (row-major over the shape). */
    public double at(long i) {
        return store.get(i);
    }

    /** Writes the entries little-endian in row-major order (float64 when {@link #isFloat64()}), in bulk. */
    public void writeTo(java.nio.channels.WritableByteChannel out) throws java.io.IOException {
        store.writeTo(out);
    }

    /** Number of entries. */
    public long size() {
        return store.size();
    }

    /** Bytes of the entries: {@link #size()} × 4, or × 8 in float64. */
    public long byteSize() {
        return size() * (isFloat64() ? 8 : 4);
    }

    /** Copy as float32 values (kernels of at most 2³¹ entries). */
    public float[] toFloatArray() {
        float[] out = new float[Math.toIntExact(size())];
        for (int i = 0; i < out.length; i++) {
            out[i] = (float) store.get(i);
        }
        return out;
    }

    /** Copy as float64 values (kernels of at most 2³¹ entries). */
    public double[] toDoubleArray() {
        double[] out = new double[Math.toIntExact(size())];
        for (int i = 0; i < out.length; i++) {
            out[i] = store.get(i);
        }
        return out;
    }

    /** The N1×N2 trace Σ_o Θ[i,j,o,o] of this kernel, whatever its mode. */
    public double[][] traced() {
        double[][] t = new double[n1][n2];
        for (int i = 0; i < n1; i++) {
            for (int j = 0; j < n2; j++) {
                double s = 0;
                for (int o = 0; o < (mode == Mode.TRACE ? 1 : outputs); o++) {
                    s += get(i, j, mode == Mode.FULL ? o * outputs + o : o);
                }
                t[i][j] = s;
            }
        }
        return t;
    }

    /** Largest |a−b| / max|b| over all entries: the relative error used to compare kernels. */
    public double relativeError(KernelMatrix ref) {
        if (ref.size() != size()) {
            throw new IllegalArgumentException(
                    "shape mismatch " + Arrays.toString(shape()) + " vs " + Arrays.toString(ref.shape()));
        }
        double maxDiff = 0;
        double maxRef = 0;
        for (long i = 0; i < size(); i++) {
            double a = at(i);
            double b = ref.at(i);
            maxDiff = Math.max(maxDiff, Math.abs(a - b));
            maxRef = Math.max(maxRef, Math.abs(b));
        }
        return maxRef == 0 ? maxDiff : maxDiff / maxRef;
    }
}
