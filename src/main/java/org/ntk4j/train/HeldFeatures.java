package org.ntk4j.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import org.ntk4j.data.LabelledSet;

/**
 * A data set's inputs held in the engine while a trainer uses them, batch by batch. A set of 8-bit images ({@link
 * LabelledSet#hasPixels}) is held as its bytes, a quarter of the float features' memory, and each batch is made
 * float in the engine by the readers' formula {@code (b & 0xFF) / 255f} (one true division in float32 of the
 * byte widened to float32, as PyTorch promotes uint8 / float32: the same float as Java's, bit for bit); any other set is held as its features, and a batch of it is a view. For
 * MNIST's 60,000 images that is 47 MB instead of 188 MB put into the engine at the start of a fit: on a virtual
 * machine whose fresh memory costs ~15 µs per 4 KiB page at its first touch, 0.4 s (benchmarks/RESULTS.md, "Memory's
 * first touch"); on a GPU, a quarter of the device memory. Arrays live in the manager given to {@link #of}.
 */
final class HeldFeatures {
    private final NDArray held;
    private final DataType type;
    /** 255 as a float32 0-d array for a set held as bytes; null for a set held as its features. */
    private final NDArray scale;
    /** The float rows [blockFrom, blockTo) of a set held as bytes that {@link #range} hands views of. */
    private NDArray block;

    private long blockFrom;
    private long blockTo;

    /** The values a {@link #range} block holds at most: 4 Mi (16 MB in float32, under the allocator's mmap threshold). */
    static final long BLOCK_ELEMENTS = 1L << 22;

    private HeldFeatures(NDArray held, DataType type, NDArray scale) {
        this.held = held;
        this.type = type;
        this.scale = scale;
    }

    /**
     * {@code data}'s inputs in the engine with {@code shape} (n, input...), as the network's {@code type}; with {@code
     * asBytes} and a set of pixels as bytes, else as features ({@link Arrays2#held}).
     */
    static HeldFeatures of(NDManager m, LabelledSet data, Shape shape, DataType type, boolean asBytes) {
        if (!asBytes || !heldAsBytes(data, shape)) {
            return new HeldFeatures(Arrays2.held(m, data, shape, type), type, null);
        }
        java.nio.ByteBuffer buf = m.allocateDirect((int) shape.size());
        data.copyPixelsTo(buf);
        buf.rewind();
        NDArray px = m.create(buf, shape, DataType.UINT8); // the array keeps the buffer, as Arrays2.held's
        NDArray scale = Arrays2.scalar(m, 255, DataType.FLOAT32, m.getDevice());
        return new HeldFeatures(px, type, scale);
    }

    /** Whether {@link #of} with {@code asBytes} holds {@code data} as its bytes: 8-bit images in one engine buffer. */
    static boolean heldAsBytes(LabelledSet data, Shape shape) {
        return data.hasPixels() && shape.size() <= Integer.MAX_VALUE - 8;
    }

    /** The inputs of the rows {@code rows} selects, in the network's type: a new array, or a view of a float set. */
    private NDArray rows(NDIndex rows) {
        NDArray x = held.get(rows);
        if (scale == null) {
            return x;
        }
        NDArray f = x.div(scale); // uint8 / float32 0-d: one pass, each byte cast to float32, then divided
        x.close();
        if (type == DataType.FLOAT32) {
            return f;
        }
        NDArray t = f.toType(type, false);
        f.close();
        return t;
    }

    /**
     * Rows [from, to) in the network's type, for a trainer that walks the set in order batch by batch (an epoch's
     * gathered copy): a set held as bytes is made float a block of {@link #BLOCK_ELEMENTS} values at a time (whole
     * batches of {@code to − from} rows from {@code from}), and each batch is a view of its block; one division per
     * block instead of one per batch (on the CPU the batch's parallel call and its allocation; on a GPU a launch),
     * the same floats. A float set gives a view.
     */
    NDArray range(long from, long to) {
        if (scale == null) {
            return held.get(new NDIndex().addSliceDim(from, to));
        }
        if (block == null || from < blockFrom || to > blockTo) {
            if (block != null) {
                block.close();
            }
            long n = held.getShape().get(0);
            long rowElements = Math.max(1, held.getShape().size() / Math.max(1, n));
            long batch = to - from;
            long rows = batch * Math.max(1, BLOCK_ELEMENTS / (batch * rowElements));
            blockFrom = from;
            blockTo = Math.min(n, from + rows);
            block = rows(new NDIndex().addSliceDim(blockFrom, blockTo));
            ai.djl.ndarray.NDScope.unregister(block); // lives until the next block or close(), not the batch's scope
        }
        return block.get(new NDIndex().addSliceDim(from - blockFrom, to - blockFrom));
    }

    /**
     * The samples {@code rows} selects (an epoch's batch order), gathered into a set of their own held the same way
     * (bytes stay bytes); {@link #close} frees it. While it lives the set is held twice: for 8-bit images a second
     * copy of their bytes (MNIST 47 MB), for a float set of its features (MNIST padded to 32×32: 245 MB).
     */
    HeldFeatures gather(NDIndex rows) {
        return new HeldFeatures(held.get(rows), type, scale);
    }

    /** Frees the held array and its {@link #range} block (a {@link #gather}ed set; the set of {@link #of} lives as long as its manager). */
    void close() {
        held.close();
        if (block != null) {
            block.close();
            block = null;
        }
    }

    /** How the set is held: UINT8 for bytes, else the network's type. */
    DataType storedType() {
        return held.getDataType();
    }

    /** The whole set as {@link #rows} gives it. */
    NDArray all() {
        return scale != null ? rows(new NDIndex()) : held;
    }
}
