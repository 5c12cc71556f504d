package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.training.ParameterStore;
import org.ntk4j.natives.OneDnn;

/**
 * A DJL {@link Conv2d} as a tappable module. The conv rule covers square kernels with equal strides
 * and paddings, no dilation and one group ({@link #unsupported()}); others take the Jacobian path.
 */
public final class DjlConv2d extends DjlLayer {
    private final Conv2d conv;
    private final int padChannels;

    DjlConv2d(String name, Conv2d block, ParameterStore store) {
        super(name, block, store, "weight", Param.Role.WEIGHT, "bias", Param.Role.BIAS);
        this.conv = block;
        Shape k = block.getKernelShape();
        this.padChannels = k.dimension() == 2 ? PaddedConv.padChannels(k.get(0), k.get(1), block.getFilters()) : 0;
        if (padChannels > 0) {
            OneDnn.warnFor(name + " (" + k.get(0) + "x" + k.get(1) + ", " + block.getFilters() + " channels)");
        }
    }

    /**
     * DJL's convolution, or for a layer oneDNN gets wrong ({@link OneDnn#unsafe}) the same convolution with zero-padded
     * filters ({@link PaddedConv}); geometries the conv rule does not cover take the per-sample Jacobian path,
     * which oneDNN never sees.
     */
    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        if (padChannels == 0 || unsupported() != null || !OneDnn.pads(x)) {
            return super.forward(x, ctx);
        }
        NDArray y = PaddedConv.convolve(
                x, weight().value(), bias() == null ? null : bias().value(), stride(), padding(), padChannels, ctx);
        return ctx.probe() == null ? y : ctx.probe().tap(this, probeInput(x), y);
    }

    /** Null when the geometry is one the conv rule handles, else what is not. */
    public String unsupported() {
        Shape k = conv.getKernelShape();
        Shape s = conv.getStride();
        Shape p = conv.getPadding();
        Shape d = conv.getDilation();
        if (k.get(0) != k.get(1) || s.get(0) != s.get(1) || p.get(0) != p.get(1)) {
            return "non-square kernel, stride or padding";
        }
        if (d.get(0) != 1 || d.get(1) != 1 || conv.getGroups() != 1) {
            return "dilation or groups";
        }
        return null;
    }

    public int kernel() {
        return (int) conv.getKernelShape().get(0);
    }

    public int stride() {
        return (int) conv.getStride().get(0);
    }

    public int padding() {
        return (int) conv.getPadding().get(0);
    }

    /** Output positions H'·W' per sample. */
    public long outputPositions() {
        Shape in = inputShape();
        long h = (in.get(1) + 2L * padding() - kernel()) / stride() + 1;
        long w = (in.get(2) + 2L * padding() - kernel()) / stride() + 1;
        return h * w;
    }
}
