package org.ntk4j.report;

import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * {@code report.html}: a title, a summary table, interactive charts of every figure drawn into the folder
 * ({@link Plots}, kept in {@value Figure#INDEX}) with links to their PNGs, any other PNG as an image, links to the
 * data files, and the provenance of the computation. The page is self-contained and works offline ({@link HtmlPage}).
 */
public final class HtmlReport {
    /** Figures shown first, in this order; the rest follow in the order they were drawn. */
    static final List<String> FIRST = List.of("loss.png", "loss-steps.png", "accuracy.png", "alignment.png");

    private HtmlReport() {}

    public static void write(Path dir, String title, Map<String, String> summary, List<String> notes) {
        write(dir, title, summary, notes, List.of());
    }

    /**
     * As {@link #write(Path, String, Map, List)}, with a provenance table of the run's sessions ({@link Provenance}
     * records: device, DJL and PyTorch versions, ...), one column per session.
     */
    public static void write(
            Path dir, String title, Map<String, String> summary, List<String> notes, List<JsonObject> sessions) {
        HtmlPage page = new HtmlPage(title).summary(summary);
        for (String n : notes) {
            page.paragraph(n);
        }
        List<Figure> figs = figures(dir);
        List<String> known = figs.stream().map(Figure::file).toList();
        List<String> images = new ArrayList<>(HtmlPage.files(dir, ".png"));
        images.removeAll(known);
        if (!figs.isEmpty() || !images.isEmpty()) {
            page.heading("Plots");
            if (!figs.isEmpty()) {
                page.hint("Hover a chart for its values; drag to zoom (double-click resets); click a legend entry to"
                        + " hide or show its series. The PNG files are for papers.");
            }
            page.figures(dir, figs, images);
        }
        page.heading("Data").links(HtmlPage.files(dir, ".json", ".jsonl", ".npz", ".csv", ".safetensors"));
        provenance(page, sessions);
        Files2.writeString(dir.resolve("report.html"), page.html());
    }

    /** The folder's figures whose PNG or data file exists, {@link #FIRST} first, then in the order drawn. */
    static List<Figure> figures(Path dir) {
        List<Figure> figs = new ArrayList<>();
        for (Figure f : Figure.read(dir).values()) {
            Path png = dir.resolve(f.file());
            if (Files.isRegularFile(png) || Files.isRegularFile(Plots.csv(png))) {
                figs.add(f);
            }
        }
        List<Figure> ordered = new ArrayList<>(figs);
        ordered.sort(Comparator.comparingInt(f -> FIRST.contains(f.file()) ? FIRST.indexOf(f.file()) : FIRST.size()));
        return ordered;
    }

    static void provenance(HtmlPage page, List<JsonObject> sessions) {
        if (sessions.isEmpty()) {
            return;
        }
        page.heading("Provenance");
        List<Map<String, String>> cols = sessions.stream().map(Provenance::rows).toList();
        List<String> keys = new ArrayList<>();
        cols.forEach(c -> c.keySet().stream().filter(k -> !keys.contains(k)).forEach(keys::add));
        List<String> header = new ArrayList<>();
        header.add("");
        for (int i = 0; i < cols.size(); i++) {
            header.add(cols.size() == 1 ? "run" : "session " + (i + 1));
        }
        List<List<String>> rows = new ArrayList<>();
        for (String k : keys) {
            List<String> row = new ArrayList<>();
            row.add(k);
            cols.forEach(c -> row.add(c.getOrDefault(k, "–")));
            rows.add(row);
        }
        page.table("provenance", header, rows, null);
    }

    static String esc(String s) {
        return HtmlPage.esc(s);
    }
}
