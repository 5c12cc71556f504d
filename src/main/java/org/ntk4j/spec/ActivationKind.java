package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;
import java.util.Locale;

/** The activation φ of a {@link ModelSpec}; {@code org.ntk4j.model.Activation.Kind} has one constant of the same name per value. */
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

    /** The lower-case name used in spec JSON. */
    @Override
    public String json() {
        return name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return json();
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static ActivationKind of(String s) {
        return SpecName.of(ActivationKind.class, s);
    }
}
