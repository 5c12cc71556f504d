package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;

/**
 * Per-sample Jacobian rows J (n × O × P_l) of one layer's parameters on a tile: the generic path.
 * Θ_l = J1 J2ᵀ reduced per mode. Exact for any module; the oracle the fast paths are tested against.
 */
final class JacobianFactor implements LayerFactor {
    private final NDArray j;

    JacobianFactor(NDArray j) {
        this.j = j;
    }

    @Override
    public NDArray contract(LayerFactor other, Mode mode) {
        return Grams.outputGram(j, ((JacobianFactor) other).j, mode);
    }

}
