package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;

/** The loss of a {@link TrainSpec}: mean squared error or softmax cross-entropy. */
public enum LossKind implements SpecName {
    @SerializedName("mse")
    MSE,
    @SerializedName("ce")
    CE;

    @Override
    public String toString() {
        return json();
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static LossKind of(String s) {
        return SpecName.of(LossKind.class, s);
    }
}
