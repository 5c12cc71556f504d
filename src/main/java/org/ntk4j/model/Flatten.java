package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;

/** Flattens each sample to a vector: (N, ...) → (N, d). */
public final class Flatten extends Module {
    public Flatten(String name) {
        super(name);
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        return new Shape(in.size());
    }

    @Override
    public Shape plan(Shape in, ParameterCount count) {
        return new Shape(in.size());
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        return x.reshape(x.getShape().get(0), -1);
    }
}
