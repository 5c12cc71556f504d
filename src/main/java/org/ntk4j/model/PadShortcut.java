package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;

/**
 * Parameter-free ResNet shortcut, "option A" of He et al. (2016) §4.2: subsample by the stride,
 * y = x[:, :, ::s, ::s], then zero-pad the channels from C_in to C_out, ⌊(C_out − C_in)/2⌋ zero
 * channels before and the rest after (as the common CIFAR ResNet code, F.pad(x[:, :, ::2, ::2],
 * (0, 0, 0, 0, C_out/4, C_out/4)) when C_out = 2·C_in).
 */
public final class PadShortcut extends Module {
    private final int outChannels;
    private final int stride;
    private long inChannels;

    public PadShortcut(String name, int outChannels, int stride) {
        super(name);
        this.outChannels = outChannels;
        this.stride = stride;
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        inChannels = in.get(0);
        if (inChannels > outChannels) {
            throw new IllegalArgumentException(
                    name() + ": cannot pad " + inChannels + " channels down to " + outChannels);
        }
        return new Shape(outChannels, (in.get(1) + stride - 1) / stride, (in.get(2) + stride - 1) / stride);
    }

    @Override
    public Shape plan(Shape in, ParameterCount count) {
        if (in.get(0) > outChannels) {
            throw new IllegalArgumentException(
                    name() + ": cannot pad " + in.get(0) + " channels down to " + outChannels);
        }
        return new Shape(outChannels, (in.get(1) + stride - 1) / stride, (in.get(2) + stride - 1) / stride);
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        NDArray y = stride == 1 ? x : x.get(new NDIndex(":, :, ::{}, ::{}", stride, stride));
        long before = (outChannels - inChannels) / 2;
        long after = outChannels - inChannels - before;
        if (before + after == 0) {
            return y;
        }
        Shape s = y.getShape();
        NDManager m = ctx.manager();
        NDList parts = new NDList();
        if (before > 0) {
            parts.add(m.zeros(new Shape(s.get(0), before, s.get(2), s.get(3)), y.getDataType(), y.getDevice()));
        }
        parts.add(y);
        if (after > 0) {
            parts.add(m.zeros(new Shape(s.get(0), after, s.get(2), s.get(3)), y.getDataType(), y.getDevice()));
        }
        return NDArrays.concat(parts, 1);
    }
}
