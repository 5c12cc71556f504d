package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;

/** The optimiser of a {@link TrainSpec}. */
public enum OptimizerKind implements SpecName {
    @SerializedName("sgd")
    SGD("sgd"),
    @SerializedName("adam")
    ADAM("adam"),
    /** Speed-limited optimisation ("Feature learning as alignment", anonymous, §5.2): per-layer normalised steps. */
    @SerializedName("slo")
    SLO("slo");

    private final String json;

    OptimizerKind(String json) {
        this.json = json;
    }

    @Override
    public String json() {
        return json;
    }

    @Override
    public String toString() {
        return json;
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static OptimizerKind of(String s) {
        return SpecName.of(OptimizerKind.class, s);
    }
}
