package org.ntk4j.report;

import com.google.gson.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * What a probe contributes to a run's report.html: its figures (drawn with {@link Plots} into the run folder: a PNG
 * for papers, or a CSV without XChart, and an interactive chart in the page) and summary lines, drawn from its own
 * records in metrics.jsonl (and any files it keeps there). {@link RunReport} knows no probe's keys; each probe supplies
 * its section, which {@code ntk4j report} can run again on a finished run.
 */
@FunctionalInterface
public interface ReportSection {
    /** A section that adds nothing. */
    ReportSection NONE = (run, records, summary) -> {};

    /**
     * @param records the probe's records ({@code "kind": "probe"}, its {@code "probe"} name), in order
     * @param summary the report's summary table, to which the section appends its lines
     */
    void write(RunFolder run, List<JsonObject> records, Map<String, String> summary);
}
