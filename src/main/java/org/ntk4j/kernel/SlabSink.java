package org.ntk4j.kernel;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import org.ntk4j.kernel.factor.Mode;

/**
 * A kernel held in the engine on the host, computed through a slab of one row of tiles on the compute device
 * ({@link KernelPlacement#DEVICE_SLABS}): direct blocks are placed in the slab; when the row of tiles is complete
 * ({@link #rowsDone}) the columns it wrote are copied to the host in one piece. Mirror images belong to later rows,
 * so they are transposed on the device and copied to the host as they come. The device holds one slab, tile × cols
 * [× O [× O]], instead of the whole kernel.
 */
final class SlabSink implements KernelSink {
    private final Mode mode;
    private final int outputs;
    private final DataType type;
    private final HostBytes host;
    private final NDManager hostOwner;
    private final NDArray out;
    private final NDManager slabOwner;
    private final NDArray slab;
    /** Output row of the slab's first row, -1 before the row's first direct block. */
    private int slabRow = -1;

    private int colFrom = Integer.MAX_VALUE;
    private int colTo = -1;
    private int rowTo = -1;

    /**
     * @param tile rows of the slab (samples per tile)
     * @param compute the device the blocks are computed (and the slab held) on
     */
    SlabSink(SinkShape shape, int tile, Device compute, HostBytes host) {
        int rows = shape.rows();
        int cols = shape.cols();
        this.mode = shape.mode();
        this.outputs = shape.outputs();
        this.type = shape.type();
        this.host = host;
        this.hostOwner = NDManager.newBaseManager(Device.cpu());
        this.slabOwner = NDManager.newBaseManager(compute);
        NDArray o = hostOwner.zeros(KernelMatrix.shapeOf(rows, cols, mode, outputs), type);
        NDArray s = slabOwner.create(KernelMatrix.shapeOf(Math.min(tile, rows), cols, mode, outputs), type);
        NDScope.unregister(o);
        NDScope.unregister(s);
        this.out = o;
        this.slab = s;
    }

    @Override
    public void add(NDArray block, Placement at) {
        NDArray b = EngineSink.widen(block, type);
        if (at.direct()) {
            if (slabRow < 0) {
                slabRow = at.row();
            }
            if (at.row() != slabRow
                    || at.row() + at.rows() > slabRow + slab.getShape().get(0)) {
                throw new IllegalStateException("block at row " + at.row() + " outside the slab at " + slabRow);
            }
            EngineSink.place(slab, b, 0, at.col());
            colFrom = Math.min(colFrom, at.col());
            colTo = Math.max(colTo, at.col() + at.cols());
            rowTo = Math.max(rowTo, at.row() + at.rows());
        }
        if (at.mirror()) {
            NDArray t = EngineSink.transpose(b, mode);
            host.add(t);
            EngineSink.place(out, t.toDevice(Device.cpu(), false), at.mirrorRow(), at.mirrorCol());
        }
    }

    @Override
    public void rowsDone(int r0, int r1) {
        if (slabRow < 0) {
            return; // the row had mirror images only
        }
        if (r0 != slabRow || rowTo > r1) {
            throw new IllegalStateException("rows " + r0 + ":" + r1 + " done, the slab holds " + slabRow + ":" + rowTo);
        }
        try (NDArray part = slab.get(new NDIndex("0:{}, {}:{}", rowTo - slabRow, colFrom, colTo));
                NDArray moved = part.toDevice(Device.cpu(), false)) {
            host.add(part);
            EngineSink.place(out, moved, slabRow, colFrom);
        }
        slabRow = -1;
        colFrom = Integer.MAX_VALUE;
        colTo = -1;
        rowTo = -1;
    }

    @Override
    public KernelMatrix finish() {
        if (slabRow >= 0) {
            throw new IllegalStateException("rows from " + slabRow + " were never completed");
        }
        slabOwner.close();
        return KernelMatrix.engine(out, mode, outputs, hostOwner);
    }

    @Override
    public void abandon() {
        slabOwner.close();
        hostOwner.close();
    }
}
