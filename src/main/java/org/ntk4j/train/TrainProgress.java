package org.ntk4j.train;

import org.ntk4j.model.Network;
import org.ntk4j.spec.TrainSpec;

/** Where a {@link TrainLoop#fit} run stands, as its {@link TrainListener}s see it. */
public final class TrainProgress {
    final Network net;
    final TrainSpec spec;
    final UpdateRule optimizer;
    final TrainLoop.State state;
    final boolean resumed;
    final int stepsPerEpoch;
    private final Runnable read;
    int epoch;
    int stepInEpoch;
    double secondsBefore;
    long epochStartNanos;
    TrainLoop.Result result;

    TrainProgress(
            Network net,
            TrainSpec spec,
            UpdateRule optimizer,
            TrainLoop.State state,
            boolean resumed,
            int stepsPerEpoch,
            Runnable read) {
        this.read = read;
        this.net = net;
        this.spec = spec;
        this.optimizer = optimizer;
        this.state = state;
        this.resumed = resumed;
        this.stepsPerEpoch = stepsPerEpoch;
    }

    public Network net() {
        return net;
    }

    public TrainSpec spec() {
        return spec;
    }

    public UpdateRule optimizer() {
        return optimizer;
    }

    /**
     * The loop's state (what a checkpoint saves), with the running loss and correct count of the epoch read from
     * the engine (the trainer accumulates them there and reads them only when asked).
     */
    public TrainLoop.State state() {
        read.run();
        return state;
    }

    /** Whether this run resumed from a checkpoint. */
    public boolean resumed() {
        return resumed;
    }

    /** Global steps done (0 = initialisation). */
    public long step() {
        return state.step;
    }

    /** The current epoch, 0-based. */
    public int epoch() {
        return epoch;
    }

    /** Steps done in the current epoch. */
    public int stepInEpoch() {
        return stepInEpoch;
    }

    public int stepsPerEpoch() {
        return stepsPerEpoch;
    }

    /** Whether the last step completed its epoch. */
    public boolean endOfEpoch() {
        return stepInEpoch == stepsPerEpoch;
    }

    /** Mean training loss over the epoch's steps so far. */
    public double runningLoss() {
        read.run();
        return state.lossSum / state.seen;
    }

    /** Training seconds so far, including the running epoch (excluding probes that ran before the epoch). */
    public double seconds() {
        return secondsBefore + (epochStartNanos == 0 ? 0 : (System.nanoTime() - epochStartNanos) / 1e9);
    }

    /** The result to return when no epoch runs (a resumed run that had already finished); set by a listener. */
    public void result(TrainLoop.Result r) {
        this.result = r;
    }
}
