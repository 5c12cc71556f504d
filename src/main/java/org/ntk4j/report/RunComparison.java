package org.ntk4j.report;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.ntk4j.UserException;

/**
 * Several runs side by side, from their run folders ({@code ntk4j report RUN RUN ... --out DIR}): the same metric of
 * every run on one chart (loss and accuracy per epoch, loss per step, every scalar a probe logged), the final values
 * in one table, the differences between the runs' configurations ({@code args.json}, else {@code model.json} and
 * {@code train.json}) in another, and each run's provenance. Writes {@code report.html}, the charts' PNGs and
 * {@value Figure#INDEX} into the output folder; the runs are only read.
 */
public final class RunComparison {
    /** Record keys that are bookkeeping, not measurements. */
    private static final Set<String> NOT_METRICS =
            Set.of("kind", "probe", "step", "epoch", "t", "started", "resumed", "command");

    private RunComparison() {}

    /** One run folder as read for the comparison. */
    private record Run(String label, Path dir, List<JsonObject> records, Map<String, String> config) {}

    /** Compares {@code runs} into {@code out}/report.html; returns that file. */
    public static Path write(List<Path> runs, Path out) {
        if (runs.isEmpty()) {
            throw new UserException("report: name at least one run folder");
        }
        List<Run> rs = new ArrayList<>();
        List<String> labels = labels(runs);
        for (int i = 0; i < runs.size(); i++) {
            Path d = runs.get(i);
            rs.add(new Run(labels.get(i), d, RunFolder.existing(d).records(), config(d)));
        }
        try {
            Files.createDirectories(out);
        } catch (IOException e) {
            throw new UserException(out + ": cannot create the output folder (" + e.getMessage() + ")");
        }
        HtmlPage page = new HtmlPage("Comparison of " + rs.size() + " run" + (rs.size() == 1 ? "" : "s"));
        Map<String, String> summary = new LinkedHashMap<>();
        for (Run r : rs) {
            summary.put(r.label(), r.dir().toAbsolutePath().normalize().toString());
        }
        page.summary(summary);
        List<String> reports = new ArrayList<>();
        for (Run r : rs) {
            Path rep = r.dir().resolve("report.html");
            if (Files.isRegularFile(rep)) {
                reports.add(out.toAbsolutePath()
                        .normalize()
                        .relativize(rep.toAbsolutePath().normalize())
                        .toString()
                        .replace('\\', '/'));
            }
        }
        if (!reports.isEmpty()) {
            page.heading("Each run's own report").links(reports);
        }
        finalValues(page, rs);
        configDifferences(page, rs);
        List<Figure> figs = charts(out, rs);
        if (!figs.isEmpty()) {
            page.heading("Plots")
                    .hint("One chart per metric, one series per run. Hover for values; drag to zoom (double-click"
                            + " resets); click a legend entry to hide or show a run.");
            page.figures(out, figs, List.of());
        }
        List<JsonObject> sessions = new ArrayList<>();
        for (Run r : rs) {
            List<JsonObject> s = RunReport.kind(r.records(), Provenance.KIND);
            if (!s.isEmpty()) {
                JsonObject last = s.get(s.size() - 1).deepCopy();
                last.addProperty("run", r.label());
                sessions.add(last);
            }
        }
        if (!sessions.isEmpty()) {
            page.heading("Provenance");
            List<Map<String, String>> cols =
                    sessions.stream().map(Provenance::rows).toList();
            List<String> keys = new ArrayList<>();
            cols.forEach(c -> c.keySet().stream().filter(k -> !keys.contains(k)).forEach(keys::add));
            List<String> header = new ArrayList<>();
            header.add("");
            sessions.forEach(s -> header.add(s.get("run").getAsString()));
            List<List<String>> rows = new ArrayList<>();
            for (String k : keys) {
                List<String> row = new ArrayList<>();
                row.add(k);
                cols.forEach(c -> row.add(c.getOrDefault(k, "–")));
                rows.add(row);
            }
            page.table("provenance", header, rows, null);
        }
        Path html = out.resolve("report.html");
        Files2.writeString(html, page.html());
        return html;
    }

    /** Folder names, or the paths as given where two folders share a name. */
    static List<String> labels(List<Path> runs) {
        List<String> names = runs.stream()
                .map(p -> p.toAbsolutePath().normalize().getFileName())
                .map(n -> n == null ? "/" : n.toString())
                .toList();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            String n = names.get(i);
            out.add(names.indexOf(n) != names.lastIndexOf(n) ? runs.get(i).toString() : n);
        }
        if (new LinkedHashSet<>(out).size() != out.size()) {
            throw new UserException("report: a run folder is named twice (" + runs + ")");
        }
        return out;
    }

    /** The run's configuration as dotted keys → values: args.json, else model.json and train.json. */
    static Map<String, String> config(Path dir) {
        Map<String, String> m = new LinkedHashMap<>();
        Path args = dir.resolve("args.json");
        if (Files.isRegularFile(args)) {
            flatten("", read(args), m);
        } else {
            for (String f : List.of("model", "train")) {
                Path p = dir.resolve(f + ".json");
                if (Files.isRegularFile(p)) {
                    flatten(f + ".", read(p), m);
                }
            }
        }
        return m;
    }

    private static JsonElement read(Path f) {
        try {
            return JsonParser.parseString(Files.readString(f, StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            throw new UserException(f + ": unreadable JSON (" + e.getMessage() + ")");
        }
    }

    private static void flatten(String prefix, JsonElement e, Map<String, String> out) {
        if (e.isJsonObject() && !e.getAsJsonObject().isEmpty()) {
            for (Map.Entry<String, JsonElement> c : e.getAsJsonObject().entrySet()) {
                flatten(prefix + c.getKey() + ".", c.getValue(), out);
            }
        } else {
            String key = prefix.substring(0, prefix.length() - 1);
            out.put(key, e.isJsonPrimitive() ? e.getAsString() : e.toString());
        }
    }

    private static void configDifferences(HtmlPage page, List<Run> rs) {
        page.heading("Configuration differences");
        if (rs.size() < 2) {
            page.paragraph("One run: nothing to compare.");
            return;
        }
        Set<String> keys = new LinkedHashSet<>();
        rs.forEach(r -> keys.addAll(r.config().keySet()));
        List<List<String>> rows = new ArrayList<>();
        for (String k : keys) {
            Set<String> values = new LinkedHashSet<>();
            rs.forEach(r -> values.add(r.config().getOrDefault(k, "–")));
            if (values.size() > 1) {
                List<String> row = new ArrayList<>();
                row.add(k);
                rs.forEach(r -> row.add(r.config().getOrDefault(k, "–")));
                rows.add(row);
            }
        }
        if (rows.isEmpty()) {
            page.paragraph("The runs' configurations are identical (" + keys.size() + " settings compared).");
            return;
        }
        page.hint(rows.size() + " of " + keys.size() + " settings differ; the others are equal in every run.");
        page.table("diff", header("setting", rs), rows, null);
    }

    private static void finalValues(HtmlPage page, List<Run> rs) {
        Map<String, Map<String, String>> rows = new LinkedHashMap<>(); // metric → run → value
        for (Run r : rs) {
            List<JsonObject> epochs = RunReport.kind(r.records(), "epoch");
            if (!epochs.isEmpty()) {
                JsonObject last = epochs.get(epochs.size() - 1);
                for (String k : last.keySet()) {
                    if (!"kind".equals(k)) {
                        rows.computeIfAbsent(k, x -> new LinkedHashMap<>())
                                .put(r.label(), Numbers.value(k, last.get(k)));
                    }
                }
            }
            Map<String, JsonObject> lastProbe = new LinkedHashMap<>();
            for (JsonObject p : RunReport.kind(r.records(), "probe")) {
                lastProbe.put(p.get("probe").getAsString(), p);
            }
            for (JsonObject p : lastProbe.values()) {
                for (String k : scalarKeys(p)) {
                    rows.computeIfAbsent(p.get("probe").getAsString() + ": " + k, x -> new LinkedHashMap<>())
                            .put(r.label(), Numbers.value(k, p.get(k)));
                }
            }
        }
        if (rows.isEmpty()) {
            return;
        }
        page.heading("Final values");
        List<List<String>> table = new ArrayList<>();
        rows.forEach((k, byRun) -> {
            List<String> row = new ArrayList<>();
            row.add(k);
            rs.forEach(r -> row.add(byRun.getOrDefault(r.label(), "–")));
            table.add(row);
        });
        page.table("final", header("metric (last record)", rs), table, null);
    }

    private static List<String> header(String first, List<Run> rs) {
        List<String> h = new ArrayList<>();
        h.add(first);
        rs.forEach(r -> h.add(r.label()));
        return h;
    }

    /** The numeric scalar keys of a record that are measurements. */
    private static List<String> scalarKeys(JsonObject rec) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, JsonElement> e : rec.entrySet()) {
            if (!NOT_METRICS.contains(e.getKey())
                    && e.getValue().isJsonPrimitive()
                    && e.getValue().getAsJsonPrimitive().isNumber()) {
                out.add(e.getKey());
            }
        }
        return out;
    }

    /** One figure per metric with a series per run, drawn into {@code out}. */
    private static List<Figure> charts(Path out, List<Run> rs) {
        List<Figure> figs = new ArrayList<>();
        Set<String> epochKeys = new LinkedHashSet<>();
        for (Run r : rs) {
            RunReport.kind(r.records(), "epoch").forEach(e -> epochKeys.addAll(scalarKeys(e)));
        }
        for (String k : epochKeys) {
            boolean log = k.endsWith("loss");
            figs.add(chart(out, rs, new Source("epoch", null), "epoch", k, k.replace('_', ' ') + " per epoch", log));
        }
        if (rs.stream()
                .anyMatch(r -> !RunReport.kind(r.records(), RunReport.STEP).isEmpty())) {
            figs.add(chart(out, rs, new Source(RunReport.STEP, null), "step", "loss", "training loss per step", true));
        }
        Map<String, Set<String>> probeKeys = new LinkedHashMap<>();
        for (Run r : rs) {
            for (JsonObject p : RunReport.kind(r.records(), "probe")) {
                probeKeys
                        .computeIfAbsent(p.get("probe").getAsString(), x -> new LinkedHashSet<>())
                        .addAll(scalarKeys(p));
            }
        }
        probeKeys.forEach((probe, keys) -> {
            for (String k : keys) {
                if (!k.endsWith("_seconds")) { // the probes' own timings stay in the table of final values
                    figs.add(chart(out, rs, new Source("probe", probe), "step", k, probe + " probe: " + k, false));
                }
            }
        });
        return figs;
    }

    /** Which records a chart reads: their kind, and for probe records the probe's name (else null). */
    private record Source(String kind, String probe) {}

    private static Figure chart(
            Path out, List<Run> rs, Source src, String xKey, String key, String title, boolean log) {
        String kind = src.kind();
        String probe = src.probe();
        TreeSet<Double> xs = new TreeSet<>();
        List<Map<Double, Double>> perRun = new ArrayList<>();
        for (Run r : rs) {
            Map<Double, Double> pts = new LinkedHashMap<>();
            for (JsonObject rec : RunReport.kind(r.records(), kind)) {
                if (probe != null
                        && (!rec.has("probe") || !probe.equals(rec.get("probe").getAsString()))) {
                    continue;
                }
                double x = value(rec, xKey);
                double y = value(rec, key);
                if (!Double.isNaN(x) && !Double.isNaN(y)) {
                    pts.put(x, y);
                    xs.add(x);
                }
            }
            perRun.add(pts);
        }
        double[] x = xs.stream().mapToDouble(Double::doubleValue).toArray();
        Map<String, double[]> series = new LinkedHashMap<>();
        for (int i = 0; i < rs.size(); i++) {
            Map<Double, Double> pts = perRun.get(i);
            double[] y = new double[x.length];
            for (int j = 0; j < x.length; j++) {
                y[j] = pts.getOrDefault(x[j], Double.NaN);
            }
            series.put(rs.get(i).label(), y);
        }
        String file = "compare-" + (probe == null ? "" : probe + "-") + key.replaceAll("[^A-Za-z0-9._-]", "_") + ".png";
        Figure f = Figure.lines(file, title, xKey, key, x, series, log && RunReport.positive(series));
        Plots.draw(out.resolve(file), f);
        return f;
    }

    private static double value(JsonObject rec, String key) {
        if (!rec.has(key) || !rec.get(key).isJsonPrimitive()) {
            return Double.NaN;
        }
        try {
            return rec.get(key).getAsDouble();
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}
