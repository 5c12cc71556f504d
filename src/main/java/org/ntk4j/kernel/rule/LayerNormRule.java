package org.ntk4j.kernel.rule;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import org.ntk4j.kernel.factor.FactorBuilder;
import org.ntk4j.model.LayerNorm;

/**
 * Layer normalisation y = γ ⊙ x̂ + β over the last axis (Ba, Kiros, Hinton 2016, "Layer
 * Normalization", Eq. 4). x̂ depends on the input only, not on γ or β, so with δ = ∂f_o/∂y and p over
 * the leading positions of a sample,
 * <pre>∂f_o(x_i)/∂γ_d = Σ_p δ_io[p,d]·x̂_i[p,d],   ∂f_o(x_i)/∂β_d = Σ_p δ_io[p,d],
 * Θ_l = J_γ J_γᵀ + J_β J_βᵀ</pre>
 * (the structured derivative of an elementwise-affine layer, Novak, Sohl-Dickstein, Schoenholz 2022,
 * "Fast Finite Width Neural Tangent Kernel", §3.3). P_l = 2D rows per sample and output.
 */
public final class LayerNormRule implements TangentRule<LayerNorm> {
    @Override
    public String name() {
        return "layernorm";
    }

    @Override
    public RuleEstimate estimate(LayerNorm ln, PlanContext ctx) {
        long d = ln.features();
        return RuleEstimate.of(ctx.rowGramFlops(2 * d), (long) ctx.outputs() * 2 * d, 3L * d * ln.positions());
    }

    @Override
    public FactorBuilder builder(LayerNorm ln, RuleEstimate chosen, NDArray xhat, int outputs, NDManager keep) {
        long d = ln.features();
        return new AffineNormBuilder(
                ln, xhat, outputs, keep, a -> a.reshape(a.getShape().get(0), -1, d), new int[] {1});
    }
}
