package org.ntk4j.kernel;

import org.ntk4j.kernel.rule.RuleEstimate;
import org.ntk4j.kernel.rule.TangentRule;
import org.ntk4j.model.Module;
import org.ntk4j.model.TangentLayer;

/**
 * How one parameterised layer's Θ_l is computed.
 *
 * @param name layer name
 * @param layer the layer
 * @param rule its tangent rule, or null when it has none (or the rule does not apply)
 * @param method STRUCTURED (the rule's factors from the probe pass) or JACOBIAN (per-sample passes)
 * @param estimate the rule's estimate (its variant, FLOPs and memory); null without a rule
 * @param structuredFlops the rule's FLOP estimate, NaN without a rule
 * @param jacobianFlops FLOPs of the Gram of per-sample Jacobian rows
 * @param bytesPerSample bytes per sample the tile keeps for this layer's contraction, by the chosen method
 * @param transientBytesPerSample bytes per sample held only during the probe pass (0 for JACOBIAN)
 * @param reason why this method was chosen
 */
public record LayerPlan(
        String name,
        Module layer,
        TangentRule<TangentLayer> rule,
        Method method,
        RuleEstimate estimate,
        double structuredFlops,
        double jacobianFlops,
        long bytesPerSample,
        long transientBytesPerSample,
        String reason) {

    /** The rule's name ("dense", "conv2d", ...) or "jacobian". */
    public String ruleName() {
        return rule == null ? "jacobian" : rule.name();
    }

    /** The rule's contraction variant ("rows", "pairs"), "" if none. */
    public String variant() {
        return estimate == null ? "" : estimate.variant();
    }

    public boolean structured() {
        return method == Method.STRUCTURED;
    }

    /** The {@code --explain} line, e.g. {@code structured (structured 0.1 GFLOP, jacobian rows 0.3 GFLOP; as asked)}. */
    public String explain() {
        if (rule == null) {
            return String.format("jacobian (%.3g GFLOP; %s)", jacobianFlops / 1e9, reason);
        }
        String how = variant().isEmpty() ? "" : " " + variant();
        return String.format(
                "%s (structured%s %.3g GFLOP, jacobian rows' Gram %.3g GFLOP; %s)",
                structured() ? "structured" + how : "jacobian",
                how,
                structuredFlops / 1e9,
                jacobianFlops / 1e9,
                reason);
    }
}
