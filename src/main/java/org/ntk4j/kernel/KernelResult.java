package org.ntk4j.kernel;

import java.util.Collections;
import java.util.Map;

/**
 * The NTK Θ = Σ_l Θ_l between two input sets: the total, the per-layer (or per-parameter) parts
 * when asked for, and how each part was computed. The kernels are held where the engine computed
 * them ({@link KernelMatrix#array()}, with host access through {@link KernelMatrix#get}) or on disk;
 * {@link #release()} frees them.
 *
 * @param total Θ
 * @param layers Θ_l by layer name (or parameter name), in forward order; empty unless per-layer
 * @param plan how each layer was computed: its rule, method, FLOP and memory estimates
 * @param seconds wall time of the computation
 * @param symmetric whether X2 = X1 (only the upper triangle was computed, then mirrored)
 * @param timings seconds spent in each phase, the device synchronised at each boundary: "factors" (forward and
 *     backward passes, per-sample rows), "contraction" (the Gram products and their sum), "host" (placing the blocks
 *     into the output kernels and the output's trip to the host)
 * @param factorKernels for dense layers, when asked: "&lt;layer&gt;.forward" = A1 A2ᵀ (the activation
 *     Gram of the layer's input) and "&lt;layer&gt;.backward" = Σ_o Δ1_o Δ2_oᵀ (the output-gradient Gram),
 *     the two factors of Θ_l in Lou, Mingard &amp; Hayou, Equilibrium Hypothesis, Eq. 7; N1×N2 each
 * @param stats where the output lived, the tile pairs, engine operations per pair and bytes to the host
 */
public record KernelResult(
        KernelMatrix total,
        Map<String, KernelMatrix> layers,
        NtkPlan plan,
        double seconds,
        boolean symmetric,
        Map<String, Double> timings,
        Map<String, KernelMatrix> factorKernels,
        TileStats stats) {
    public KernelResult {
        layers = Collections.unmodifiableMap(layers);
        factorKernels = Collections.unmodifiableMap(factorKernels);
        timings = Collections.unmodifiableMap(timings);
    }

    /** Method per layer as the {@code --explain} lines of {@link #plan()}, in forward order. */
    public Map<String, String> methods() {
        return plan.lines();
    }

    /** Frees every kernel of the result (engine memory, files on disk); the result is not read afterwards. */
    public void release() {
        total.release();
        layers.values().forEach(KernelMatrix::release);
        factorKernels.values().forEach(KernelMatrix::release);
    }
}
