package org.ntk4j.probe;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
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
