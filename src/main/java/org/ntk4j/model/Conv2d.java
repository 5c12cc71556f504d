package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;
import org.ntk4j.spec.Parameterization;

/**
 * 2-d convolution (cross-correlation, as torch.nn.Conv2d), weight W of shape (C_out, C_in, k, k),
 * square kernel, symmetric zero padding, optional bias b of shape (C_out):
 * y[n,o,i,j] = c_w·Σ_{c,u,v} W[o,c,u,v]·x[n,c,s·i+u−p,s·j+v−p] + c_b·b[o].
 * Output size H' = ⌊(H + 2p − k)/s⌋ + 1. fan_in = C_in·k², fan_out = C_out·k².
 *
 * <p>Parameterisation as {@link Dense}: NTK y = σ_w/√fan_in·conv(w, x) + σ_b·b with w, b ~ N(0, 1);
 * standard y = conv(W, x) + b with W from the {@link WeightInit} (TORCH_DEFAULT: W, b ~
 * U(±1/√fan_in), PyTorch's nn.Conv2d default; Gaussian initialisers: b ~ N(0, σ_b²)).
 *
 * <p>Tangent-aware like {@link Dense}: in probe mode it hands its input and output to the
 * {@link TangentProbe}, and the structured NTK path builds its per-sample gradients from im2col
 * patches and output gradients (kernel.ConvFactors) instead of per-sample backward passes.
 */
public final class Conv2d extends Module implements TangentLayer {
    private final int outChannels;
    private final int kernel;
    private final int stride;
    private final int padding;
    private final Parameterization parameterization;
    private final WeightInit initializer;
    private final double sigmaW;
    private final double sigmaB;
    private final Param weight;
    private final Param bias;
    private final int padChannels;
    private long fanIn;
    private long positions;

    public Conv2d(
            String name,
            int outChannels,
            int kernel,
            int stride,
            int padding,
            boolean bias,
            Parameterization parameterization,
            WeightInit initializer,
            double sigmaW,
            double sigmaB) {
        super(name);
        if (outChannels <= 0 || kernel <= 0 || stride <= 0 || padding < 0) {
            throw new IllegalArgumentException(name + ": bad conv geometry");
        }
        this.outChannels = outChannels;
        this.kernel = kernel;
        this.stride = stride;
        this.padding = padding;
        this.parameterization = parameterization;
        this.initializer = initializer;
        this.sigmaW = sigmaW;
        this.sigmaB = sigmaB;
        this.weight = param("weight", Param.Role.WEIGHT);
        this.bias = bias ? param("bias", Param.Role.BIAS) : null;
        this.padChannels = PaddedConv.padChannels(kernel, kernel, outChannels);
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        if (in.dimension() != 3) {
            throw new IllegalArgumentException(name() + ": expects (C, H, W) input, got " + in);
        }
        long cin = in.get(0);
        fanIn = cin * kernel * kernel;
        long fanOut = (long) outChannels * kernel * kernel;
        Shape ws = new Shape(outChannels, cin, kernel, kernel);
        Shape bs = new Shape(outChannels);
        if (parameterization == Parameterization.NTK) {
            weight.set(create(m, type, gaussian(rng, ws.size(), 1.0), ws));
            if (bias != null) {
                bias.set(create(m, type, gaussian(rng, outChannels, 1.0), bs));
            }
        } else if (initializer == WeightInit.TORCH_DEFAULT) {
            double bound = 1.0 / Math.sqrt(fanIn);
            weight.set(create(m, type, uniform(rng, ws.size(), bound), ws));
            if (bias != null) {
                bias.set(create(m, type, uniform(rng, outChannels, bound), bs));
            }
        } else {
            weight.set(create(m, type, gaussian(rng, ws.size(), initializer.std(sigmaW, fanIn, fanOut)), ws));
            if (bias != null) {
                bias.set(create(m, type, gaussian(rng, outChannels, sigmaB), bs));
            }
        }
        long h = outSize(in.get(1));
        long w = outSize(in.get(2));
        if (h <= 0 || w <= 0) {
            throw new IllegalArgumentException(name() + ": input " + in + " too small for kernel " + kernel);
        }
        positions = h * w;
        return new Shape(outChannels, h, w);
    }

    private long outSize(long n) {
        return (n + 2L * padding - kernel) / stride + 1;
    }

    @Override
    public Shape plan(Shape in, ParameterCount count) {
        if (in.dimension() != 3) {
            throw new IllegalArgumentException(name() + ": expects (C, H, W) input, got " + in);
        }
        count.add((long) outChannels * in.get(0) * kernel * kernel + (bias != null ? outChannels : 0));
        long h = outSize(in.get(1));
        long w = outSize(in.get(2));
        if (h <= 0 || w <= 0) {
            throw new IllegalArgumentException(name() + ": input " + in + " too small for kernel " + kernel);
        }
        return new Shape(outChannels, h, w);
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        boolean ntk = parameterization == Parameterization.NTK;
        NDArray b = bias == null ? null : bias.value();
        NDArray y = PaddedConv.convolve(x, weight.value(), ntk ? null : b, stride, padding, padChannels, ctx);
        if (ntk) {
            y = y.mul(ctx.scalar(weightScale(), y));
            if (b != null) {
                y = y.add(b.mul(ctx.scalar(sigmaB, b)).reshape(outChannels, 1, 1));
            }
        }
        return ctx.probe() == null ? y : ctx.probe().tap(this, x, y);
    }

    /** Multiplier of conv(W, x): σ_w/√fan_in in NTK parameterisation, 1 in standard. */
    @Override
    public double weightScale() {
        return parameterization.weightScale(sigmaW, fanIn);
    }

    /** Multiplier of b: σ_b in NTK parameterisation, 1 in standard; 0 without bias. */
    @Override
    public double biasScale() {
        return parameterization.biasScale(bias != null, sigmaB);
    }

    /** Output positions H'·W' per sample (after initialisation). */
    public long outputPositions() {
        return positions;
    }

    @Override
    public Param weight() {
        return weight;
    }

    /** The bias, or null. */
    @Override
    public Param bias() {
        return bias;
    }

    public int outChannels() {
        return outChannels;
    }

    public int kernel() {
        return kernel;
    }

    public int stride() {
        return stride;
    }

    public int padding() {
        return padding;
    }
}
