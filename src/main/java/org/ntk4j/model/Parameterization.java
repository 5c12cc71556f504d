package org.ntk4j.model;

/**
 * How a layer's weights enter its output (DESIGN.md "Parameterisation", Seleznova, NTK thesis eqs. (2.26),
 * (2.51)–(2.53)). STANDARD: y = W a + b with W ~ N(0, σ_w²/fan_in), b ~ N(0, σ_b²), trained as is.
 * NTK: y = (σ_w/√fan_in) w a + σ_b b with w, b ~ N(0, 1) trained (Jacot et al. 2018).
 */
public enum Parameterization {
    STANDARD,
    NTK;

    /** Multiplier c_w of W·a in a layer's output: σ_w/√fan_in in NTK parameterisation, 1 in standard. */
    public double weightScale(double sigmaW, long fanIn) {
        return this == NTK ? sigmaW / Math.sqrt(fanIn) : 1.0;
    }

    /** Multiplier c_b of the bias: σ_b in NTK parameterisation, 1 in standard, 0 without a bias. */
    public double biasScale(boolean hasBias, double sigmaB) {
        return !hasBias ? 0 : this == NTK ? sigmaB : 1.0;
    }
}
