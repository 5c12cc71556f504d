package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;

/** The class-target encoding of a {@link TrainSpec}'s MSE loss. */
public enum TargetEncoding implements SpecName {
    @SerializedName("onehot")
    ONEHOT("onehot"),
    @SerializedName("pm1")
    PM1("pm1"),
    @SerializedName("centered")
    CENTERED("centered");

    private final String json;

    TargetEncoding(String json) {
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
    public static TargetEncoding of(String s) {
        return SpecName.of(TargetEncoding.class, s);
    }
}
