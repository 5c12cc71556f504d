package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;
import java.util.Locale;

/** The optimiser of a {@link TrainSpec}. */
public enum OptimizerKind {
    @SerializedName("sgd")
    SGD("sgd"),
    @SerializedName("adam")
    ADAM("adam");

    private final String json;

    OptimizerKind(String json) {
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
    public static OptimizerKind of(String s) {
        if (s == null) {
            return null;
        }
        String n = s.toLowerCase(Locale.ROOT);
        for (OptimizerKind v : values()) {
            if (v.json.equals(n)) {
                return v;
            }
        }
        return null;
    }
}
