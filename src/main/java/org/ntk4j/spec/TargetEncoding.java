package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;

/** The class-target encoding of a {@link TrainSpec}'s MSE loss. */
public enum TargetEncoding implements SpecName {
    @SerializedName("onehot")
    ONEHOT,
    @SerializedName("pm1")
    PM1,
    @SerializedName("centered")
    CENTERED;

    @Override
    public String toString() {
        return json();
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static TargetEncoding of(String s) {
        return SpecName.of(TargetEncoding.class, s);
    }
}
