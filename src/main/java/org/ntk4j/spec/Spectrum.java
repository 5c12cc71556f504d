package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;

/** The input covariance spectrum of an anisotropic-linear-teacher {@link DatasetSpec}. */
public enum Spectrum implements SpecName {
    @SerializedName("power-law")
    POWER_LAW,
    @SerializedName("geometric")
    GEOMETRIC,
    @SerializedName("inverse-one-plus-power")
    INVERSE_ONE_PLUS_POWER;

    @Override
    public String toString() {
        return json();
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static Spectrum of(String s) {
        return SpecName.of(Spectrum.class, s);
    }
}
