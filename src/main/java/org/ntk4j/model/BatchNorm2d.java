package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import java.util.Random;

/**
 * Batch normalisation over (N, H, W) per channel (Ioffe &amp; Szegedy 2015; torch.nn.BatchNorm2d):
 * y = γ·(x − μ)/√(σ² + ε) + β, ε = 1e-5. Trainable γ (init 1) and β (init 0); running mean (init 0)
 * and variance (init 1) are non-trainable {@link Param}s with roles RUNNING_MEAN / RUNNING_VAR.
 *
 * <p>Training mode ({@link Forward#training()}) uses the batch statistics and updates the running
 * ones in place as PyTorch does, r ← (1 − m)·r + m·batch with m = 0.1 (unbiased batch variance
 * for the running variance). Eval mode uses the running statistics, so samples are independent:
 * kernels are always computed in eval mode.
 *
 * <p>Tangent-aware in eval mode: the probe receives the normalised input x̂ = (x − μ_run)/√(σ²_run + ε)
 * (y = γ·x̂ + β), from which ∂f/∂γ_c = Σ_p δ[c,p]·x̂[c,p] and ∂f/∂β_c = Σ_p δ[c,p] ({@link AffineNorm};
 * {@code org.ntk4j.kernel.rule.BatchNorm2dRule}).
 */
public final class BatchNorm2d extends AffineNorm {
    /** PyTorch's default momentum (weight of the new batch statistic). */
    public static final double MOMENTUM = 0.1;

    public static final double EPS = 1e-5;

    private final Param runningMean;
    private final Param runningVar;

    public BatchNorm2d(String name) {
        super(name);
        runningMean = param("running_mean", Param.Role.RUNNING_MEAN);
        runningVar = param("running_var", Param.Role.RUNNING_VAR);
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        if (in.dimension() != 3) {
            throw new IllegalArgumentException(name() + ": expects (C, H, W) input, got " + in);
        }
        Shape c = new Shape(in.get(0));
        positions(in.get(1) * in.get(2));
        gamma().set(m.ones(c, type));
        beta().set(m.zeros(c, type));
        runningMean.set(m.zeros(c, type));
        runningVar.set(m.ones(c, type));
        return in;
    }

    @Override
    public Shape plan(Shape in, ParameterCount count) {
        if (in.dimension() != 3) {
            throw new IllegalArgumentException(name() + ": expects (C, H, W) input, got " + in);
        }
        count.add(2 * in.get(0)); // γ and β (the running statistics are buffers)
        return in;
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        if (ctx.probe() != null) {
            if (ctx.training()) {
                throw new IllegalStateException(name() + ": tangent probes need eval-mode batch-norm");
            }
            NDArray y = JniUtils.batchNorm(
                    (PtNDArray) x,
                    (PtNDArray) runningMean.value(),
                    (PtNDArray) runningVar.value(),
                    (PtNDArray) gamma().value(),
                    (PtNDArray) beta().value(),
                    false,
                    MOMENTUM,
                    EPS);
            long c = x.getShape().get(1);
            NDArray mean = runningMean.value().reshape(1, c, 1, 1);
            NDArray std = runningVar.value().add(EPS).sqrt().reshape(1, c, 1, 1);
            NDArray xhat = x.stopGradient().sub(mean).div(std);
            return ctx.probe().tap(this, xhat, y);
        }
        // native argument order: input, running mean, running var, weight (γ), bias (β) — as PtNDArrayEx.batchNorm
        return JniUtils.batchNorm(
                (PtNDArray) x,
                (PtNDArray) runningMean.value(),
                (PtNDArray) runningVar.value(),
                (PtNDArray) gamma().value(),
                (PtNDArray) beta().value(),
                ctx.training(),
                MOMENTUM,
                EPS);
    }

    public Param runningMean() {
        return runningMean;
    }

    public Param runningVar() {
        return runningVar;
    }
}
