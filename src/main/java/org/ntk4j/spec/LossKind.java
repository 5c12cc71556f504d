package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;
import java.util.Locale;

/** The loss of a {@link TrainSpec}: mean squared error or softmax cross-entropy. */
public enum LossKind {
    @SerializedName("mse")
    MSE("mse"),
    @SerializedName("ce")
    CE("ce");

    private final String json;

    LossKind(String json) {
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
    public static LossKind of(String s) {
        if (s == null) {
            return null;
        }
        String n = s.toLowerCase(Locale.ROOT);
        for (LossKind v : values()) {
            if (v.json.equals(n)) {
                return v;
            }
        }
        return null;
    }
}
