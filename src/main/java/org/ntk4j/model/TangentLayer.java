package org.ntk4j.model;

/**
 * A parameterised layer whose NTK contribution the structured engine computes from tangent
 * factors (its input and the gradient at its output) instead of per-sample parameter gradients.
 * The scales say how the parameters enter the output: y = weightScale·(W·a) + biasScale·b.
 */
public interface TangentLayer {
    /** The layer's module name, e.g. {@code dense1}. */
    String name();

    /** Multiplier of W·a in the output: σ_w/√fan_in in NTK parameterisation, 1 in standard. */
    double weightScale();

    /** Multiplier of b in the output: σ_b in NTK parameterisation, 1 in standard; 0 without bias. */
    double biasScale();

    /** The weight parameter. */
    Param weight();

    /** The bias parameter, or null. */
    Param bias();
}
