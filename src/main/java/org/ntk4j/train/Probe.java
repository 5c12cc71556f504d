package org.ntk4j.train;

import org.ntk4j.model.Network;

/**
 * A measurement taken during training on a schedule (loss on a probe set, the NTK of a fixed probe
 * set, alignment, ...). Probes run outside the training step's gradient collector; the trainer
 * times them separately and logs their records.
 */
public interface Probe {
    String name();

    /** Whether to run after {@code step} global steps (step 0 = initialisation); {@code epochEnd} at epoch ends. */
    boolean due(long step, boolean epochEnd);

    /** Measures the network; returns a JSON-able record of scalars (logged to metrics.jsonl). */
    java.util.Map<String, Object> run(Network net, long step, int epoch);
}
