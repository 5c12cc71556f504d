package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;

/** The optimiser of a {@link TrainSpec}. */
public enum OptimizerKind implements SpecName {
    @SerializedName("sgd")
    SGD,
    @SerializedName("adam")
    ADAM,
    /** Speed-limited optimisation ("Feature learning as alignment", anonymous, §5.2): per-layer normalised steps. */
    @SerializedName("slo")
    SLO;

    @Override
    public String toString() {
        return json();
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static OptimizerKind of(String s) {
        return SpecName.of(OptimizerKind.class, s);
    }
}
