package org.ntk4j.kernel.factor;

import ai.djl.ndarray.NDArray;

/**
 * A factor whose per-sample gradient rows are rank one: the dense layer's, where ∂f_o(x_i)/∂W = c_w δ_io a_iᵀ and
 * ∂f_o(x_i)/∂b = c_b δ_io, so that sample i's whole Jacobian of the layer, as an (O·out) × (in + 1) matrix, is the
 * outer product vec(D_i) [c_w a_i; c_b]ᵀ (Lou, Mingard &amp; Hayou, Equilibrium Hypothesis, Eq. 7). A projection of
 * the rows can then act on the two factors and never form the O·out·(in + 1) gradient entries. It describes the factor
 * of a whole layer: a rule's per-parameter parts (weight, bias) share the same inputs and gradients and are not
 * sketched.
 */
public interface RankOneRows extends LayerFactor {
    /** The layer inputs A (n × in), without the weight scale. */
    NDArray inputs();

    /** The output gradients D (n × O × out), D[i, o, :] = ∂f_o(x_i)/∂y. */
    NDArray outputGradients();
}
