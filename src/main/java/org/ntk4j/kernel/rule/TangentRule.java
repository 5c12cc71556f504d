package org.ntk4j.kernel.rule;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import org.ntk4j.kernel.factor.FactorBuilder;
import org.ntk4j.model.TangentLayer;

/**
 * How one layer type contributes Θ_l = Σ_{θ∈layer} ∂f(x)/∂θ · ∂f(x')/∂θ to the NTK (Jacot, Gabriel,
 * Hongler 2018, "Neural Tangent Kernel") from its tangent factors, i.e. the layer's input {@code a}
 * and the per-sample output gradients δ = ∂f_o/∂y that one batched probe pass leaves on a zero leaf
 * added to its output (Novak, Sohl-Dickstein, Schoenholz 2022, "Fast Finite Width Neural Tangent
 * Kernel", §3: structured derivatives). A rule supplies, for its layer:
 * <ul>
 *   <li>the factors: a {@link FactorBuilder} fed δ_o output by output ({@link #builder});</li>
 *   <li>the contraction: the {@link org.ntk4j.kernel.factor.LayerFactor} that builder produces;</li>
 *   <li>its cost and memory ({@link #estimate}), which the planner weighs against the Jacobian path;</li>
 *   <li>whether it applies to a given instance ({@link #inapplicable}); if not, the layer falls back
 *   to the generic Jacobian path ({@link JacobianRule}).</li>
 * </ul>
 * Register a rule for a layer class with {@link TangentRules#register}. The layer must call its
 * {@link org.ntk4j.model.TangentProbe} in probe mode with the input the builder expects.
 *
 * @param <L> the layer type
 */
public interface TangentRule<L extends TangentLayer> {
    /** Short name for plans and {@code --explain}, e.g. {@code dense}. */
    String name();

    /** Null when the rule applies to {@code layer}, else why not (shown in the plan). */
    default String inapplicable(L layer) {
        return null;
    }

    /** The rule's FLOPs and memory for {@code layer} on the kernel described by {@code ctx}. */
    RuleEstimate estimate(L layer, PlanContext ctx);

    /**
     * The builder of this layer's factors for one tile, from the input {@code a} the layer handed to
     * its probe (already detached from the graph) and the variant the plan chose.
     *
     * @param keep the tile's manager: what the factors keep must be attached here
     */
    FactorBuilder builder(L layer, RuleEstimate chosen, NDArray a, int outputs, NDManager keep);

    /**
     * In a network where some layer needs the per-sample Jacobian passes anyway, whether this layer
     * should still take the probe pass (true) or read its rows from those passes (false: layers whose
     * structured factors are themselves per-sample gradients, like convolutions by rows).
     */
    default boolean structuredBesideJacobian() {
        return true;
    }
}
