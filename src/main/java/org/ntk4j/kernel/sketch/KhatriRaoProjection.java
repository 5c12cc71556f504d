package org.ntk4j.kernel.sketch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;

/**
 * P[(ρ, γ), j] = U[ρ, j] V[γ, j] / √k: column j is u_j ⊗ v_j with U (R × k) and V (C × k) i.i.d. standard Gaussian
 * ({@link Streams}, parts 1 and 2), the row-wise Khatri–Rao projection (Sun, Guo, Luo, Tropp &amp; Udell 2021,
 * "Tensor Random Projection for Low Memory Dimension Reduction", Eq. (2)). E[P Pᵀ] = E[u uᵀ] ⊗ E[v vᵀ] = I, so the
 * sketch is unbiased; its columns are independent, so the error of S Sᵀ still falls like 1/√k, with a constant at
 * most a few times the dense Gaussian's (the fourth moment of a product of Gaussians). On rank-one rows d aᵀ:
 *
 * <pre>s_j = (u_jᵀ d)(v_jᵀ a) / √k,   S = (D U) ⊙ (A V) / √k,</pre>
 *
 * two products of cost n·k·(R + C) and no R·C gradient. On general rows M_i: s_j = u_jᵀ M_i v_j / √k = Σ_ρ U[ρ, j]
 * (M_i V)[ρ, j] / √k, with V drawn block by block over its C rows.
 */
public final class KhatriRaoProjection implements LayerProjection {
    private final Streams streams;
    private final int layer;
    private final long r;
    private final long c;
    private final int k;
    private final NDManager m;
    private final DataType type;
    private NDArray u;
    private NDArray v;
    private NDArray scale;

    KhatriRaoProjection(Streams streams, int layer, long rows, long cols, int k, NDManager m, DataType type) {
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

    private NDArray u() {
        if (u == null) {
            u = keep(streams.matrix(layer, 1, r, k, m, type));
        }
        return u;
    }

    /** V whole, kept: for rank-one rows, whose C is a layer's input width. */
    private NDArray v() {
        if (v == null) {
            v = keep(streams.matrix(layer, 2, c, k, m, type));
        }
        return v;
    }

    private static NDArray keep(NDArray a) {
        ai.djl.ndarray.NDScope.unregister(a);
        return a;
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
        NDArray mm = rows.reshape(n, r, c);
        long per = streams.rowsPerBlock(k);
        NDArray mv = null;
        for (long g = 0; g < c; g += per) {
            long g1 = Math.min(c, g + per);
            NDArray vb = c <= per ? v() : streams.rows(layer, 2, g, g1, k, rows.getManager(), type);
            NDArray p = mm.get(new NDIndex(":, :, {}:{}", g, g1)).matMul(vb); // (n, R, k)
            mv = mv == null ? p : mv.addi(p);
        }
        return mv.muli(u()).sum(new int[] {1}).muli(scale());
    }

    @Override
    public NDArray projectRankOne(NDArray d, NDArray a) {
        return d.matMul(u()).muli(a.matMul(v())).muli(scale());
    }

    @Override
    public NDArray matrix(NDManager into) {
        NDArray uu = streams.matrix(layer, 1, r, k, into, type);
        NDArray vv = streams.matrix(layer, 2, c, k, into, type);
        return uu.expandDims(1).mul(vv.expandDims(0)).reshape(r * c, k).muli(scale());
    }
}
