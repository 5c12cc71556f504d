package org.ntk4j.spec;

import java.util.List;
import java.util.Locale;

/**
 * How a network is trained. {@code batchSize = 0} means full-batch gradient descent, for which
 * the run also records the gradient-flow time t = step·lr.
 */
public final class TrainSpec {
    public static final List<String> OPTIMIZERS = List.of("sgd", "adam");
    public static final List<String> LOSSES = List.of("mse", "ce");
    public static final List<String> TARGETS = List.of("onehot", "pm1", "centered");
    public static final List<String> SCHEDULES = List.of("constant", "cosine", "step", "warmup-cosine");

    public String optimizer = "sgd";
    public double lr = 0.1;
    public double momentum = 0.0;
    public boolean nesterov = false;
    public double weightDecay = 0.0;
    /** Adam's β1, β2, ε. */
    public double beta1 = 0.9;
    public double beta2 = 0.999;
    public double eps = 1e-8;
    public int epochs = 1;
    /** Mini-batch size; 0 = full batch. */
    public int batchSize = 64;
    public String loss = "ce";
    /** Target encoding for the MSE loss: onehot | pm1 | centered. */
    public String target = "onehot";
    public String schedule = "constant";
    /** Step schedule: multiply lr by gamma at these epochs. */
    public int[] milestones = new int[0];
    public double gamma = 0.1;
    public int warmupEpochs = 0;
    public long seed = 0;
    /** Save a checkpoint every this many steps (0 = at each epoch end only). */
    public int checkpointEvery = 0;
    /** Per-layer learning-rate multipliers η_l/η by layer name (e.g. {"dense1": 0.1}); others 1. */
    public java.util.Map<String, Double> layerLr = new java.util.LinkedHashMap<>();

    public TrainSpec validate(String source) {
        Specs.Problems p = new Specs.Problems(source);
        p.require(OPTIMIZERS.contains(optimizer.toLowerCase(Locale.ROOT)), "optimizer", "must be one of " + OPTIMIZERS + " (got " + optimizer + ")");
        p.require(LOSSES.contains(loss.toLowerCase(Locale.ROOT)), "loss", "must be one of " + LOSSES + " (got " + loss + ")");
        p.require(TARGETS.contains(target.toLowerCase(Locale.ROOT)), "target", "must be one of " + TARGETS + " (got " + target + ")");
        p.require(SCHEDULES.contains(schedule.toLowerCase(Locale.ROOT)), "schedule", "must be one of " + SCHEDULES + " (got " + schedule + ")");
        p.require(lr > 0 && Double.isFinite(lr), "lr", "must be a positive number (got " + lr + ")");
        p.require(momentum >= 0 && momentum < 1, "momentum", "must be in [0, 1) (got " + momentum + ")");
        p.require(weightDecay >= 0, "weightDecay", "must be >= 0");
        p.require(epochs >= 1, "epochs", "must be >= 1 (got " + epochs + ")");
        p.require(batchSize >= 0, "batchSize", "must be >= 0 (0 = full batch; got " + batchSize + ")");
        p.require(checkpointEvery >= 0, "checkpointEvery", "must be >= 0");
        p.require(layerLr != null && layerLr.values().stream().allMatch(v -> v != null && v >= 0 && Double.isFinite(v)),
                "layerLr", "must map layer names to non-negative multipliers");
        p.check();
        optimizer = optimizer.toLowerCase(Locale.ROOT);
        loss = loss.toLowerCase(Locale.ROOT);
        target = target.toLowerCase(Locale.ROOT);
        schedule = schedule.toLowerCase(Locale.ROOT);
        return this;
    }

    /** Learning rate at a fractional epoch e (schedules are per step, expressed in epochs). */
    public double lrAt(double e) {
        switch (schedule) {
            case "cosine":
                return lr * 0.5 * (1 + Math.cos(Math.PI * e / epochs));
            case "warmup-cosine":
                if (e < warmupEpochs) {
                    return lr * e / warmupEpochs;
                }
                return lr * 0.5 * (1 + Math.cos(Math.PI * (e - warmupEpochs) / Math.max(1e-9, epochs - warmupEpochs)));
            case "step": {
                double r = lr;
                for (int m : milestones) {
                    if (e >= m) {
                        r *= gamma;
                    }
                }
                return r;
            }
            default:
                return lr;
        }
    }
}
