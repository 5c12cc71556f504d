package org.ntk4j.probe;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.ntk4j.metrics.KernelMetrics;
import org.ntk4j.report.ReportSection;
import org.ntk4j.report.RunFolder;
import org.ntk4j.report.RunReport;

/**
 * The report of a run folder written again from its files ({@code ntk4j report RUN}): loss, accuracy and every
 * section of ntk4j's probes whose records the run holds, without the probes themselves.
 */
public final class ProbeReports {
    private ProbeReports() {}

    /** The report sections of ntk4j's probes by name, in report order: neural collapse, feature ansatz, NTK. */
    public static Map<String, ReportSection> sections() {
        Map<String, ReportSection> m = new LinkedHashMap<>();
        m.put("nc", NeuralCollapseProbe::neuralCollapse);
        m.put("nfa", FeatureAnsatzProbe::featureAnsatz);
        m.put("ntk", NtkProbe::section);
        return m;
    }

    /**
     * Rewrites {@code run}'s plots and report.html from its metrics.jsonl and kernels; the title names the model and
     * dataset of its args.json (the folder's name without one). Returns report.html.
     */
    public static Path write(RunFolder run) {
        RunReport.write(run, title(run.dir()), sections());
        return run.file("report.html");
    }

    /**
     * What the run's probes found, first against last measurement, one line per probe (as the quickstart prints
     * them): the NTK–target alignment and how far the kernel moved, neural collapse NC1 and NC4, the NFC of each
     * dense layer. Empty when no probe ran.
     */
    public static java.util.List<String> summary(RunFolder run) {
        java.util.List<String> lines = new java.util.ArrayList<>();
        Map<String, java.util.List<JsonObject>> by = new LinkedHashMap<>();
        for (JsonObject r : run.records("probe")) {
            by.computeIfAbsent(r.get("probe").getAsString(), k -> new java.util.ArrayList<>())
                    .add(r);
        }
        java.util.List<JsonObject> ntk = by.get("ntk");
        if (ntk != null) {
            JsonObject a = ntk.get(0);
            JsonObject b = ntk.get(ntk.size() - 1);
            String centred = a.has(KernelMetrics.TRACED_CENTRED_ALIGNMENT)
                    ? KernelMetrics.TRACED_CENTRED_ALIGNMENT
                    : KernelMetrics.CENTERED_ALIGNMENT;
            String kn = NtkProbe.label(a);
            StringBuilder l = new StringBuilder(String.format(
                    java.util.Locale.ROOT,
                    "NTK probe (%ssteps %d..%d): %s–target alignment %s -> %s (centred %s -> %s)",
                    kn.equals("NTK") ? "" : kn + ", ",
                    a.get("step").getAsLong(),
                    b.get("step").getAsLong(),
                    kn,
                    num(a, "alignment"),
                    num(b, "alignment"),
                    num(a, centred),
                    num(b, centred)));
            if (b.has("kernel_distance_from_init")) {
                l.append("; kernel distance from init ").append(num(b, "kernel_distance_from_init"));
            }
            if (a.has(NtkProbe.APPROX_ERROR + ".relative_frobenius_error")) {
                l.append("; ")
                        .append(kn)
                        .append(" error against the traced NTK / O ")
                        .append(num(a, NtkProbe.APPROX_ERROR + ".relative_frobenius_error"));
            }
            if (b.has("layer_cka")) {
                l.append("; layer CKA (Eq. 4) ")
                        .append(num(a, "layer_cka"))
                        .append(" -> ")
                        .append(num(b, "layer_cka"));
            }
            lines.add(l.toString());
        }
        java.util.List<JsonObject> nc = by.get("nc");
        if (nc != null) {
            JsonObject a = nc.get(0);
            JsonObject b = nc.get(nc.size() - 1);
            lines.add("neural collapse probe: NC1 " + num(a, "nc1_papyan") + " -> " + num(b, "nc1_papyan") + ", NC4 "
                    + num(a, "nc4") + " -> " + num(b, "nc4"));
        }
        java.util.List<JsonObject> nfa = by.get("nfa");
        if (nfa != null) {
            JsonObject a = nfa.get(0);
            JsonObject b = nfa.get(nfa.size() - 1);
            java.util.List<String> parts = new java.util.ArrayList<>();
            for (String k : b.keySet()) {
                if (k.startsWith("nfc.")) {
                    parts.add(k.substring(4) + " " + num(a, k) + " -> " + num(b, k));
                }
            }
            lines.add("feature ansatz probe: NFC " + String.join(", ", parts));
        }
        return lines;
    }

    private static String num(JsonObject r, String key) {
        return r.has(key) ? org.ntk4j.report.Numbers.value(key, r.get(key)) : "–";
    }

    static String title(Path dir) {
        Path args = dir.resolve("args.json");
        try {
            JsonObject a = JsonParser.parseString(Files.readString(args)).getAsJsonObject();
            return a.getAsJsonObject("model").get("name").getAsString() + " on "
                    + a.get("dataset").getAsString();
        } catch (java.io.IOException | RuntimeException e) {
            Path name = dir.toAbsolutePath().normalize().getFileName();
            return name == null ? dir.toString() : name.toString();
        }
    }
}
