package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;

/** ResNet shortcut of a {@link ModelSpec}: 1×1 conv + BN projection (option B) or subsample + zero-pad (option A). */
public enum Shortcut implements SpecName {
    @SerializedName("projection")
    PROJECTION,
    @SerializedName("pad")
    PAD;

    @Override
    public String toString() {
        return json();
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static Shortcut of(String s) {
        return SpecName.of(Shortcut.class, s);
    }
}
