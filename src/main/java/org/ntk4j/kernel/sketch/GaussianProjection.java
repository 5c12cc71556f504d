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
public final class GaussianProjection extends SeededProjection {
    /** Entries of G kept between tiles (64 Mi: 512 MiB in float64, 256 MiB in float32). */
    static final long KEEP_ENTRIES = 1L << 26;

    private final List<NDArray> kept = new ArrayList<>();

    GaussianProjection(Streams streams, int layer, long rows, long cols, int k, NDManager m, DataType type) {
        super(streams, layer, rows, cols, k, m, type);
    }

    private long blocks() {
        long per = rowsPerBlock();
        return (entries() + per - 1) / per;
    }

    /** Block b of G: rows [b·per, min(R·C, (b + 1)·per)). */
    private NDArray block(long b, NDManager scratch) {
        if (b < kept.size()) {
            return kept.get((int) b);
        }
        long per = rowsPerBlock();
        boolean keep = entries() * k() <= KEEP_ENTRIES;
        NDArray g = draw(0, b * per, Math.min(entries(), (b + 1) * per), keep ? manager() : scratch);
        if (keep) {
            ai.djl.ndarray.NDScope.unregister(g);
            kept.add(g);
        }
        return g;
    }

    @Override
    public NDArray project(NDArray rows) {
        long n = rows.getShape().get(0);
        NDArray flat = rows.reshape(n, entries());
        long per = rowsPerBlock();
        NDArray s = null;
        for (long b = 0; b < blocks(); b++) {
            NDArray part = flat.get(new NDIndex(":, {}:{}", b * per, Math.min(entries(), (b + 1) * per)));
            NDArray p = part.matMul(block(b, rows.getManager()));
            s = s == null ? p : s.addi(p);
        }
        return s.muli(scale());
    }

    @Override
    public NDArray projectRankOne(NDArray d, NDArray a) {
        long n = d.getShape().get(0);
        long per = rowsPerBlock();
        NDArray s = null;
        for (long b = 0; b < blocks(); b++) {
            long t0 = b * per;
            long t1 = Math.min(entries(), (b + 1) * per);
            long r0 = t0 / cols();
            long r1 = (t1 - 1) / cols() + 1;
            // the gradient entries of rows r0..r1 of M_i = d_i a_iᵀ, then the block's slice of them
            NDArray outer = d.get(new NDIndex(":, {}:{}", r0, r1))
                    .expandDims(2)
                    .mul(a.expandDims(1))
                    .reshape(n, (r1 - r0) * cols());
            NDArray part = outer.get(new NDIndex(":, {}:{}", t0 - r0 * cols(), t1 - r0 * cols()));
            NDArray p = part.matMul(block(b, d.getManager()));
            s = s == null ? p : s.addi(p);
        }
        return s.muli(scale());
    }

    @Override
    public NDArray matrix(NDManager into) {
        NDArray g = draw(0, entries(), into);
        return g.muli(scale());
    }
}
