package org.ntk4j.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** {@code report.html}: a title, a summary table, every PNG in the run folder, and links to its data files. */
public final class HtmlReport {
    private HtmlReport() {}

    public static void write(Path dir, String title, Map<String, String> summary, List<String> notes) {
        write(dir, title, "", summary, notes);
    }

    /** The same with {@code leadHtml} (already escaped HTML, e.g. a study's verdict table) between the title and the summary. */
    public static void write(Path dir, String title, String leadHtml, Map<String, String> summary, List<String> notes) {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>")
                .append(esc(title))
                .append("</title>")
                .append("<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
                        + "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 10px;text-align:left}"
                        + "img{max-width:540px;margin:6px;border:1px solid #eee}</style></head><body>")
                .append("<h1>")
                .append(esc(title))
                .append("</h1>")
                .append(leadHtml)
                .append("<table>");
        for (Map.Entry<String, String> e : summary.entrySet()) {
            h.append("<tr><th>")
                    .append(esc(e.getKey()))
                    .append("</th><td>")
                    .append(esc(e.getValue()))
                    .append("</td></tr>");
        }
        h.append("</table>");
        for (String n : notes) {
            h.append("<p>").append(esc(n)).append("</p>");
        }
        List<String> pngs = new ArrayList<>();
        List<String> data = new ArrayList<>();
        try (var s = Files.list(dir)) {
            s.map(p -> p.getFileName().toString()).sorted().forEach(n -> {
                if (n.endsWith(".png")) {
                    pngs.add(n);
                } else if (n.endsWith(".json") || n.endsWith(".jsonl") || n.endsWith(".npz") || n.endsWith(".csv")) {
                    data.add(n);
                }
            });
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        // training curves first, then the rest alphabetically
        List<String> first = List.of("loss.png", "accuracy.png", "alignment.png");
        pngs.sort(java.util.Comparator.comparingInt((String n) -> first.contains(n) ? first.indexOf(n) : first.size())
                .thenComparing(n -> n));
        h.append("<h2>Plots</h2><div>");
        for (String p : pngs) {
            h.append("<img src=\"")
                    .append(esc(p))
                    .append("\" alt=\"")
                    .append(esc(p))
                    .append("\">");
        }
        h.append("</div><h2>Data</h2><ul>");
        for (String d : data) {
            h.append("<li><a href=\"")
                    .append(esc(d))
                    .append("\">")
                    .append(esc(d))
                    .append("</a></li>");
        }
        h.append("</ul>\n<hr><p class=\"footer\"><small>")
                .append(esc(BuildInfo.footer()))
                .append("</small></p>\n");
        h.append("</body></html>\n");
        Files2.writeString(dir.resolve("report.html"), h.toString());
    }

    /** {@code s} with the HTML special characters escaped. */
    public static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
