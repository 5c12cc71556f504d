package org.ntk4j.report;

import com.google.gson.JsonObject;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Plots and report.html of a training run, from its metrics.jsonl; probes add their own {@link ReportSection}s.
 * Reads the records a run logs: {@code epoch} (loss and accuracy per epoch), {@code step} (the loss of every
 * optimizer step), {@code probe} (each probe's measurements) and {@code session} ({@link Provenance}).
 */
public final class RunReport {
    /** The record kind of a step's training loss: {@code {"kind": "step", "step": s, "epoch": e, "loss": l}}. */
    public static final String STEP = "step";

    private RunReport() {}

    /** The report of a run without probes (or whose probes add nothing). */
    public static void write(RunFolder run, String title) {
        write(run, title, Map.of());
    }

    /**
     * Loss and accuracy per epoch from the trainer's epoch records, the loss per step, then each probe's section
     * (keyed by probe name, in the map's order) from that probe's records, then report.html.
     */
    public static void write(RunFolder run, String title, Map<String, ReportSection> sections) {
        List<JsonObject> all = run.records();
        List<JsonObject> epochs = kind(all, "epoch");
        Map<String, String> summary = new LinkedHashMap<>();
        if (!epochs.isEmpty()) {
            double[] x = column(epochs, "epoch");
            Map<String, double[]> loss = new LinkedHashMap<>();
            Map<String, double[]> acc = new LinkedHashMap<>();
            loss.put("train", column(epochs, "train_loss"));
            acc.put("train", column(epochs, "train_accuracy"));
            if (epochs.get(0).has("test_loss")) {
                loss.put("test", column(epochs, "test_loss"));
                acc.put("test", column(epochs, "test_accuracy"));
            }
            Plots.lines(run.file("loss.png"), "Loss per epoch", "epoch", "loss", x, loss, positive(loss));
            if (epochs.get(0).has("train_accuracy")) { // regression runs have no accuracy
                Plots.lines(run.file("accuracy.png"), "Accuracy per epoch", "epoch", "accuracy", x, acc, false);
            }
            JsonObject last = epochs.get(epochs.size() - 1);
            for (String k : last.keySet()) {
                if (!"kind".equals(k)) {
                    summary.put(label(k), Numbers.value(k, last.get(k)));
                }
            }
        }
        List<JsonObject> steps = kind(all, STEP);
        if (!steps.isEmpty()) {
            Map<String, double[]> l = Map.of("training loss (mini-batch)", column(steps, "loss"));
            Plots.lines(
                    run.file("loss-steps.png"),
                    "Training loss per step",
                    "step",
                    "loss",
                    column(steps, "step"),
                    l,
                    positive(l));
        }
        List<JsonObject> probes = kind(all, "probe");
        sections.forEach((probe, section) -> {
            List<JsonObject> mine = probes.stream()
                    .filter(r -> r.has("probe") && probe.equals(r.get("probe").getAsString()))
                    .toList();
            if (!mine.isEmpty()) {
                section.write(run, mine, summary);
            }
        });
        HtmlReport.write(
                run.dir(),
                title,
                summary,
                List.of("Every measurement is in metrics.jsonl (one JSON record per line); the numbers behind each"
                        + " plot are in " + Figure.INDEX + "; the final weights are in weights.npz."),
                kind(all, Provenance.KIND));
    }

    /** Last-epoch record keys as the summary shows them. */
    private static String label(String key) {
        return switch (key) {
            case "seconds" -> "seconds (last epoch)";
            case "lr" -> "learning rate (last epoch)";
            case "t" -> "t = Σ lr";
            default -> key.replace('_', ' ');
        };
    }

    /** Four significant digits, as the report's summary shows numbers ({@link Numbers#format}). */
    public static String fmt(double v) {
        return Numbers.format(v);
    }

    /** The values of {@code key} in each record (NaN where absent or not a number). */
    public static double[] column(List<JsonObject> rs, String key) {
        return rs.stream()
                .mapToDouble(r -> {
                    if (!r.has(key) || !r.get(key).isJsonPrimitive()) {
                        return Double.NaN;
                    }
                    try {
                        return r.get(key).getAsDouble();
                    } catch (NumberFormatException e) {
                        return Double.NaN;
                    }
                })
                .toArray();
    }

    static List<JsonObject> kind(List<JsonObject> all, String kind) {
        return all.stream()
                .filter(o -> o.has("kind") && kind.equals(o.get("kind").getAsString()))
                .toList();
    }

    /** Whether every finite value is positive (a log axis can show them all). */
    static boolean positive(Map<String, double[]> series) {
        return series.values().stream()
                        .flatMapToDouble(Arrays::stream)
                        .filter(Double::isFinite)
                        .allMatch(v -> v > 0)
                && series.values().stream().flatMapToDouble(Arrays::stream).anyMatch(Double::isFinite);
    }
}
