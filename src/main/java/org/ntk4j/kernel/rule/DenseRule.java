package org.ntk4j.kernel.rule;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import org.ntk4j.kernel.factor.FactorBuilder;
import org.ntk4j.model.TangentLayer;

/**
 * A dense layer y = c_w·W a + c_b·b, W (out × in), a flat: with A (n × in) the inputs and
 * Δ (n × O × out) the output gradients,
 * <pre>Θ_l[(i,o),(j,p)] = (c_w²·a_i·a_j + c_b²)·(δ_io·δ_jp)</pre>
 * — the forward∘backward factorisation of Lou, Mingard &amp; Hayou, Equilibrium Hypothesis, Eq. 7 and the backprop
 * identity of Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit Eq. 19; the Kronecker structure of a dense
 * layer's Jacobian in Novak et al. 2022, "Fast Finite Width Neural Tangent Kernel", §3.3. Cost 2·N1·N2·(in + O'·out)
 * (O' = O² for FULL, O otherwise), no per-sample gradient ever formed. Any {@link TangentLayer} whose weight is a
 * matrix and whose input is flat fits this rule (ntk4j's {@code Dense}, a wrapped DJL {@code Linear}).
 */
public final class DenseRule implements TangentRule<TangentLayer> {
    @Override
    public String name() {
        return "dense";
    }

    @Override
    public String inapplicable(TangentLayer layer) {
        int dims = layer.weight().value().getShape().dimension();
        return dims == 2 ? null : "weight of " + layer.name() + " has " + dims + " axes, not 2";
    }

    @Override
    public RuleEstimate estimate(TangentLayer layer, PlanContext ctx) {
        long in = layer.weight().value().getShape().get(1);
        long out = layer.weight().value().getShape().get(0);
        double flops = 2.0 * ctx.n1() * ctx.n2() * (in + ctx.contracted() * out);
        // keeps A and Δ; during the pass: saved activation, zero leaf and its gradient (~3 outputs)
        return RuleEstimate.of(flops, in + (long) ctx.outputs() * out, 3L * out);
    }

    @Override
    public FactorBuilder builder(TangentLayer layer, RuleEstimate chosen, NDArray a, int outputs, NDManager keep) {
        return new DenseFactor.Builder(layer, layer.name(), a, outputs, keep);
    }
}
