package org.ntk4j.kernel;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import org.ntk4j.kernel.factor.Mode;

/**
 * A float32 kernel in a file mapped from disk ({@link KernelPlacement#DISK}), for kernels larger than memory: each
 * block is copied to the host as it comes (the mirror image transposed in the engine first) and stored row by row
 * into the mapped file with bulk copies.
 */
final class MappedSink implements KernelSink {
    /** Bytes of a block read at once: DJL's buffers are int-indexed. */
    private static final long PIECE_BYTES = 1L << 28;

    private final int cols;
    private final Mode mode;
    private final int outputs;
    private final int inner;
    private final HostBytes host;
    private final KernelStore.Mapped store;

    MappedSink(int rows, int cols, Mode mode, int outputs, Path dir, HostBytes host) {
        this.cols = cols;
        this.mode = mode;
        this.outputs = outputs;
        this.inner = mode == Mode.TRACE ? 1 : mode == Mode.DIAGONAL ? outputs : outputs * outputs;
        this.host = host;
        this.store = new KernelStore.Mapped((long) rows * cols * inner, dir);
    }

    @Override
    public void add(NDArray block, Placement at) {
        NDArray b = EngineSink.widen(block, DataType.FLOAT32);
        if (at.direct()) {
            store(b, at.row(), at.col());
        }
        if (at.mirror()) {
            store(EngineSink.transpose(b, mode), at.mirrorRow(), at.mirrorCol());
        }
    }

    /** Stores block {@code b} (r, c[, ...]) at output (row, col), in row pieces of at most {@link #PIECE_BYTES}. */
    private void store(NDArray b, int row, int col) {
        long r = b.getShape().get(0);
        long c = b.getShape().get(1);
        long rowFloats = c * inner;
        long step = Math.max(1, PIECE_BYTES / (rowFloats * 4));
        for (long a0 = 0; a0 < r; a0 += step) {
            long a1 = Math.min(r, a0 + step);
            try (NDArray piece = b.get(new NDIndex("{}:{}", a0, a1));
                    NDArray moved = piece.toDevice(Device.cpu(), false)) {
                host.add(piece);
                // contiguous host bytes (a contiguous copy first when the piece is a strided view)
                FloatBuffer f =
                        moved.toByteBuffer(true).order(ByteOrder.nativeOrder()).asFloatBuffer();
                for (long a = a0; a < a1; a++) {
                    int from = (int) ((a - a0) * rowFloats);
                    store.put(((row + a) * cols + col) * inner, f.slice(from, (int) rowFloats));
                }
            }
        }
    }

    @Override
    public KernelMatrix finish() {
        return KernelMatrix.mapped(store, mode, outputs, cols);
    }

    @Override
    public void abandon() {
        store.close();
    }
}
