package org.ntk4j.kernel;

import java.util.Collections;
import java.util.Map;

/**
 * The NTK Θ = Σ_l Θ_l between two input sets: the total, the per-layer (or per-parameter) parts
 * when asked for, and how each part was computed.
 *
 * @param total Θ
 * @param layers Θ_l by layer name (or parameter name), in forward order; empty unless per-layer
 * @param methods method used per layer, with the FLOP estimates that chose it
 * @param seconds wall time of the computation
 * @param symmetric whether X2 = X1 (only the upper triangle was computed, then mirrored)
 * @param timings seconds spent in each phase: "factors" (forward and backward passes, per-sample
 *     rows), "contraction" (Gram products on the device), "host" (copying blocks into the kernel)
 */
public record KernelResult(KernelMatrix total, Map<String, KernelMatrix> layers, Map<String, String> methods,
        double seconds, boolean symmetric, Map<String, Double> timings) {
    public KernelResult {
        layers = Collections.unmodifiableMap(layers);
        methods = Collections.unmodifiableMap(methods);
        timings = Collections.unmodifiableMap(timings);
    }
}
