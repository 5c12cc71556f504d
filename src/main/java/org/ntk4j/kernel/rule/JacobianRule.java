package org.ntk4j.kernel.rule;

import org.ntk4j.model.Module;
import org.ntk4j.model.Param;

/**
 * The generic fallback for any module: per sample and per output one backward pass, the flattened
 * parameter gradients as a row of J_l, and Θ_l = J_l(X1) J_l(X2)ᵀ (Jacot, Gabriel, Hongler 2018,
 * "Neural Tangent Kernel", Eq. 2 — the empirical NTK by definition). Slow and exact: the oracle the
 * structured rules are tested against (central finite differences test it in turn).
 */
public final class JacobianRule {
    private JacobianRule() {}

    /** Trainable parameter count P_l of the layer. */
    public static long parameters(Module layer) {
        return layer.ownParams().stream()
                .filter(Param::trainable)
                .mapToLong(Param::size)
                .sum();
    }

    /** FLOPs 2·N1·N2·P_l·(contracted outputs) of the Gram; keeps O·P_l per sample; no probe-pass memory. */
    public static RuleEstimate estimate(Module layer, PlanContext ctx) {
        long p = parameters(layer);
        return RuleEstimate.of(ctx.rowGramFlops(p), (long) ctx.outputs() * p, 0);
    }
}
