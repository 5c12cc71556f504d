package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import org.ntk4j.natives.OneDnn;

/**
 * The convolution of {@link Conv2d} and {@link DjlConv2d}, with zero filters added where libtorch's oneDNN would get
 * the input gradient wrong ({@link OneDnn}): conv(x, [W; 0]) + [b; 0], then the first C_out channels. The result and
 * the gradients of x, W and b are those of conv(x, W) + b; only the engine's path differs.
 */
final class PaddedConv {
    private PaddedConv() {}

    /**
     * conv(x, W) + b, square stride and padding, one group; with {@code padChannels} > 0 and {@link OneDnn#pads} the
     * filters are zero-padded by that many output channels, which are dropped again (their weights get no gradient), so
     * that oneDNN's input gradient is right ({@link OneDnn}).
     */
    static NDArray convolve(NDArray x, NDArray w, NDArray b, int stride, int padding, int padChannels, Forward ctx) {
        boolean padded = padChannels > 0 && OneDnn.pads(x);
        NDArray wc = w;
        NDArray bc = b;
        if (padded) {
            NDManager pm = ctx.manager();
            Shape ws = w.getShape();
            wc = w.concat(pm.zeros(new Shape(padChannels).addAll(ws.slice(1)), w.getDataType(), w.getDevice()), 0);
            if (b != null) {
                bc = b.concat(pm.zeros(new Shape(padChannels), b.getDataType(), b.getDevice()), 0);
            }
        }
        NDArray y = JniUtils.convolution(
                (PtNDArray) x,
                (PtNDArray) wc,
                (PtNDArray) bc,
                new Shape(stride, stride),
                new Shape(padding, padding),
                new Shape(1, 1),
                1);
        return padded ? y.get(new NDIndex(":, 0:{}", w.getShape().get(0))) : y;
    }

    /** The zero output channels that make {@code outChannels} a multiple of oneDNN's block, 0 when it needs none. */
    static int padChannels(long kernelHeight, long kernelWidth, long outChannels) {
        return OneDnn.unsafe(kernelHeight, kernelWidth, outChannels)
                ? (int) (OneDnn.SAFE_MULTIPLE - outChannels % OneDnn.SAFE_MULTIPLE)
                : 0;
    }
}
