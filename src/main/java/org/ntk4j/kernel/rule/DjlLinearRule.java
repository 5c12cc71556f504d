package org.ntk4j.kernel.rule;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import org.ntk4j.kernel.factor.FactorBuilder;
import org.ntk4j.model.DjlLinear;

/**
 * DJL's {@code ai.djl.nn.core.Linear}, y = x Wᵀ + b: the {@link DenseRule} (Lou, Mingard &amp; Hayou, Equilibrium
 * Hypothesis, Eq. 7; Novak et al. 2022, "Fast Finite Width Neural Tangent Kernel", §3.3) with c_w = c_b = 1, for vector
 * inputs.
 */
public final class DjlLinearRule implements TangentRule<DjlLinear> {
    private final DenseRule dense = new DenseRule();

    @Override
    public String name() {
        return "dense";
    }

    @Override
    public String inapplicable(DjlLinear layer) {
        return layer.flatInput()
                ? dense.inapplicable(layer)
                : "input per sample is " + layer.inputShape() + ", not a vector";
    }

    @Override
    public RuleEstimate estimate(DjlLinear layer, PlanContext ctx) {
        return dense.estimate(layer, ctx);
    }

    @Override
    public FactorBuilder builder(DjlLinear layer, RuleEstimate chosen, NDArray a, int outputs, NDManager keep) {
        return dense.builder(layer, chosen, a, outputs, keep);
    }
}
