package org.ntk4j.kernel.rule;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.function.UnaryOperator;
import org.ntk4j.kernel.factor.FactorBuilder;
import org.ntk4j.model.BatchNorm2d;

/**
 * Batch normalisation in eval mode, y = γ_c·x̂ + β_c with x̂ = (x − μ_run)/√(σ²_run + ε) fixed per
 * sample (Ioffe &amp; Szegedy 2015, "Batch Normalization", Alg. 2 inference form), so samples are
 * independent and, with δ = ∂f_o/∂y over (C, H, W),
 * <pre>∂f_o(x_i)/∂γ_c = Σ_p δ_io[c,p]·x̂_i[c,p],   ∂f_o(x_i)/∂β_c = Σ_p δ_io[c,p],
 * Θ_l = J_γ J_γᵀ + J_β J_βᵀ</pre>
 * (Novak et al. 2022, "Fast Finite Width Neural Tangent Kernel", §3.3: structured derivatives of
 * elementwise-affine layers). The layer hands x̂ to its probe; training-mode batch-norm couples
 * samples and has no per-sample kernel.
 */
public final class BatchNorm2dRule implements TangentRule<BatchNorm2d> {
    @Override
    public String name() {
        return "batchnorm2d";
    }

    @Override
    public RuleEstimate estimate(BatchNorm2d bn, PlanContext ctx) {
        long c = bn.gamma().size();
        return RuleEstimate.of(ctx.rowGramFlops(2 * c), (long) ctx.outputs() * 2 * c, 3L * c * bn.positions());
    }

    @Override
    public FactorBuilder builder(BatchNorm2d bn, RuleEstimate chosen, NDArray xhat, int outputs, NDManager keep) {
        return new AffineNormBuilder(bn, xhat, outputs, keep, UnaryOperator.identity(), new int[] {2, 3});
    }
}
