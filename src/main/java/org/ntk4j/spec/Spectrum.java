package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;
import java.util.Locale;

/** The input covariance spectrum of an anisotropic-linear-teacher {@link DatasetSpec}. */
public enum Spectrum {
    @SerializedName("power-law")
    POWER_LAW("power-law"),
    @SerializedName("geometric")
    GEOMETRIC("geometric"),
    @SerializedName("inverse-one-plus-power")
    INVERSE_ONE_PLUS_POWER("inverse-one-plus-power");

    private final String json;

    Spectrum(String json) {
        this.json = json;
    }

    /** The name used in spec JSON. */
    public String json() {
        return json;
    }

    @Override
    public String toString() {
        return json;
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static Spectrum of(String s) {
        if (s == null) {
            return null;
        }
        String n = s.toLowerCase(Locale.ROOT);
        for (Spectrum v : values()) {
            if (v.json.equals(n)) {
                return v;
            }
        }
        return null;
    }
}
