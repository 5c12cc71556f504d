package org.ntk4j.kernel.sketch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.SplittableRandom;

/**
 * Standard Gaussian blocks drawn from a seed: block b of stream (layer, part) is the sequence of a {@link
 * SplittableRandom} seeded with a 64-bit mix of (seed, layer, part, b), so any block can be drawn alone, on any tile,
 * bit for bit the same. A matrix of R rows × k columns is cut into blocks of {@link #rowsPerBlock(int)} whole rows,
 * row-major within each block; the cut depends on k only, never on the memory budget or the tile.
 */
public final class Streams {
    /** Entries per block (4 Mi): a float64 block is 32 MiB. */
    static final int BLOCK_ENTRIES = 1 << 22;

    private final long seed;
    private final int blockEntries;

    public Streams(long seed) {
        this(seed, BLOCK_ENTRIES);
    }

    /** With blocks of {@code blockEntries} entries: for tests, to cut small matrices into several blocks. */
    Streams(long seed, int blockEntries) {
        this.seed = seed;
        this.blockEntries = blockEntries;
    }

    /** Rows of a k-column matrix per block. */
    long rowsPerBlock(int k) {
        return Math.max(1, blockEntries / k);
    }

    /**
     * Rows [r0, r1) of the k-column matrix of stream (layer, part), which must lie within one block, as an engine
     * array (r1 − r0, k) of {@code type}, made in {@code m}.
     */
    NDArray rows(int layer, int part, long r0, long r1, int k, NDManager m, DataType type) {
        long per = rowsPerBlock(k);
        long b = r0 / per;
        if ((r1 - 1) / per != b) {
            throw new IllegalArgumentException("rows " + r0 + ":" + r1 + " span two blocks of " + per);
        }
        SplittableRandom rng = new SplittableRandom(mix(mix(mix(mix(seed) ^ layer) ^ part) ^ b));
        // skip to row r0 of the block: the block's numbers are drawn in order
        long skip = (r0 - b * per) * k;
        for (long i = 0; i < skip; i++) {
            rng.nextGaussian();
        }
        int len = Math.toIntExact((r1 - r0) * k);
        Shape shape = new Shape(r1 - r0, k);
        NDArray host;
        if (type == DataType.FLOAT64) {
            double[] v = new double[len];
            for (int i = 0; i < len; i++) {
                v[i] = rng.nextGaussian();
            }
            host = m.create(v, shape);
        } else {
            float[] v = new float[len];
            for (int i = 0; i < len; i++) {
                v[i] = (float) rng.nextGaussian();
            }
            host = m.create(v, shape);
            if (type != DataType.FLOAT32) {
                NDArray t = host.toType(type, false);
                host.close();
                return t;
            }
        }
        // a native copy: an array made from a Java array lives in a Java buffer
        NDArray out = host.duplicate();
        host.close();
        return out;
    }

    /** The whole R × k matrix of stream (layer, part), block by block. */
    NDArray matrix(int layer, int part, long rows, int k, NDManager m, DataType type) {
        long per = rowsPerBlock(k);
        if (rows <= per) {
            return rows(layer, part, 0, rows, k, m, type);
        }
        ai.djl.ndarray.NDList parts = new ai.djl.ndarray.NDList();
        for (long r = 0; r < rows; r += per) {
            parts.add(rows(layer, part, r, Math.min(rows, r + per), k, m, type));
        }
        NDArray all = ai.djl.ndarray.NDArrays.concat(parts);
        parts.close();
        return all;
    }

    /** Stafford's variant 13 of the MurmurHash3 finaliser (the mix of {@link SplittableRandom}). */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
