package org.ntk4j.kernel.factor;

import ai.djl.ndarray.NDArray;

/**
 * A factor whose traced kernel is a Hadamard product of a forward (activation) Gram and a backward
 * (output-gradient) Gram, Lou, Mingard &amp; Hayou, Equilibrium Hypothesis, Eq. 7: Θ_l = (c_w²·A1A2ᵀ + c_b²) ⊙ Σ_o
 * Δ1_oΔ2_oᵀ. The engine returns both Grams when {@link org.ntk4j.kernel.Ntk#factorKernels()} is asked for.
 */
public interface HadamardFactor extends LayerFactor {
    /** The forward Gram A1 A2ᵀ (n1, n2). */
    NDArray forwardGram(LayerFactor other);

    /** The backward Gram Σ_o δ_io·δ_jo (n1, n2). */
    NDArray backwardGram(LayerFactor other);
}
