package org.ntk4j.report;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The data behind one plot of a report: what {@link Plots} draws as a PNG and {@link HtmlReport} as an interactive
 * chart. Three kinds: {@code lines} (series against a shared x), {@code heatmap} (a square kernel whose rows and
 * columns are sorted by class, with the class of each row) and {@code grid} (a rows × columns table of values with
 * labelled axes). A folder's figures are kept in {@value #INDEX}, keyed by the PNG file they belong to, so a report
 * written later (or by {@code ntk4j report}) finds the numbers without re-reading the PNGs.
 */
public final class Figure {
    /** The figure index of a folder: file name → figure, in the order the figures were first drawn. */
    public static final String INDEX = "figures.json";

    private final JsonObject json;

    private Figure(JsonObject json) {
        this.json = json;
    }

    /** Series (name → y values, NaN = missing) against {@code x}; {@code logY} draws the y axis in log scale. */
    public static Figure lines(
            String file,
            String title,
            String xLabel,
            String yLabel,
            double[] x,
            Map<String, double[]> series,
            boolean logY) {
        JsonObject o = header("lines", file, title);
        o.addProperty("xLabel", xLabel);
        o.addProperty("yLabel", yLabel);
        o.add("x", array(x));
        JsonArray s = new JsonArray();
        for (Map.Entry<String, double[]> e : series.entrySet()) {
            if (e.getValue().length != x.length) {
                throw new IllegalArgumentException("series " + e.getKey() + " has " + e.getValue().length
                        + " values for " + x.length + " x values");
            }
            JsonObject one = new JsonObject();
            one.addProperty("name", e.getKey());
            one.add("y", array(e.getValue()));
            s.add(one);
        }
        o.add("series", s);
        o.addProperty("logY", logY);
        return new Figure(o);
    }

    /**
     * A square kernel matrix sorted by class: {@code classes[i]} is the class of row (and column) i, non-decreasing;
     * null when the rows carry no class.
     */
    public static Figure heatmap(String file, String title, double[][] m, int[] classes) {
        if (classes != null && classes.length != m.length) {
            throw new IllegalArgumentException(classes.length + " classes for " + m.length + " rows");
        }
        JsonObject o = header("heatmap", file, title);
        o.add("z", matrix(m));
        if (classes != null) {
            JsonArray c = new JsonArray();
            for (int v : classes) {
                c.add(v);
            }
            o.add("classes", c);
        }
        return new Figure(o);
    }

    /** A rows × columns grid of values, row 0 at the top, with a label per row and per column. */
    public static Figure grid(
            String file, String title, String xTitle, String yTitle, String[] xLabels, String[] yLabels, double[][] m) {
        JsonObject o = header("grid", file, title);
        o.addProperty("xLabel", xTitle);
        o.addProperty("yLabel", yTitle);
        o.add("z", matrix(m));
        o.add("xTicks", strings(xLabels));
        o.add("yTicks", strings(yLabels));
        return new Figure(o);
    }

    private static JsonObject header(String kind, String file, String title) {
        JsonObject o = new JsonObject();
        o.addProperty("kind", kind);
        o.addProperty("file", file);
        o.addProperty("title", title);
        return o;
    }

    /** lines, heatmap or grid. */
    public String kind() {
        return json.get("kind").getAsString();
    }

    /** The PNG file this figure belongs to (a name in the folder, e.g. {@code loss.png}). */
    public String file() {
        return json.get("file").getAsString();
    }

    public String title() {
        return json.get("title").getAsString();
    }

    /** Axis label, "" when none. */
    public String xLabel() {
        return json.has("xLabel") ? json.get("xLabel").getAsString() : "";
    }

    /** Axis label, "" when none. */
    public String yLabel() {
        return json.has("yLabel") ? json.get("yLabel").getAsString() : "";
    }

    public boolean logY() {
        return json.has("logY") && json.get("logY").getAsBoolean();
    }

    /** lines: the x values. */
    public double[] x() {
        return values(json.getAsJsonArray("x"));
    }

    /** lines: name → y values (NaN where missing), in order. */
    public Map<String, double[]> series() {
        Map<String, double[]> out = new LinkedHashMap<>();
        for (JsonElement e : json.getAsJsonArray("series")) {
            JsonObject s = e.getAsJsonObject();
            out.put(s.get("name").getAsString(), values(s.getAsJsonArray("y")));
        }
        return out;
    }

    /** heatmap and grid: the matrix, row 0 first. */
    public double[][] z() {
        JsonArray rows = json.getAsJsonArray("z");
        double[][] m = new double[rows.size()][];
        for (int i = 0; i < m.length; i++) {
            m[i] = values(rows.get(i).getAsJsonArray());
        }
        return m;
    }

    /** heatmap: the class of each row, or null. */
    public int[] classes() {
        if (!json.has("classes")) {
            return null;
        }
        JsonArray a = json.getAsJsonArray("classes");
        int[] c = new int[a.size()];
        for (int i = 0; i < c.length; i++) {
            c[i] = a.get(i).getAsInt();
        }
        return c;
    }

    /** grid: column labels. */
    public String[] xTicks() {
        return stringValues(json.getAsJsonArray("xTicks"));
    }

    /** grid: row labels, row 0 first. */
    public String[] yTicks() {
        return stringValues(json.getAsJsonArray("yTicks"));
    }

    /** The figure as JSON (non-finite numbers as null), as the report page reads it. */
    public JsonObject toJson() {
        return json.deepCopy();
    }

    /** A figure read back from {@link #toJson()}. */
    public static Figure fromJson(JsonObject o) {
        if (!o.has("kind") || !o.has("file") || !o.has("title")) {
            throw new IllegalArgumentException("not a figure: " + o.keySet());
        }
        return new Figure(o.deepCopy());
    }

    /**
     * Records {@code f} in {@code dir}'s {@value #INDEX} (replacing an earlier figure of the same file, keeping its
     * place), atomically.
     */
    public static synchronized void register(Path dir, Figure f) {
        Map<String, Figure> all = read(dir);
        all.put(f.file(), f);
        JsonObject o = new JsonObject();
        all.forEach((k, v) -> o.add(k, v.json));
        Files2.writeString(dir.resolve(INDEX), o.toString() + "\n");
    }

    /** The figures recorded in {@code dir} (file → figure, in order); empty when none or unreadable. */
    public static synchronized Map<String, Figure> read(Path dir) {
        Map<String, Figure> out = new LinkedHashMap<>();
        Path f = dir.resolve(INDEX);
        if (!Files.isRegularFile(f)) {
            return out;
        }
        try {
            JsonObject o = JsonParser.parseString(Files.readString(f, StandardCharsets.UTF_8))
                    .getAsJsonObject();
            for (Map.Entry<String, JsonElement> e : o.entrySet()) {
                out.put(e.getKey(), fromJson(e.getValue().getAsJsonObject()));
            }
        } catch (IOException | RuntimeException e) {
            // a damaged index loses the interactive charts, not the report: it is rebuilt as figures are drawn
            out.clear();
        }
        return out;
    }

    /** The {@code lines} figure as CSV: a header (x label, series names), then one row per x. */
    public String csv() {
        StringBuilder b = new StringBuilder();
        Map<String, double[]> s = series();
        List<String> head = new ArrayList<>();
        head.add(xLabel().isEmpty() ? "x" : xLabel());
        head.addAll(s.keySet());
        b.append(String.join(",", head.stream().map(Figure::csvCell).toList())).append('\n');
        double[] x = x();
        for (int i = 0; i < x.length; i++) {
            b.append(Numbers.plain(x[i]));
            for (double[] y : s.values()) {
                b.append(',').append(Double.isNaN(y[i]) ? "" : Numbers.plain(y[i]));
            }
            b.append('\n');
        }
        return b.toString();
    }

    /** A heatmap or grid as CSV: one row of the matrix per line. */
    public String matrixCsv() {
        StringBuilder b = new StringBuilder();
        for (double[] row : z()) {
            b.append(String.join(
                            ",",
                            Arrays.stream(row)
                                    .mapToObj(v -> Double.isNaN(v) ? "" : Numbers.plain(v))
                                    .toList()))
                    .append('\n');
        }
        return b.toString();
    }

    private static String csvCell(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    private static JsonArray array(double[] v) {
        JsonArray a = new JsonArray(v.length);
        for (double d : v) {
            a.add(Double.isFinite(d) ? new JsonPrimitive(d) : JsonNull.INSTANCE);
        }
        return a;
    }

    private static JsonArray matrix(double[][] m) {
        JsonArray a = new JsonArray(m.length);
        for (double[] row : m) {
            a.add(array(row));
        }
        return a;
    }

    private static JsonArray strings(String[] s) {
        JsonArray a = new JsonArray(s.length);
        for (String v : s) {
            a.add(v);
        }
        return a;
    }

    private static double[] values(JsonArray a) {
        double[] v = new double[a.size()];
        for (int i = 0; i < v.length; i++) {
            JsonElement e = a.get(i);
            v[i] = e.isJsonNull() ? Double.NaN : e.getAsDouble();
        }
        return v;
    }

    private static String[] stringValues(JsonArray a) {
        String[] s = new String[a.size()];
        for (int i = 0; i < s.length; i++) {
            s[i] = a.get(i).getAsString();
        }
        return s;
    }
}
