package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;
import java.util.Locale;

/** The class-target encoding of a {@link TrainSpec}'s MSE loss. */
public enum TargetEncoding {
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

    /** The name used in spec JSON. */
    public String json() {
        return json;
    }

    @Override
    public String toString() {
        return json;
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static TargetEncoding of(String s) {
        if (s == null) {
            return null;
        }
        String n = s.toLowerCase(Locale.ROOT);
        for (TargetEncoding v : values()) {
            if (v.json.equals(n)) {
                return v;
            }
        }
        return null;
    }
}
