package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.nn.Parameter;
import ai.djl.nn.norm.BatchNorm;
import ai.djl.training.ParameterStore;

/**
 * A DJL {@link BatchNorm} in eval mode, y = γ·x̂ + β with x̂ = (x − μ_run)/√(σ²_run + ε) over axis 1,
 * as a tappable module: the probe receives x̂ (batch-norm rule). DJL keeps the axis and ε private,
 * so they are read reflectively; if that fails, or the axis is not 1, {@link #unsupported()} says so
 * and the layer takes the Jacobian path.
 */
public final class DjlBatchNorm extends DjlLayer {
    private final NDArray runningMean;
    private final NDArray runningVar;
    private final int axis;
    private final double eps;

    DjlBatchNorm(String name, BatchNorm block, ParameterStore store) {
        super(name, block, store, "gamma", Param.Role.GAMMA, "beta", Param.Role.BETA);
        NDArray mean = null;
        NDArray var = null;
        for (var e : block.getDirectParameters()) {
            Parameter p = e.getValue();
            if (e.getKey().equals("runningMean")) {
                mean = p.getArray();
            } else if (e.getKey().equals("runningVar")) {
                var = p.getArray();
            }
        }
        this.runningMean = mean;
        this.runningVar = var;
        this.axis = (int) privateField(block, "axis", -1);
        this.eps = privateField(block, "epsilon", Double.NaN);
    }

    private static double privateField(BatchNorm b, String field, double fallback) {
        try {
            var f = BatchNorm.class.getDeclaredField(field);
            f.setAccessible(true);
            return ((Number) f.get(b)).doubleValue();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return fallback;
        }
    }

    /** Null when the batch-norm rule applies, else why not. */
    public String unsupported() {
        if (axis != 1 || Double.isNaN(eps)) {
            return "cannot read a channel axis of 1 and ε from DJL's BatchNorm";
        }
        if (weight() == null || bias() == null || runningMean == null || runningVar == null) {
            return "γ or β not trained, or no running statistics";
        }
        return null;
    }

    /** Channels C (axis 1). */
    public long channels() {
        return weight().size();
    }

    /** Positions per channel and sample (H·W for images, 1 for vectors). */
    public long positions() {
        return inputShape().size() / inputShape().get(0);
    }

    @Override
    protected NDArray probeInput(NDArray x) {
        if (unsupported() != null) {
            return x;
        }
        long[] shape = new long[x.getShape().dimension()];
        java.util.Arrays.fill(shape, 1);
        shape[1] = channels();
        NDArray mean = runningMean.reshape(shape);
        NDArray std = runningVar.add(eps).sqrt().reshape(shape);
        return x.stopGradient().sub(mean).div(std);
    }
}
