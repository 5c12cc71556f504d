package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;
import java.util.Locale;

/** Standard or NTK parameterisation of a {@link ModelSpec}; {@code org.ntk4j.model.Parameterization} has the same constants. */
public enum Parameterization implements SpecName {
    @SerializedName("standard")
    STANDARD,
    @SerializedName("ntk")
    NTK;

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
    public static Parameterization of(String s) {
        return SpecName.of(Parameterization.class, s);
    }
}
