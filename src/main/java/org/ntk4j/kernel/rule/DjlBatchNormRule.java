package org.ntk4j.kernel.rule;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import org.ntk4j.kernel.factor.FactorBuilder;
import org.ntk4j.model.DjlBatchNorm;

/**
 * DJL's {@code ai.djl.nn.norm.BatchNorm} in eval mode over axis 1, inputs (n, C, ...): as
 * {@link BatchNorm2dRule} (Ioffe &amp; Szegedy 2015, Alg. 2 inference form),
 * ∂f_o(x_i)/∂γ_c = Σ_p δ_io[c,p]·x̂_i[c,p] and ∂f_o(x_i)/∂β_c = Σ_p δ_io[c,p], p over the positions
 * after the channel axis (none for vector inputs).
 */
public final class DjlBatchNormRule implements TangentRule<DjlBatchNorm> {
    @Override
    public String name() {
        return "batchnorm";
    }

    @Override
    public String inapplicable(DjlBatchNorm bn) {
        return bn.unsupported();
    }

    @Override
    public RuleEstimate estimate(DjlBatchNorm bn, PlanContext ctx) {
        long c = bn.channels();
        return RuleEstimate.of(ctx.rowGramFlops(2 * c), (long) ctx.outputs() * 2 * c, 3L * c * bn.positions());
    }

    @Override
    public FactorBuilder builder(DjlBatchNorm bn, RuleEstimate chosen, NDArray xhat, int outputs, NDManager keep) {
        long c = bn.channels();
        return new AffineNormBuilder(
                bn, xhat, outputs, keep, a -> a.reshape(a.getShape().get(0), c, -1), new int[] {2});
    }
}
