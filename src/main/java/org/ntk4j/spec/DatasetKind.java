package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;
import java.util.Locale;

/** The generator of a {@link DatasetSpec}. */
public enum DatasetKind {
    @SerializedName("whitened-linear-teacher")
    WHITENED_LINEAR_TEACHER("whitened-linear-teacher"),
    @SerializedName("anisotropic-linear-teacher")
    ANISOTROPIC_LINEAR_TEACHER("anisotropic-linear-teacher"),
    @SerializedName("multi-output-teacher")
    MULTI_OUTPUT_TEACHER("multi-output-teacher"),
    @SerializedName("chain-monomial")
    CHAIN_MONOMIAL("chain-monomial");

    private final String json;

    DatasetKind(String json) {
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
    public static DatasetKind of(String s) {
        if (s == null) {
            return null;
        }
        String n = s.toLowerCase(Locale.ROOT);
        for (DatasetKind v : values()) {
            if (v.json.equals(n)) {
                return v;
            }
        }
        return null;
    }
}
