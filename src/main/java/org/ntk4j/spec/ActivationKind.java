package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;

/** The activation φ of a {@link ModelSpec} and of the network's {@code org.ntk4j.model.Activation} layers. */
public enum ActivationKind implements SpecName {
    @SerializedName("relu")
    RELU,
    @SerializedName("tanh")
    TANH,
    @SerializedName("erf")
    ERF,
    @SerializedName("linear")
    LINEAR,
    @SerializedName("quadratic")
    QUADRATIC;

    @Override
    public String toString() {
        return json();
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static ActivationKind of(String s) {
        return SpecName.of(ActivationKind.class, s);
    }
}
