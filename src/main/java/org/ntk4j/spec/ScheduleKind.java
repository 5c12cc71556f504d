package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;
import java.util.Locale;

/** The learning-rate schedule of a {@link TrainSpec}. */
public enum ScheduleKind {
    @SerializedName("constant")
    CONSTANT("constant"),
    @SerializedName("cosine")
    COSINE("cosine"),
    @SerializedName("step")
    STEP("step"),
    @SerializedName("warmup-cosine")
    WARMUP_COSINE("warmup-cosine");

    private final String json;

    ScheduleKind(String json) {
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
    public static ScheduleKind of(String s) {
        if (s == null) {
            return null;
        }
        String n = s.toLowerCase(Locale.ROOT);
        for (ScheduleKind v : values()) {
            if (v.json.equals(n)) {
                return v;
            }
        }
        return null;
    }
}
