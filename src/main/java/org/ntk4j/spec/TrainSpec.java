package org.ntk4j.spec;

import java.util.List;
import java.util.Locale;

/**
 * How a network is trained (immutable; read from a {@code --train-spec} file through its
 * {@link Builder}, whose defaults missing fields take). {@code batchSize = 0} means full-batch
 * gradient descent, for which the run also records the gradient-flow time t = step·lr.
 *
 * @param optimizer sgd | adam | slo (speed-limited: W_l ← W_l − η·C_l·∇_l/(ε + ‖∇_l‖_F) per layer, C_l = layerLr,
 *     ε = eps; see train.Optimizer)
 * @param lr learning rate η
 * @param momentum SGD momentum
 * @param nesterov Nesterov momentum
 * @param weightDecay L2 weight decay
 * @param beta1 Adam's β1
 * @param beta2 Adam's β2
 * @param eps Adam's ε; SLO's ε in (ε + ‖∇‖)⁻¹ (the paper's relaxed SLO uses 0.1)
 * @param epochs epochs
 * @param batchSize mini-batch size; 0 = full batch
 * @param loss mse | ce
 * @param target target encoding for the MSE loss: onehot | pm1 | centered
 * @param schedule constant | cosine | step | warmup-cosine
 * @param milestones step schedule: multiply lr by gamma at these epochs
 * @param gamma step schedule's factor
 * @param warmupEpochs warmup-cosine: linear warmup epochs
 * @param seed seed of the data order
 * @param checkpointEvery save a checkpoint every this many steps (0 = at each epoch end only)
 * @param layerLr per-layer learning-rate multipliers η_l/η by layer name (e.g. {"dense1": 0.1}); others 1. With slo
 *     these are the layer speeds C_l
 * @param sloAdaptive adaptive SLO's s (0 = off; only with slo): before every step the layer with the smallest
 *     UC-NFC gets speed C = s, every other layer C = 1/s (times its layerLr), "Feature learning as alignment"
 *     (anonymous), App. J, Fig. 12 (s = 20 there); see train.AdaptiveSpeeds
 */
public record TrainSpec(
        OptimizerKind optimizer,
        double lr,
        double momentum,
        boolean nesterov,
        double weightDecay,
        double beta1,
        double beta2,
        double eps,
        int epochs,
        int batchSize,
        LossKind loss,
        TargetEncoding target,
        ScheduleKind schedule,
        int[] milestones,
        double gamma,
        int warmupEpochs,
        long seed,
        int checkpointEvery,
        java.util.Map<String, Double> layerLr,
        double sloAdaptive) {
    public static final List<String> OPTIMIZERS = List.of("sgd", "adam", "slo");
    public static final List<String> LOSSES = List.of("mse", "ce");
    public static final List<String> TARGETS = List.of("onehot", "pm1", "centered");
    public static final List<String> SCHEDULES = List.of("constant", "cosine", "step", "warmup-cosine");

    /** A builder with the defaults a spec file's missing fields take. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this spec's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.optimizer = optimizer == null ? null : optimizer.json();
        b.lr = lr;
        b.momentum = momentum;
        b.nesterov = nesterov;
        b.weightDecay = weightDecay;
        b.beta1 = beta1;
        b.beta2 = beta2;
        b.eps = eps;
        b.epochs = epochs;
        b.batchSize = batchSize;
        b.loss = loss == null ? null : loss.json();
        b.target = target == null ? null : target.json();
        b.schedule = schedule == null ? null : schedule.json();
        b.milestones = milestones;
        b.gamma = gamma;
        b.warmupEpochs = warmupEpochs;
        b.seed = seed;
        b.checkpointEvery = checkpointEvery;
        b.layerLr = layerLr;
        b.sloAdaptive = sloAdaptive;
        return b;
    }

    /** Checks every field (see {@link Builder#validate}); returns the spec with its names lower-cased. */
    public TrainSpec validate(String source) {
        return toBuilder().validate(source);
    }

    /** Learning rate at a fractional epoch e (schedules are per step, expressed in epochs). */
    public double lrAt(double e) {
        if (schedule == null) {
            return lr;
        }
        switch (schedule) {
            case COSINE:
                return lr * 0.5 * (1 + Math.cos(Math.PI * e / epochs));
            case WARMUP_COSINE:
                if (e < warmupEpochs) {
                    return lr * e / warmupEpochs;
                }
                return lr * 0.5 * (1 + Math.cos(Math.PI * (e - warmupEpochs) / Math.max(1e-9, epochs - warmupEpochs)));
            case STEP: {
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

    /** A spec under construction, and the form Gson reads spec files into. */
    public static final class Builder {
        public String optimizer = "sgd";
        public double lr = 0.1;
        public double momentum = 0.0;
        public boolean nesterov = false;
        public double weightDecay = 0.0;
        public double beta1 = 0.9;
        public double beta2 = 0.999;
        public double eps = 1e-8;
        public int epochs = 1;
        public int batchSize = 64;
        public String loss = "ce";
        public String target = "onehot";
        public String schedule = "constant";
        public int[] milestones = new int[0];
        public double gamma = 0.1;
        public int warmupEpochs = 0;
        public long seed = 0;
        public int checkpointEvery = 0;
        public java.util.Map<String, Double> layerLr = new java.util.LinkedHashMap<>();
        public double sloAdaptive = 0;

        public Builder() {}

        public Builder optimizer(String v) {
            optimizer = v;
            return this;
        }

        public Builder optimizer(OptimizerKind v) {
            optimizer = v == null ? null : v.json();
            return this;
        }

        public Builder lr(double v) {
            lr = v;
            return this;
        }

        public Builder momentum(double v) {
            momentum = v;
            return this;
        }

        public Builder nesterov(boolean v) {
            nesterov = v;
            return this;
        }

        public Builder weightDecay(double v) {
            weightDecay = v;
            return this;
        }

        public Builder beta1(double v) {
            beta1 = v;
            return this;
        }

        public Builder beta2(double v) {
            beta2 = v;
            return this;
        }

        public Builder eps(double v) {
            eps = v;
            return this;
        }

        public Builder epochs(int v) {
            epochs = v;
            return this;
        }

        public Builder batchSize(int v) {
            batchSize = v;
            return this;
        }

        public Builder loss(String v) {
            loss = v;
            return this;
        }

        public Builder loss(LossKind v) {
            loss = v == null ? null : v.json();
            return this;
        }

        public Builder target(String v) {
            target = v;
            return this;
        }

        public Builder target(TargetEncoding v) {
            target = v == null ? null : v.json();
            return this;
        }

        public Builder schedule(String v) {
            schedule = v;
            return this;
        }

        public Builder schedule(ScheduleKind v) {
            schedule = v == null ? null : v.json();
            return this;
        }

        public Builder milestones(int[] v) {
            milestones = v;
            return this;
        }

        public Builder gamma(double v) {
            gamma = v;
            return this;
        }

        public Builder warmupEpochs(int v) {
            warmupEpochs = v;
            return this;
        }

        public Builder seed(long v) {
            seed = v;
            return this;
        }

        public Builder checkpointEvery(int v) {
            checkpointEvery = v;
            return this;
        }

        public Builder layerLr(java.util.Map<String, Double> v) {
            layerLr = v;
            return this;
        }

        public Builder sloAdaptive(double v) {
            sloAdaptive = v;
            return this;
        }

        public TrainSpec build() {
            // a name that is no choice would become null here and fail later, far from its cause
            choice("optimizer", optimizer, OPTIMIZERS);
            choice("loss", loss, LOSSES);
            choice("target", target, TARGETS);
            choice("schedule", schedule, SCHEDULES);
            return new TrainSpec(
                    OptimizerKind.of(optimizer),
                    lr,
                    momentum,
                    nesterov,
                    weightDecay,
                    beta1,
                    beta2,
                    eps,
                    epochs,
                    batchSize,
                    LossKind.of(loss),
                    TargetEncoding.of(target),
                    ScheduleKind.of(schedule),
                    milestones,
                    gamma,
                    warmupEpochs,
                    seed,
                    checkpointEvery,
                    layerLr,
                    sloAdaptive);
        }

        private static void choice(String field, String value, List<String> allowed) {
            if (value == null || !allowed.contains(value.toLowerCase(Locale.ROOT))) {
                throw new org.ntk4j.UserException(
                        "training options: field '" + field + "' must be one of " + allowed + " (got " + value + ")");
            }
        }

        /** Checks every field; throws a one-line UserException naming the first bad one; else builds the spec. */
        public TrainSpec validate(String source) {
            Specs.Problems p = new Specs.Problems(source);
            p.require(
                    optimizer != null && OPTIMIZERS.contains(optimizer.toLowerCase(Locale.ROOT)),
                    "optimizer",
                    "must be one of " + OPTIMIZERS + " (got " + optimizer + ")");
            p.require(
                    loss != null && LOSSES.contains(loss.toLowerCase(Locale.ROOT)),
                    "loss",
                    "must be one of " + LOSSES + " (got " + loss + ")");
            p.require(
                    target != null && TARGETS.contains(target.toLowerCase(Locale.ROOT)),
                    "target",
                    "must be one of " + TARGETS + " (got " + target + ")");
            p.require(
                    schedule != null && SCHEDULES.contains(schedule.toLowerCase(Locale.ROOT)),
                    "schedule",
                    "must be one of " + SCHEDULES + " (got " + schedule + ")");
            p.require(lr > 0 && Double.isFinite(lr), "lr", "must be a positive number (got " + lr + ")");
            p.require(momentum >= 0 && momentum < 1, "momentum", "must be in [0, 1) (got " + momentum + ")");
            p.require(
                    weightDecay >= 0 && Double.isFinite(weightDecay),
                    "weightDecay",
                    "must be a finite number >= 0 (got " + weightDecay + ")");
            // SGD's decay step w ← (1 − lr·wd)·w grows the weights once lr·wd ≥ 2(1 + momentum)
            p.require(
                    !"sgd".equalsIgnoreCase(optimizer) || lr * weightDecay < 2 * (1 + momentum),
                    "weightDecay",
                    "times lr must be below 2(1 + momentum) for sgd, else the decay alone makes the weights diverge (got"
                            + " lr " + lr + " × weightDecay " + weightDecay + ")");
            p.require(epochs >= 1, "epochs", "must be >= 1 (got " + epochs + ")");
            p.require(batchSize >= 0, "batchSize", "must be >= 0 (0 = full batch; got " + batchSize + ")");
            p.require(checkpointEvery >= 0, "checkpointEvery", "must be >= 0 (got " + checkpointEvery + ")");
            p.require(
                    !"slo".equalsIgnoreCase(optimizer) || (momentum == 0 && !nesterov),
                    "momentum",
                    "must be 0 with optimizer slo (speed-limited steps have no momentum; got " + momentum + ")");
            p.require(
                    !"slo".equalsIgnoreCase(optimizer) || (eps >= 0 && Double.isFinite(eps)),
                    "eps",
                    "must be >= 0 with optimizer slo (got " + eps + ")");
            p.require(
                    layerLr != null
                            && layerLr.values().stream().allMatch(v -> v != null && v >= 0 && Double.isFinite(v)),
                    "layerLr",
                    "must map layer names to non-negative multipliers");
            p.require(
                    sloAdaptive >= 0 && Double.isFinite(sloAdaptive),
                    "sloAdaptive",
                    "must be >= 0 (0 = off; the paper's adaptive SLO uses 20; got " + sloAdaptive + ")");
            p.require(
                    sloAdaptive == 0 || "slo".equalsIgnoreCase(optimizer),
                    "sloAdaptive",
                    "needs optimizer slo (got " + optimizer + ")");
            p.check();
            optimizer = optimizer.toLowerCase(Locale.ROOT);
            loss = loss.toLowerCase(Locale.ROOT);
            target = target.toLowerCase(Locale.ROOT);
            schedule = schedule.toLowerCase(Locale.ROOT);
            return build();
        }
    }
}
