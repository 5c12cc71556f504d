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
        neuralCollapse(run, all.stream().filter(r -> r.has("nc2")).toList(), summary);
        featureAnsatz(run, all.stream().filter(r -> r.has("probe") && "nfa".equals(r.get("probe").getAsString())).toList(), summary);
        List<JsonObject> probes = all.stream().filter(r -> r.has("centered_alignment")).toList();
        if (probes.size() >= 1) {
            // probes may run several times per epoch (every:K, log:N:MAX): their x axis is the step
            double[] x = probes.stream().mapToDouble(r -> r.get("step").getAsDouble()).toArray();
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
            Plots.lines(run.file("alignment.png"), "Centred kernel–target alignment of the NTK (probe set)", "step",
                    "alignment", x, al, false);
            summary.put("NTK alignment at init (centred)", fmt(probes.get(0).get("centered_alignment").getAsDouble()));
            summary.put("NTK alignment at end (centred)", fmt(probes.get(probes.size() - 1).get("centered_alignment").getAsDouble()));
            kernelMotion(run, probes, x, summary);
        }
        HtmlReport.write(run.dir(), title, summary, List.of("Metrics per epoch are in metrics.jsonl; weights in weights.npz."));
    }

    /** NC1–NC4 against the step (seed 003 Fig. 2 panes), when the nc probe ran. */
    private static void neuralCollapse(RunFolder run, List<JsonObject> nc, Map<String, String> summary) {
        if (nc.isEmpty()) {
            return;
        }
        double[] x = nc.stream().mapToDouble(r -> r.get("step").getAsDouble()).toArray();
        Map<String, double[]> s = new LinkedHashMap<>();
        s.put("NC1 tr(ΣW ΣB⁺)/C", column(nc, "nc1_papyan"));
        s.put("NC2 (distance to a simplex ETF)", column(nc, "nc2"));
        s.put("NC3 (self-duality)", column(nc, "nc3"));
        s.put("NC4 (classifier ≠ nearest centre)", column(nc, "nc4"));
        Plots.lines(run.file("neural-collapse.png"), "Neural collapse of the penultimate features (probe set)", "step",
                "statistic (0 = collapsed)", x, s, false);
        JsonObject last = nc.get(nc.size() - 1);
        summary.put("NC1 / NC2 / NC3 / NC4 at end", fmt(last.get("nc1_papyan").getAsDouble()) + " / "
                + fmt(last.get("nc2").getAsDouble()) + " / " + fmt(last.get("nc3").getAsDouble()) + " / "
                + fmt(last.get("nc4").getAsDouble()));
    }

    /** NFC and C-NFC per dense layer against the step (seed 002 Fig. 2), when the nfa probe ran. */
    private static void featureAnsatz(RunFolder run, List<JsonObject> nfa, Map<String, String> summary) {
        if (nfa.isEmpty()) {
            return;
        }
        double[] x = nfa.stream().mapToDouble(r -> r.get("step").getAsDouble()).toArray();
        Map<String, double[]> s = new LinkedHashMap<>();
        JsonObject last = nfa.get(nfa.size() - 1);
        for (String k : last.keySet()) {
            if (k.startsWith("nfc.") || k.startsWith("cnfc.")) {
                s.put((k.startsWith("nfc.") ? "NFC " : "C-NFC ") + k.substring(k.indexOf('.') + 1), column(nfa, k));
                summary.put((k.startsWith("nfc.") ? "NFC " : "C-NFC ") + k.substring(k.indexOf('.') + 1) + " at end",
                        fmt(last.get(k).getAsDouble()));
            }
        }
        Plots.lines(run.file("feature-ansatz.png"), "Neural feature ansatz: ρ(WᵀW, AGOP) per dense layer (probe set)", "step",
                "correlation", x, s, false);
    }

    /** Kernel change, velocity and spectrum plots of the NTK probe (when its records carry them). */
    private static void kernelMotion(RunFolder run, List<JsonObject> probes, double[] x, Map<String, String> summary) {
        JsonObject first = probes.get(0);
        JsonObject last = probes.get(probes.size() - 1);
        if (first.has("kernel_distance_from_init")) {
            Plots.lines(run.file("kernel-distance.png"), "NTK distance from init, 1 − cos∠(Θt, Θ0) (probe set)", "step",
                    "kernel distance", x, Map.of("NTK", column(probes, "kernel_distance_from_init")), false);
            Plots.lines(run.file("kernel-change.png"), "NTK relative change ‖Θt − Θ0‖F / ‖Θ0‖F (probe set)", "step",
                    "relative change", x, Map.of("NTK", column(probes, "relative_change_from_init")), false);
            summary.put("NTK relative change at end", fmt(last.get("relative_change_from_init").getAsDouble()));
            summary.put("NTK kernel distance from init at end", fmt(last.get("kernel_distance_from_init").getAsDouble()));
        }
        if (first.has("theta_c_over_d")) {
            Map<String, double[]> la = new LinkedHashMap<>();
            la.put("Θc/Θd (same class)", column(probes, "theta_c_over_d"));
            la.put("Θn/Θd (different class)", column(probes, "theta_n_over_d"));
            Plots.lines(run.file("label-awareness.png"), "NTK label awareness (seed 003 eq. 23, probe set)", "step",
                    "mean off-diagonal / mean diagonal", x, la, false);
        }
        List<JsonObject> moving = probes.stream().filter(r -> r.has("kernel_velocity")).toList();
        if (!moving.isEmpty()) {
            double[] xv = moving.stream().mapToDouble(r -> r.get("step").getAsDouble()).toArray();
            double[] v = column(moving, "kernel_velocity");
            // a log axis when the velocity spans decades (XChart labels no ticks on a log axis within one decade)
            double lo = java.util.Arrays.stream(v).min().orElse(0);
            double hi = java.util.Arrays.stream(v).max().orElse(0);
            boolean log = lo > 0 && hi / lo > 10;
            Plots.lines(run.file("kernel-velocity.png"), "Kernel velocity (distance per step between probes)", "step",
                    "velocity", xv, Map.of("NTK", v), log);
        }
        if (first.has("eigenvalues")) {
            Map<String, double[]> sp = new LinkedHashMap<>();
            sp.put("init", values(first.getAsJsonArray("eigenvalues")));
            if (probes.size() > 1) {
                sp.put("end", values(last.getAsJsonArray("eigenvalues")));
            }
            // a log axis shows the positive eigenvalues: the common positive prefix of the descending lists
            int k = sp.values().stream().mapToInt(RunReport::positivePrefix).min().orElse(0);
            double[] idx = new double[k];
            for (int i = 0; i < k; i++) {
                idx[i] = i + 1;
            }
            sp.replaceAll((name, v) -> java.util.Arrays.copyOf(v, k));
            if (k > 0) {
                Plots.lines(run.file("ntk-spectrum.png"), "Leading NTK eigenvalues (probe set)", "index", "eigenvalue", idx, sp, true);
            }
            summary.put("NTK effective rank init → end", fmt(first.get("effective_rank").getAsDouble()) + " → "
                    + fmt(last.get("effective_rank").getAsDouble()));
        }
    }

    private static int positivePrefix(double[] v) {
        int k = 0;
        while (k < v.length && v[k] > 0) {
            k++;
        }
        return k;
    }

    private static double[] values(com.google.gson.JsonArray a) {
        double[] v = new double[a.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = a.get(i).getAsDouble();
        }
        return v;
    }

    static String fmt(double v) {
        return String.format("%.4f", v);
    }

    static double[] column(List<JsonObject> rs, String key) {
        return rs.stream().mapToDouble(r -> r.has(key) ? r.get(key).getAsDouble() : Double.NaN).toArray();
    }
}
