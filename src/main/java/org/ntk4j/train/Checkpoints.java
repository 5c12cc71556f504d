package org.ntk4j.train;

/**
 * Where a {@link TrainLoop} saves its progress and resumes from: a listener the trainer always runs after every
 * other one (so a checkpoint holds every record logged before it), which can also load the newest checkpoint back.
 * The run folder's checkpoints (org.ntk4j.job.CheckpointListener) are one.
 */
public interface Checkpoints extends TrainListener {
    /** Loads the newest checkpoint into the network, optimizer and state of {@code p}, before the first step. */
    void restore(TrainProgress p);
}
