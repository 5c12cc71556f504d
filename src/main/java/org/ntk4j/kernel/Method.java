package org.ntk4j.kernel;

/**
 * How a layer's kernel is computed. JACOBIAN: per-sample, per-output backward passes and flattened
 * parameter gradients (generic, the oracle). STRUCTURED: tangent factors (dense: Hadamard product of
 * the activation Gram and the output-gradient Gram, Lou, Mingard &amp; Hayou, Equilibrium Hypothesis, Eq. 7; conv:
 * per-sample gradients from im2col patches and one batched backward per output). AUTO: per layer, the cheaper
 * of the two by FLOP estimate.
 */
public enum Method {
    AUTO,
    STRUCTURED,
    JACOBIAN
}
