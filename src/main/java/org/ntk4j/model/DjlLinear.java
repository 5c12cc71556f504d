package org.ntk4j.model;

import ai.djl.nn.core.Linear;
import ai.djl.training.ParameterStore;

/** A DJL {@link Linear}, y = x Wᵀ + b over the last axis, as a tappable module (dense rule). */
public final class DjlLinear extends DjlLayer {
    DjlLinear(String name, Linear block, ParameterStore store) {
        super(name, block, store, "weight", Param.Role.WEIGHT, "bias", Param.Role.BIAS);
    }

    /** Whether each sample's input is a vector (the dense rule needs A of shape (n, in)). */
    public boolean flatInput() {
        return inputShape() != null && inputShape().dimension() == 1;
    }
}
