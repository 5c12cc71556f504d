package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;

/**
 * Max pooling over k×k windows with stride s (torch.nn.MaxPool2d(k, s), no padding, floor mode):
 * y[n,c,i,j] = max_{u,v<k} x[n,c,s·i+u,s·j+v]. Parameter-free.
 */
public final class MaxPool2d extends Module {
    private final int kernel;
    private final int stride;

    public MaxPool2d(String name, int kernel, int stride) {
        super(name);
        this.kernel = kernel;
        this.stride = stride;
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        return AvgPool2d.pooledShape(name(), in, kernel, stride);
    }

    @Override
    public Shape plan(Shape in, ParameterCount count) {
        return AvgPool2d.pooledShape(name(), in, kernel, stride);
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        return x.getNDArrayInternal()
                .maxPool(new Shape(kernel, kernel), new Shape(stride, stride), new Shape(0, 0), false);
    }
}
