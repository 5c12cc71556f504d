package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;

/**
 * Layer normalisation over the last axis (Ba, Kiros, Hinton 2016, "Layer Normalization", Eq. 4;
 * torch.nn.LayerNorm(D)): for each vector x ∈ R^D along the last axis,
 * y = γ ⊙ x̂ + β with x̂ = (x − μ)/√(σ² + ε), μ and σ² (biased) the mean and variance of x, ε = 1e-5.
 * Trainable γ (init 1) and β (init 0), shape (D). Samples are independent, so the same formula holds
 * in training and eval mode.
 *
 * <p>Tangent-aware: the probe receives x̂ (y = γ·x̂ + β), from which ∂f/∂γ_d = Σ_p δ[p,d]·x̂[p,d] and
 * ∂f/∂β_d = Σ_p δ[p,d] over the leading positions p ({@code kernel.rule.LayerNormRule}).
 */
public final class LayerNorm extends AffineNorm {
    public static final double EPS = 1e-5;

    private long features;

    public LayerNorm(String name) {
        super(name);
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        if (in.dimension() < 1) {
            throw new IllegalArgumentException(name() + ": expects at least one axis, got " + in);
        }
        features = in.get(in.dimension() - 1);
        positions(in.size() / features);
        gamma().set(m.ones(new Shape(features), type));
        beta().set(m.zeros(new Shape(features), type));
        return in;
    }

    @Override
    public Shape plan(Shape in, ParameterCount count) {
        if (in.dimension() < 1) {
            throw new IllegalArgumentException(name() + ": expects at least one axis, got " + in);
        }
        count.add(2 * in.get(in.dimension() - 1)); // γ and β
        return in;
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        int[] last = {x.getShape().dimension() - 1};
        NDArray centred = x.sub(x.mean(last, true));
        NDArray var = centred.mul(centred).mean(last, true);
        // ε as a native scalar: NDArray.add(Number) must not be used on a differentiable path (DJL 0.35: it aliases a
        // Java buffer)
        NDArray xhat = centred.div(var.add(ctx.scalar(EPS, var)).sqrt());
        NDArray y = xhat.mul(gamma().value()).add(beta().value());
        return ctx.probe() == null ? y : ctx.probe().tap(this, xhat, y);
    }

    /** D, the normalised (last) axis. */
    public long features() {
        return features;
    }
}
