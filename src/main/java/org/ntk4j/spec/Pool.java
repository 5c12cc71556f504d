package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;

/** Pooling after each conv of the {@code cnn} arch of a {@link ModelSpec} (2×2, stride 2). */
public enum Pool implements SpecName {
    @SerializedName("max")
    MAX,
    @SerializedName("avg")
    AVG,
    @SerializedName("none")
    NONE;

    @Override
    public String toString() {
        return json();
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static Pool of(String s) {
        return SpecName.of(Pool.class, s);
    }
}
