package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;
import org.ntk4j.spec.Parameterization;

/**
 * Fully connected layer y = c_w·W a + c_b·b, W of shape (out × in), tangent-aware: in probe mode it
 * hands its input and output to the {@link TangentProbe}. c_w = σ_w/√fan_in and c_b = σ_b in NTK
 * parameterisation, both 1 in standard parameterisation.
 */
public final class Dense extends Module implements TangentLayer {
    private final int units;
    private final Parameterization parameterization;
    private final WeightInit initializer;
    private final double sigmaW;
    private final double sigmaB;
    private final Param weight;
    private final Param bias;
    private long fanIn;

    public Dense(
            String name,
            int units,
            boolean bias,
            Parameterization parameterization,
            WeightInit initializer,
            double sigmaW,
            double sigmaB) {
        super(name);
        this.units = units;
        this.parameterization = parameterization;
        this.initializer = initializer;
        this.sigmaW = sigmaW;
        this.sigmaB = sigmaB;
        this.weight = param("weight", Param.Role.WEIGHT);
        this.bias = bias ? param("bias", Param.Role.BIAS) : null;
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        if (in.dimension() != 1) {
            throw new IllegalArgumentException(name() + ": expects flat input, got " + in);
        }
        fanIn = in.get(0);
        Shape ws = new Shape(units, fanIn);
        if (parameterization == Parameterization.NTK) {
            weight.set(create(m, type, gaussian(rng, ws.size(), 1.0), ws));
            if (bias != null) {
                bias.set(create(m, type, gaussian(rng, units, 1.0), new Shape(units)));
            }
        } else if (initializer == WeightInit.TORCH_DEFAULT) {
            double bound = 1.0 / Math.sqrt(fanIn);
            weight.set(create(m, type, uniform(rng, ws.size(), bound), ws));
            if (bias != null) {
                bias.set(create(m, type, uniform(rng, units, bound), new Shape(units)));
            }
        } else {
            weight.set(create(m, type, gaussian(rng, ws.size(), initializer.std(sigmaW, fanIn, units)), ws));
            if (bias != null) {
                bias.set(create(m, type, gaussian(rng, units, sigmaB), new Shape(units)));
            }
        }
        return new Shape(units);
    }

    @Override
    public Shape plan(Shape in, ParameterCount count) {
        if (in.dimension() != 1) {
            throw new IllegalArgumentException(name() + ": expects flat input, got " + in);
        }
        count.add((long) units * in.get(0) + (bias != null ? units : 0));
        return new Shape(units);
    }

    @Override
    public NDArray forward(NDArray a, Forward ctx) {
        if (ctx.fused() && parameterization != Parameterization.NTK) { // a fused pass has no probe
            // y = a·Wᵀ + b in one addmm (PyTorch's linear): what a training step runs
            NDArray b = bias == null ? null : bias.value();
            return a.getNDArrayInternal().linear(a, weight.value(), b).singletonOrThrow();
        }
        NDArray y = a.matMul(weight.value().transpose());
        if (parameterization == Parameterization.NTK) {
            y = y.mul(ctx.scalar(weightScale(), y));
        }
        if (bias != null) {
            NDArray b = bias.value();
            y = y.add(parameterization == Parameterization.NTK ? b.mul(ctx.scalar(sigmaB, b)) : b);
        }
        return ctx.probe() == null ? y : ctx.probe().tap(this, a, y);
    }

    @Override
    public double weightScale() {
        return parameterization.weightScale(sigmaW, fanIn);
    }

    @Override
    public double biasScale() {
        return parameterization.biasScale(bias != null, sigmaB);
    }

    @Override
    public Param weight() {
        return weight;
    }

    @Override
    public Param bias() {
        return bias;
    }

    public int units() {
        return units;
    }
}
