package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;

/**
 * Average pooling over k×k windows with stride s (torch.nn.AvgPool2d(k, s), no padding, floor mode):
 * y[n,c,i,j] = (1/k²)·Σ_{u,v<k} x[n,c,s·i+u,s·j+v]. Parameter-free.
 */
public final class AvgPool2d extends Module {
    private final int kernel;
    private final int stride;

    public AvgPool2d(String name, int kernel, int stride) {
        super(name);
        this.kernel = kernel;
        this.stride = stride;
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        return pooledShape(name(), in, kernel, stride);
    }

    static Shape pooledShape(String name, Shape in, int kernel, int stride) {
        if (in.dimension() != 3 || in.get(1) < kernel || in.get(2) < kernel) {
            throw new IllegalArgumentException(
                    name + ": cannot pool " + in + " with a " + kernel + "×" + kernel + " window");
        }
        return new Shape(in.get(0), (in.get(1) - kernel) / stride + 1, (in.get(2) - kernel) / stride + 1);
    }

    @Override
    public Shape plan(Shape in, ParameterCount count) {
        return pooledShape(name(), in, kernel, stride);
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        return x.getNDArrayInternal()
                .avgPool(new Shape(kernel, kernel), new Shape(stride, stride), new Shape(0, 0), false, true);
    }
}
