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
public final class KhatriRaoProjection extends SeededProjection {
    private NDArray u;
    private NDArray v;

    KhatriRaoProjection(Streams streams, int layer, long rows, long cols, int k, NDManager m, DataType type) {
        super(streams, layer, rows, cols, k, m, type);
    }

    private NDArray u() {
        if (u == null) {
            u = keep(draw(1, rows(), manager()));
        }
        return u;
    }

    /** V whole, kept: for rank-one rows, whose C is a layer's input width. */
    private NDArray v() {
        if (v == null) {
            v = keep(draw(2, cols(), manager()));
        }
        return v;
    }

    private static NDArray keep(NDArray a) {
        ai.djl.ndarray.NDScope.unregister(a);
        return a;
    }

    @Override
    public NDArray project(NDArray rows) {
        long n = rows.getShape().get(0);
        NDArray mm = rows.reshape(n, rows(), cols());
        long per = rowsPerBlock();
        NDArray mv = null;
        for (long g = 0; g < cols(); g += per) {
            long g1 = Math.min(cols(), g + per);
            NDArray vb = cols() <= per ? v() : draw(2, g, g1, rows.getManager());
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
        NDArray uu = draw(1, rows(), into);
        NDArray vv = draw(2, cols(), into);
        return uu.expandDims(1).mul(vv.expandDims(0)).reshape(entries(), k()).muli(scale());
    }
}
