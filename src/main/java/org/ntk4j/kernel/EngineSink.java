package org.ntk4j.kernel;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import org.ntk4j.kernel.factor.EngineOps;
import org.ntk4j.kernel.factor.Mode;

/**
 * A whole kernel held in the engine, (rows, cols[, O[, O]]), float32 or float64, on {@code device}: the compute
 * device ({@link KernelPlacement#DEVICE}: blocks are placed where they are computed and the kernel reaches the host
 * once, at {@link #finish()}) or the host ({@link KernelPlacement#HOST}: each block is copied there as it comes). A
 * block of a wider type than the network's (float64 accumulation) is widened on the compute device first.
 */
final class EngineSink implements KernelSink {
    private final Mode mode;
    private final int outputs;
    private final DataType type;
    private final Device device;
    private final boolean copyEachBlock;
    private final HostBytes host;
    private final NDManager owner;
    private final NDArray out;

    /**
     * @param copyEachBlock whether blocks are copied to {@code device} as they come (counted then) rather than
     *     placed where they are and counted once at {@link #finish()}
     */
    EngineSink(SinkShape shape, Device device, boolean copyEachBlock, HostBytes host) {
        int rows = shape.rows();
        int cols = shape.cols();
        this.mode = shape.mode();
        this.outputs = shape.outputs();
        this.type = shape.type();
        this.device = device;
        this.copyEachBlock = copyEachBlock;
        this.host = host;
        this.owner = NDManager.newBaseManager(device);
        NDArray z = owner.zeros(KernelMatrix.shapeOf(rows, cols, mode, outputs), type);
        NDScope.unregister(z); // made while a tile pair's scope may be open: it outlives the pair
        this.out = z;
    }

    @Override
    public void add(NDArray block, Placement at) {
        NDArray b = widen(block, type);
        if (at.direct()) {
            place(out, moved(b), at.row(), at.col());
        }
        if (at.mirror()) {
            place(out, moved(transpose(b, mode)), at.mirrorRow(), at.mirrorCol());
        }
    }

    /** b on this sink's device: a copy when it is elsewhere, counted when blocks are copied one by one. */
    private NDArray moved(NDArray b) {
        if (copyEachBlock) {
            host.add(b);
        }
        return b.getDevice().equals(device) ? b : b.toDevice(device, false);
    }

    @Override
    public KernelMatrix finish() {
        if (!copyEachBlock) {
            host.add(out); // the one copy to the host, made in slabs by the kernel's store
        }
        return KernelMatrix.engine(out, mode, outputs, owner);
    }

    @Override
    public void abandon() {
        owner.close();
    }

    /** {@code block} in {@code type} (a widening copy on its device when it is narrower). */
    static NDArray widen(NDArray block, DataType type) {
        return block.getDataType() == type ? block : block.toType(type, false);
    }

    /** Bᵀ: the sample axes swapped, and in a FULL kernel the output axes too (a view). */
    static NDArray transpose(NDArray b, Mode mode) {
        switch (mode) {
            case TRACE:
                return b.transpose(1, 0);
            case DIAGONAL:
                return b.transpose(1, 0, 2);
            default:
                return b.transpose(1, 0, 3, 2);
        }
    }

    /** out[row : row + b.rows, col : col + b.cols] = b, one slice assignment in the engine. */
    static void place(NDArray out, NDArray b, int row, int col) {
        long r = b.getShape().get(0);
        long c = b.getShape().get(1);
        out.set(new NDIndex("{}:{}, {}:{}", row, row + r, col, col + c), b);
        EngineOps.countInPlace();
    }
}
