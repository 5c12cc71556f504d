package org.ntk4j.kernel.rule;

/**
 * A rule's cost for one layer on an N1×N2 kernel: what the planner compares with the Jacobian path
 * and what the tiler budgets memory with.
 *
 * @param variant the rule's own contraction variant ("rows", "pairs" for convolutions), "" if it has one
 * @param flops estimated floating-point operations of the layer's kernel by this rule
 * @param keptPerSample elements per sample the tile keeps for the contractions (its factors)
 * @param transientPerSample elements per sample held only during the probe pass (saved activations,
 *     the zero leaf and its gradient, patches)
 */
public record RuleEstimate(String variant, double flops, long keptPerSample, long transientPerSample) {
    /** An estimate without a variant. */
    public static RuleEstimate of(double flops, long keptPerSample, long transientPerSample) {
        return new RuleEstimate("", flops, keptPerSample, transientPerSample);
    }
}
