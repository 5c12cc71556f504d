package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;

/** The learning-rate schedule of a {@link TrainSpec}. */
public enum ScheduleKind implements SpecName {
    @SerializedName("constant")
    CONSTANT,
    @SerializedName("cosine")
    COSINE,
    @SerializedName("step")
    STEP,
    @SerializedName("warmup-cosine")
    WARMUP_COSINE;

    @Override
    public String toString() {
        return json();
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static ScheduleKind of(String s) {
        return SpecName.of(ScheduleKind.class, s);
    }
}
