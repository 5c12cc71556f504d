package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;

/** The generator of a {@link DatasetSpec}. */
public enum DatasetKind implements SpecName {
    @SerializedName("whitened-linear-teacher")
    WHITENED_LINEAR_TEACHER,
    @SerializedName("anisotropic-linear-teacher")
    ANISOTROPIC_LINEAR_TEACHER,
    @SerializedName("multi-output-teacher")
    MULTI_OUTPUT_TEACHER,
    @SerializedName("chain-monomial")
    CHAIN_MONOMIAL;

    @Override
    public String toString() {
        return json();
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static DatasetKind of(String s) {
        return SpecName.of(DatasetKind.class, s);
    }
}
