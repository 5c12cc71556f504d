package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;

/**
 * Global average pooling to a flat vector: (N, C, H, W) → (N, C), y[n,c] = (1/HW)·Σ_{i,j} x[n,c,i,j].
 * Parameter-free. Implemented as a reshape to (N, C, H·W) and a mean over the last axis (PtNDArray's
 * mean accepts one axis only in DJL 0.35).
 */
public final class GlobalAvgPool extends Module {
    public GlobalAvgPool(String name) {
        super(name);
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        if (in.dimension() != 3) {
            throw new IllegalArgumentException(name() + ": expects (C, H, W) input, got " + in);
        }
        return new Shape(in.get(0));
    }

    @Override
    public Shape plan(Shape in, ParameterCount count) {
        if (in.dimension() != 3) {
            throw new IllegalArgumentException(name() + ": expects (C, H, W) input, got " + in);
        }
        return new Shape(in.get(0));
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        Shape s = x.getShape();
        return x.reshape(s.get(0), s.get(1), -1).mean(new int[] {2});
    }
}
