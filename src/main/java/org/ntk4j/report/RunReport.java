package org.ntk4j.report;

import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Plots and report.html of a training run, from its metrics.jsonl. */
public final class RunReport {
    private RunReport() {}

    public static void write(RunFolder run, String title) {
        List<JsonObject> epochs = run.records("epoch");
        Map<String, String> summary = new LinkedHashMap<>();
        if (!epochs.isEmpty()) {
            double[] x = epochs.stream().mapToDouble(r -> r.get("epoch").getAsDouble()).toArray();
            Map<String, double[]> loss = new LinkedHashMap<>();
            Map<String, double[]> acc = new LinkedHashMap<>();
            loss.put("train", column(epochs, "train_loss"));
            acc.put("train", column(epochs, "train_accuracy"));
            if (epochs.get(0).has("test_loss")) {
                loss.put("test", column(epochs, "test_loss"));
                acc.put("test", column(epochs, "test_accuracy"));
            }
            Plots.lines(run.file("loss.png"), "Loss", "epoch", "loss", x, loss, true);
            Plots.lines(run.file("accuracy.png"), "Accuracy", "epoch", "accuracy", x, acc, false);
            JsonObject last = epochs.get(epochs.size() - 1);
            for (String k : last.keySet()) {
                if (!"kind".equals(k)) {
                    summary.put(k, last.get(k).getAsString());
                }
            }
        }
        List<JsonObject> probes = run.records("probe");
        probes = probes.stream().filter(r -> r.has("centered_alignment")).toList();
        if (probes.size() >= 1) {
            double[] x = probes.stream().mapToDouble(r -> r.get("epoch").getAsDouble()).toArray();
            Map<String, double[]> al = new LinkedHashMap<>();
            List<String> keys = new ArrayList<>();
            for (String k : probes.get(0).keySet()) {
                if (k.startsWith("centered_alignment")) {
                    keys.add(k);
                }
            }
            for (String k : keys) {
                al.put(k.equals("centered_alignment") ? "total" : k.substring("centered_alignment.".length()), column(probes, k));
            }
            Plots.lines(run.file("alignment.png"), "Centred kernel–target alignment of the NTK (probe set)", "epoch",
                    "alignment", x, al, false);
            summary.put("NTK alignment at init (centred)", fmt(probes.get(0).get("centered_alignment").getAsDouble()));
            summary.put("NTK alignment at end (centred)", fmt(probes.get(probes.size() - 1).get("centered_alignment").getAsDouble()));
        }
        HtmlReport.write(run.dir(), title, summary, List.of("Metrics per epoch are in metrics.jsonl; weights in weights.npz."));
    }

    static String fmt(double v) {
        return String.format("%.4f", v);
    }

    static double[] column(List<JsonObject> rs, String key) {
        return rs.stream().mapToDouble(r -> r.has(key) ? r.get(key).getAsDouble() : Double.NaN).toArray();
    }
}
