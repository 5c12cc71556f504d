package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;

/**
 * One trainable tensor of a {@link Module} (or a non-trainable buffer such as batch-norm running
 * statistics). The value is a leaf NDArray that requires a gradient when {@link #trainable()}.
 * ntk4j owns its parameters rather than using DJL's {@code Parameter}, whose arrays cannot be
 * re-cast to float64 or replaced once set (needed for float64 kernels and checkpoint loading).
 */
public final class Param {
    /** What the tensor is; exporters and initialisers key on it. */
    public enum Role {
        WEIGHT,
        BIAS,
        GAMMA,
        BETA,
        RUNNING_MEAN,
        RUNNING_VAR
    }

    private final String name;
    private final Role role;
    private NDArray value;

    Param(String name, Role role) {
        this.name = name;
        this.role = role;
    }

    /** Full name, unique within the network, e.g. {@code dense1.weight}. */
    public String name() {
        return name;
    }

    public Role role() {
        return role;
    }

    public boolean trainable() {
        return role != Role.RUNNING_MEAN && role != Role.RUNNING_VAR;
    }

    public NDArray value() {
        if (value == null) {
            throw new IllegalStateException("parameter " + name + " is not initialised");
        }
        return value;
    }

    /**
     * Replaces the value by {@code v} (which this Param now owns; the old value is closed).
     * Trainable values are made leaves that require a gradient.
     */
    public void set(NDArray v) {
        NDArray old = value;
        value = v;
        value.setName(name);
        if (trainable()) {
            value.setRequiresGradient(true);
        }
        if (old != null && old != v) {
            old.close();
        }
    }

    /**
     * Presents {@code v} as the value without taking ownership and returns the value it hides, which the caller puts
     * back with a second swap before anything else reads this parameter: a trainer's per-step leaf
     * (org.ntk4j.train.UpdateRule#beginStep). Nothing is closed.
     */
    public NDArray swap(NDArray v) {
        NDArray old = value;
        value = v;
        return old;
    }

    /** Points at an array owned elsewhere (a DJL block's parameter) without taking ownership. */
    void adopt(NDArray v) {
        value = v;
    }

    /** Re-casts the value (a copy, still a leaf) to the data type. */
    public void cast(DataType type) {
        if (value.getDataType() != type) {
            set(value.toType(type, true));
        }
    }

    public long size() {
        return value().size();
    }
}
