package org.ntk4j.report;

import com.google.gson.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Plots and report.html of a training run, from its metrics.jsonl; probes add their own {@link ReportSection}s. */
public final class RunReport {
    private RunReport() {}

    /** The report of a run without probes (or whose probes add nothing). */
    public static void write(RunFolder run, String title) {
        write(run, title, Map.of());
    }

    /**
     * Loss and accuracy per epoch from the trainer's epoch records, then each probe's section (keyed by
     * probe name, in the map's order) from that probe's records, then report.html.
     */
    public static void write(RunFolder run, String title, Map<String, ReportSection> sections) {
        List<JsonObject> epochs = run.records("epoch");
        Map<String, String> summary = new LinkedHashMap<>();
        if (!epochs.isEmpty()) {
            double[] x = epochs.stream()
                    .mapToDouble(r -> r.get("epoch").getAsDouble())
                    .toArray();
            Map<String, double[]> loss = new LinkedHashMap<>();
            Map<String, double[]> acc = new LinkedHashMap<>();
            loss.put("train", column(epochs, "train_loss"));
            acc.put("train", column(epochs, "train_accuracy"));
            if (epochs.get(0).has("test_loss")) {
                loss.put("test", column(epochs, "test_loss"));
                acc.put("test", column(epochs, "test_accuracy"));
            }
            Plots.lines(run.file("loss.png"), "Loss", "epoch", "loss", x, loss, true);
            if (epochs.get(0).has("train_accuracy")) { // regression runs have no accuracy
                Plots.lines(run.file("accuracy.png"), "Accuracy", "epoch", "accuracy", x, acc, false);
            }
            JsonObject last = epochs.get(epochs.size() - 1);
            for (String k : last.keySet()) {
                if (!"kind".equals(k)) {
                    summary.put(k, last.get(k).getAsString());
                }
            }
        }
        List<JsonObject> all = run.records("probe");
        sections.forEach((probe, section) -> {
            List<JsonObject> mine = all.stream()
                    .filter(r -> r.has("probe") && probe.equals(r.get("probe").getAsString()))
                    .toList();
            if (!mine.isEmpty()) {
                section.write(run, mine, summary);
            }
        });
        HtmlReport.write(
                run.dir(), title, summary, List.of("Metrics per epoch are in metrics.jsonl; weights in weights.npz."));
    }

    /** Four decimals, as the report's summary shows numbers. */
    public static String fmt(double v) {
        return String.format("%.4f", v);
    }

    /** The values of {@code key} in each record (NaN where absent). */
    public static double[] column(List<JsonObject> rs, String key) {
        return rs.stream()
                .mapToDouble(r -> r.has(key) ? r.get(key).getAsDouble() : Double.NaN)
                .toArray();
    }
}
