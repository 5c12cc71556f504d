package org.ntk4j.report;

import com.google.gson.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * What a probe contributes to a run's report.html: its figures (PNG files in the run folder) and
 * summary lines, drawn from its own records in metrics.jsonl. {@link RunReport} knows no probe's
 * keys; each probe supplies its section.
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
