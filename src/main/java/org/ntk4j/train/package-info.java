/**
 * Floor 6 of 12: the training loop and what it needs, writing no files: {@link org.ntk4j.train.TrainLoop} (mini-batch
 * SGD, Adam, SLO or full-batch gradient descent on a data set held in the engine), its
 * {@link org.ntk4j.train.UpdateRule} and {@link org.ntk4j.train.LossFunction}, the {@link org.ntk4j.train.TrainListener} hooks
 * and the {@link org.ntk4j.train.TrainProgress} they see, {@link org.ntk4j.train.Checkpoints} to resume from,
 * {@link org.ntk4j.train.StepPhases} for a profiler, and probe {@link org.ntk4j.train.Schedule}s. The listeners that
 * write a run folder (console, metrics.jsonl, checkpoints) are in org.ntk4j.job ({@code TrainRun}). The floors are
 * written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.train;
