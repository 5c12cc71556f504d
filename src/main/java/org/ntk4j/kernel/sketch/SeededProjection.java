package org.ntk4j.kernel.sketch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import org.ntk4j.kernel.factor.EngineOps;

/**
 * What every seeded projection of one layer holds: its streams and layer index, the R × C shape of the rows it
 * projects, the sketch dimension k, the manager and data type of what it draws, and the scale 1/√k that makes
 * E[P Pᵀ] = I for entries (or products of entries) of unit variance.
 */
abstract sealed class SeededProjection implements LayerProjection permits GaussianProjection, KhatriRaoProjection {
    private final Streams streams;
    private final int layer;
    private final long r;
    private final long c;
    private final int k;
    private final NDManager m;
    private final DataType type;
    private NDArray scale;

    SeededProjection(Streams streams, int layer, long rows, long cols, int k, NDManager m, DataType type) {
        this.streams = streams;
        this.layer = layer;
        this.r = rows;
        this.c = cols;
        this.k = k;
        this.m = m;
        this.type = type;
    }

    @Override
    public long rows() {
        return r;
    }

    @Override
    public long cols() {
        return c;
    }

    @Override
    public int k() {
        return k;
    }

    /** Entries R·C of a row. */
    long entries() {
        return r * c;
    }

    /** Rows of a k-column matrix per block of the streams. */
    long rowsPerBlock() {
        return streams.rowsPerBlock(k);
    }

    /** Rows [r0, r1) of the k-column matrix {@code part} of this layer's stream, within one block, in {@code into}. */
    NDArray draw(int part, long r0, long r1, NDManager into) {
        return streams.rows(layer, part, r0, r1, k, into, type);
    }

    /** The whole {@code rows} × k matrix {@code part} of this layer's stream, in {@code into}. */
    NDArray draw(int part, long rows, NDManager into) {
        return streams.matrix(layer, part, rows, k, into, type);
    }

    /** The manager that matrices kept between tiles live in. */
    NDManager manager() {
        return m;
    }

    /** 1/√k as a 0-d array of the projection's type in its manager, made once. */
    final NDArray scale() {
        if (scale == null) {
            scale = EngineOps.scalar(m, type, 1 / Math.sqrt(k));
        }
        return scale;
    }
}
