package org.ntk4j.train;

/**
 * Marks the phases of each training step of {@link TrainLoop#fit} for a profiler: the trainer calls
 * {@link #begin} as each phase starts (which also ends the phase before) and {@link #endStep} after the
 * step's listeners. The default is none, and then the trainer makes no call at all. A profiler times the
 * phases (on the CPU every engine call returns when its work is done) or counts the engine calls that fall
 * into each; {@code benchmarks/peer/TrainBench.java} does both.
 */
public interface StepPhases {
    /** The phases of one step, in the order they run. */
    enum Phase {
        /** The batch's samples and targets: slices of the epoch's samples, gathered in its order in the engine. */
        BATCH,
        /** The network's forward pass in training mode. */
        FORWARD,
        /** The loss of the batch. */
        LOSS,
        /** The backward pass (gradients into the parameters). */
        BACKWARD,
        /** The step's loss and correct count for the epoch's running metrics. */
        METRICS,
        /** The optimizer's update of every parameter. */
        OPTIMIZER,
        /**
         * Ending the step's lent leaves ({@link UpdateRule#endStep}): the gradients went with them, so nothing is
         * zeroed (the phase that zeroed them before; torch's {@code zero_grad}).
         */
        ZERO_GRAD,
        /** Closing the step's scope (freeing its temporaries). */
        CLEANUP,
        /** The listeners' {@code onStep} hooks (console, probes, checkpoints). */
        LISTENERS
    }

    /** Phase {@code p} of the current step starts now. */
    void begin(Phase p);

    /** The current step is complete. */
    void endStep();
}
