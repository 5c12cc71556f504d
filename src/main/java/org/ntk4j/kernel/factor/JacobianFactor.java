package org.ntk4j.kernel.factor;

import ai.djl.ndarray.NDArray;

/**
 * Per-sample Jacobian rows J (n × O × P_l) of one layer's parameters on a tile: the generic path,
 * and the form of any rule whose per-sample gradients are cheap to form (batch-norm, layer-norm).
 * Θ_l = J1 J2ᵀ reduced per mode (Jacot, Gabriel, Hongler 2018, "Neural Tangent Kernel", Eq. 2).
 * Exact for any module; the oracle the fast paths are tested against.
 */
public final class JacobianFactor implements LayerFactor {
    private final RowViews j;

    /** @param j per-sample rows (n, O, P_l) in the tile's manager */
    public JacobianFactor(NDArray j) {
        this.j = new RowViews(j);
    }

    /** The per-sample rows (n, O, P_l). */
    public NDArray rows() {
        return j.rows();
    }

    @Override
    public NDArray contract(LayerFactor other, Mode mode) {
        return j.gram(((JacobianFactor) other).j, mode);
    }
}
