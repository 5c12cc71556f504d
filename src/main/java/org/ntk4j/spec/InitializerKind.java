package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;

/** The weight initialiser of a {@link ModelSpec}; {@code org.ntk4j.model.WeightInit} has the same constants. */
public enum InitializerKind implements SpecName {
    @SerializedName("gaussian")
    GAUSSIAN,
    @SerializedName("he")
    HE,
    @SerializedName("lecun")
    LECUN,
    @SerializedName("he_fan_out")
    HE_FAN_OUT,
    @SerializedName("torch_default")
    TORCH_DEFAULT;

    @Override
    public String toString() {
        return json();
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static InitializerKind of(String s) {
        return SpecName.of(InitializerKind.class, s);
    }
}
