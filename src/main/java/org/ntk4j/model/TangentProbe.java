package org.ntk4j.model;

import ai.djl.ndarray.NDArray;

/**
 * Probe mode for the NTK engine (README "How the kernel is computed"; {@code org.ntk4j.kernel.TangentFactors}). A tangent-aware layer calls
 * {@link #tap} with its input {@code a} and its pre-activation output {@code y}; the probe keeps
 * {@code a} and returns {@code y + z} where {@code z} is a zero leaf that requires a gradient, so
 * that after a backward pass {@code z.getGradient()} holds the per-sample output gradients δ.
 * When no probe is set, layers skip this entirely (no cost).
 */
public interface TangentProbe {
    NDArray tap(TangentLayer layer, NDArray input, NDArray output);
}
