package org.ntk4j.train;

/**
 * Hooks into {@link TrainLoop#fit}: console output, metrics logging, probes and checkpoints are
 * listeners, the trainer itself runs only the loop. Every hook runs outside the step's gradient
 * collector and NDScope. Listeners run in the order they were added; the trainer's
 * {@link CheckpointListener} always runs after all of them, so a checkpoint holds every record
 * logged before it.
 */
public interface TrainListener {
    /** Before the first step: after a restore when {@link TrainProgress#resumed()}. */
    default void onStart(TrainProgress p) {}

    /** After every optimizer step ({@link TrainProgress#endOfEpoch()} tells whether the epoch is complete). */
    default void onStep(TrainProgress p) {}

    /** After each epoch, with its record; the progress state is already reset for the next epoch. */
    default void onEpoch(TrainProgress p, TrainLoop.EpochRecord e) {}

    /** After the last epoch (or at once when a resumed run had nothing left to do). */
    default void onEnd(TrainProgress p, TrainLoop.Result r) {}
}
