package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;

/** The architectures of a {@link ModelSpec}; {@code custom} and {@code djl} mark networks built from Java modules or DJL blocks (not accepted in spec files). */
public enum Arch implements SpecName {
    @SerializedName("mlp")
    MLP,
    @SerializedName("linear")
    LINEAR,
    @SerializedName("cnn")
    CNN,
    @SerializedName("vgg")
    VGG,
    @SerializedName("resnet")
    RESNET,
    @SerializedName("densenet")
    DENSENET,
    @SerializedName("wrn")
    WRN,
    @SerializedName("custom")
    CUSTOM,
    @SerializedName("djl")
    DJL;

    @Override
    public String toString() {
        return json();
    }

    /** The constant whose JSON name is {@code s} (any case), or null if none or {@code s} is null. */
    public static Arch of(String s) {
        return SpecName.of(Arch.class, s);
    }
}
