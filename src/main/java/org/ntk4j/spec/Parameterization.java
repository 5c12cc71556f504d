package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;
import java.util.Locale;

/** Standard or NTK parameterisation of a {@link ModelSpec}; {@code org.ntk4j.model.Parameterization} has the same constants. */
public enum Parameterization {
    @SerializedName("standard")
    STANDARD,
    @SerializedName("ntk")
    NTK;

    /** The lower-case name used in spec JSON. */
    public String json() {
        return name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return json();
    }

    /** The constant whose JSON name is {@code s} (trimmed, any case), or null if none or {@code s} is null. */
    public static Parameterization of(String s) {
        if (s == null) {
            return null;
        }
        String n = s.trim().toLowerCase(Locale.ROOT);
        for (Parameterization v : values()) {
            if (v.json().equals(n)) {
                return v;
            }
        }
        return null;
    }
}
