package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;

/**
 * State of one forward pass: train or eval mode (batch-norm), the manager that owns the pass's
 * temporaries and the scalar constants it needs, and an optional {@link TangentProbe}.
 *
 * <p>Scalars come from {@link #scalar(double)}: a native 0-d array kept alive until the pass's
 * scope closes. {@code NDArray.mul(Number)} must not be used on a differentiable path: its
 * temporary scalar's Java buffer can be freed before backward (DJL 0.35: a scalar created from a Java value aliases
 * that buffer).
 */
public final class Forward {
    private final boolean training;
    private final TangentProbe probe;
    private final NDManager manager;
    private final boolean fused;

    public Forward(NDManager manager, boolean training, TangentProbe probe) {
        this(manager, training, probe, false);
    }

    private Forward(NDManager manager, boolean training, TangentProbe probe, boolean fused) {
        this.manager = manager;
        this.training = training;
        this.probe = probe;
        this.fused = fused;
    }

    public static Forward eval(NDManager manager) {
        return new Forward(manager, false, null);
    }

    public static Forward train(NDManager manager) {
        return new Forward(manager, true, null);
    }

    /**
     * A training step's pass (train mode, no probe) in which layers may use fused kernels: a dense layer computes
     * a·Wᵀ + b as one {@code addmm} (PyTorch's {@code linear}) instead of a matmul and an add. The fused kernel
     * adds the bias inside the GEMM and so rounds differently in the last bits; the backward it records needs
     * no transposed-weight view and no separate bias reduction.
     */
    public static Forward trainStep(NDManager manager) {
        return new Forward(manager, true, null, true);
    }

    /** Whether layers may use fused kernels that round differently from their unfused form ({@link #trainStep}). */
    public boolean fused() {
        return fused;
    }

    public boolean training() {
        return training;
    }

    public NDManager manager() {
        return manager;
    }

    /** The probe that taps tangent layers, or null. */
    public TangentProbe probe() {
        return probe;
    }

    /** A 0-d constant of the array's data type, safe to use on a differentiable path. */
    public NDArray scalar(double v, NDArray like) {
        if (like.getDataType() == ai.djl.ndarray.types.DataType.FLOAT64) {
            // exact in float64: a Java-backed scalar, cloned natively so no Java buffer stays aliased
            try (NDArray tmp = manager.create(v)) {
                return tmp.toDevice(like.getDevice(), false).duplicate();
            }
        }
        return manager.full(new Shape(), (float) v, like.getDataType(), like.getDevice());
    }
}
