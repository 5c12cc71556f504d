package org.ntk4j.probe;

import org.ntk4j.model.Network;
import org.ntk4j.report.ReportSection;

/**
 * A measurement taken during training on a schedule (loss on a probe set, the NTK of a fixed probe
 * set, alignment, ...). Probes run outside the training step's gradient collector; a
 * {@link ProbeListener} times them and logs their records. Each probe supplies its own part of the
 * run's report ({@link #report()}), so the report knows no probe's keys.
 */
public interface Probe {
    String name();

    /** Whether to run after {@code step} global steps (step 0 = initialisation); {@code epochEnd} at epoch ends. */
    boolean due(long step, boolean epochEnd);

    /** Measures the network; returns a JSON-able record of scalars (logged to metrics.jsonl). */
    java.util.Map<String, Object> run(Network net, long step, int epoch);

    /** Its figures and summary lines in report.html, from its records; none by default. */
    default ReportSection report() {
        return ReportSection.NONE;
    }
}
