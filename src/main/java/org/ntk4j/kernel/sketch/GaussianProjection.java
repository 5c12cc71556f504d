package org.ntk4j.kernel.sketch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import java.util.ArrayList;
import java.util.List;

/**
 * P = G/√k with G (R·C × k) i.i.d. standard Gaussian, drawn in blocks of whole rows of G ({@link Streams}, part 0),
 * so E[P Pᵀ] = I (Johnson &amp; Lindenstrauss; Park et al. 2023, "TRAK", §3.1). The blocks are kept for every later
 * tile while they fit {@link #KEEP_ENTRIES}; beyond that each tile draws them again. Rank-one rows are expanded one
 * block of rows at a time, so at most a block's width of the gradient exists at once.
 */
public final class GaussianProjection implements LayerProjection {
    /** Entries of G kept between tiles (64 Mi: 512 MiB in float64, 256 MiB in float32). */
    static final long KEEP_ENTRIES = 1L << 26;

    private final Streams streams;
    private final int layer;
    private final long r;
    private final long c;
    private final int k;
    private final NDManager m;
    private final DataType type;
    private final List<NDArray> kept = new ArrayList<>();
    private NDArray scale;

    GaussianProjection(Streams streams, int layer, long rows, long cols, int k, NDManager m, DataType type) {
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

    private long blocks() {
        long per = streams.rowsPerBlock(k);
        return (r * c + per - 1) / per;
    }

    /** Block b of G: rows [b·per, min(R·C, (b + 1)·per)). */
    private NDArray block(long b, NDManager scratch) {
        if (b < kept.size()) {
            return kept.get((int) b);
        }
        long per = streams.rowsPerBlock(k);
        boolean keep = r * c * (long) k <= KEEP_ENTRIES;
        NDArray g = streams.rows(layer, 0, b * per, Math.min(r * c, (b + 1) * per), k, keep ? m : scratch, type);
        if (keep) {
            ai.djl.ndarray.NDScope.unregister(g);
            kept.add(g);
        }
        return g;
    }

    private NDArray scale() {
        if (scale == null) {
            scale = Streams.scalar(m, type, 1 / Math.sqrt(k));
        }
        return scale;
    }

    @Override
    public NDArray project(NDArray rows) {
        long n = rows.getShape().get(0);
        NDArray flat = rows.reshape(n, r * c);
        long per = streams.rowsPerBlock(k);
        NDArray s = null;
        for (long b = 0; b < blocks(); b++) {
            NDArray part = flat.get(new NDIndex(":, {}:{}", b * per, Math.min(r * c, (b + 1) * per)));
            NDArray p = part.matMul(block(b, rows.getManager()));
            s = s == null ? p : s.addi(p);
        }
        return s.muli(scale());
    }

    @Override
    public NDArray projectRankOne(NDArray d, NDArray a) {
        long n = d.getShape().get(0);
        long per = streams.rowsPerBlock(k);
        NDArray s = null;
        for (long b = 0; b < blocks(); b++) {
            long t0 = b * per;
            long t1 = Math.min(r * c, (b + 1) * per);
            long r0 = t0 / c;
            long r1 = (t1 - 1) / c + 1;
            // the gradient entries of rows r0..r1 of M_i = d_i a_iᵀ, then the block's slice of them
            NDArray outer = d.get(new NDIndex(":, {}:{}", r0, r1))
                    .expandDims(2)
                    .mul(a.expandDims(1))
                    .reshape(n, (r1 - r0) * c);
            NDArray part = outer.get(new NDIndex(":, {}:{}", t0 - r0 * c, t1 - r0 * c));
            NDArray p = part.matMul(block(b, d.getManager()));
            s = s == null ? p : s.addi(p);
        }
        return s.muli(scale());
    }

    @Override
    public NDArray matrix(NDManager into) {
        NDArray g = streams.matrix(layer, 0, r * c, k, into, type);
        return g.muli(scale());
    }
}
