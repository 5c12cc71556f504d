package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;

/**
 * How a layer's weights enter its output (Seleznova, NTK thesis, eqs. (2.26), (2.51)–(2.53); neural-tangents'
 * {@code stax.Dense(parameterization=...)}, Novak et al. 2020). STANDARD: y = W a + b with W ~ N(0, σ_w²/fan_in),
 * b ~ N(0, σ_b²), trained as they are. NTK: y = (σ_w/√fan_in) w a + σ_b β with w, β ~ N(0, 1) trained (Jacot et
 * al. 2018). The forward law is the same; the NTKs differ by per-layer factors (σ_w²/fan_in for weights, σ_b² for
 * biases).
 */
public enum Parameterization implements SpecName {
    @SerializedName("standard")
    STANDARD,
    @SerializedName("ntk")
    NTK;

    @Override
    public String toString() {
        return json();
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static Parameterization of(String s) {
        return SpecName.of(Parameterization.class, s);
    }

    /** Multiplier c_w of W·a in a layer's output: σ_w/√fan_in in NTK parameterisation, 1 in standard. */
    public double weightScale(double sigmaW, long fanIn) {
        return this == NTK ? sigmaW / Math.sqrt(fanIn) : 1.0;
    }

    /** Multiplier c_b of the bias: σ_b in NTK parameterisation, 1 in standard, 0 without a bias. */
    public double biasScale(boolean hasBias, double sigmaB) {
        return !hasBias ? 0 : this == NTK ? sigmaB : 1.0;
    }
}
