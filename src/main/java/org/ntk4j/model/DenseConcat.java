package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.List;
import java.util.Random;

/**
 * DenseNet connectivity (Huang et al. 2017): y = concat(x, layer(x)) along the channel axis, so a
 * dense block of L such modules sees C_0 + (l−1)·k input channels at its l-th layer (growth k).
 * {@code layer} must keep the spatial size.
 */
public final class DenseConcat extends Module {
    private final Module layer;

    public DenseConcat(String name, Module layer) {
        super(name);
        this.layer = layer;
    }

    @Override
    public List<Module> children() {
        return List.of(layer);
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        Shape out = layer.initialize(m, type, in, rng);
        if (out.dimension() != 3 || out.get(1) != in.get(1) || out.get(2) != in.get(2)) {
            throw new IllegalArgumentException(
                    name() + ": layer maps " + in + " to " + out + "; spatial size must be kept");
        }
        return new Shape(in.get(0) + out.get(0), in.get(1), in.get(2));
    }

    @Override
    public Shape plan(Shape in, ParameterCount count) {
        Shape out = layer.plan(in, count);
        if (out.dimension() != 3 || out.get(1) != in.get(1) || out.get(2) != in.get(2)) {
            throw new IllegalArgumentException(
                    name() + ": layer maps " + in + " to " + out + "; spatial size must be kept");
        }
        return new Shape(in.get(0) + out.get(0), in.get(1), in.get(2));
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        return x.concat(layer.forward(x, ctx), 1);
    }
}
