package org.ntk4j.report;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One self-contained HTML page: the bundled chart library (uPlot, see {@code uplot/README.md} in the resources), the
 * report's script and style and the figures' data are all inlined, so the page opens offline from any folder and
 * loads nothing from the network. The first {@code <table>} of the page is its summary (experiments insert their
 * verdict before it); every other table carries a class.
 */
final class HtmlPage {
    private static volatile String assets;
    /** Figures with more data than this (as JSON text) are shown as their PNG instead of being inlined. */
    static final int MAX_FIGURE_CHARS = 8_000_000;

    private final String title;
    private final StringBuilder body = new StringBuilder();
    private final JsonArray figures = new JsonArray();

    HtmlPage(String title) {
        this.title = title;
        body.append("<h1>").append(esc(title)).append("</h1>\n");
    }

    /** The summary table (key → value); always written, so the page has its first table. */
    HtmlPage summary(Map<String, String> rows) {
        body.append("<table>");
        rows.forEach((k, v) -> body.append("<tr><th>")
                .append(esc(k))
                .append("</th><td>")
                .append(esc(v))
                .append("</td></tr>"));
        body.append("</table>\n");
        return this;
    }

    HtmlPage heading(String h) {
        body.append("<h2>").append(esc(h)).append("</h2>\n");
        return this;
    }

    HtmlPage paragraph(String text) {
        body.append("<p>").append(esc(text)).append("</p>\n");
        return this;
    }

    HtmlPage hint(String text) {
        body.append("<p class=\"hint\">").append(esc(text)).append("</p>\n");
        return this;
    }

    /** A table with a class (so it is never taken for the summary): header cells, then rows of cells. */
    HtmlPage table(String cssClass, List<String> header, List<List<String>> rows, List<List<String>> cellClasses) {
        body.append("<table class=\"").append(esc(cssClass)).append("\"><tr>");
        header.forEach(h -> body.append("<th>").append(esc(h)).append("</th>"));
        body.append("</tr>");
        for (int r = 0; r < rows.size(); r++) {
            body.append("<tr>");
            List<String> row = rows.get(r);
            for (int c = 0; c < row.size(); c++) {
                String cls = cellClasses == null ? null : cellClasses.get(r).get(c);
                body.append(c == 0 ? "<th" : "<td")
                        .append(cls == null ? "" : " class=\"" + esc(cls) + "\"")
                        .append('>')
                        .append(esc(row.get(c)))
                        .append(c == 0 ? "</th>" : "</td>");
            }
            body.append("</tr>");
        }
        body.append("</table>\n");
        return this;
    }

    /**
     * The figures as interactive charts, each with links to its PNG (for papers) and data file when they exist in
     * {@code dir}, then {@code images}: PNGs with no figure data, shown as they are.
     */
    HtmlPage figures(Path dir, List<Figure> figs, List<String> images) {
        if (figs.isEmpty() && images.isEmpty()) {
            return this;
        }
        body.append("<div class=\"figs\">\n");
        List<String> pngs = new ArrayList<>(images);
        for (Figure f : figs) {
            JsonObject json = f.toJson();
            if (json.toString().length() > MAX_FIGURE_CHARS) { // a huge figure is shown as its PNG, not inlined
                pngs.add(f.file());
                continue;
            }
            int i = figures.size();
            figures.add(json);
            body.append("<figure class=\"fig\" data-fig=\"")
                    .append(i)
                    .append("\"><div class=\"chart\"></div><figcaption>");
            boolean png = dir != null && Files.isRegularFile(dir.resolve(f.file()));
            Path csv = dir == null ? null : Plots.csv(dir.resolve(f.file()));
            if (png) {
                link(f.file(), "PNG");
            }
            if (csv != null && Files.isRegularFile(csv)) {
                link(csv.getFileName().toString(), "data (CSV)");
                if (!png) {
                    body.append("<span>no PNG: drawing it needs XChart on the classpath</span>");
                }
            }
            body.append("</figcaption></figure>\n");
        }
        for (String p : pngs) {
            body.append("<figure class=\"fig\"><img src=\"")
                    .append(esc(p))
                    .append("\" alt=\"")
                    .append(esc(p))
                    .append("\"><figcaption>");
            link(p, p);
            body.append("</figcaption></figure>\n");
        }
        body.append("</div>\n");
        return this;
    }

    private void link(String href, String text) {
        body.append("<a href=\"")
                .append(esc(href))
                .append("\">")
                .append(esc(text))
                .append("</a>");
    }

    /** A list of links to files of the folder. */
    HtmlPage links(List<String> files) {
        body.append("<ul>");
        for (String d : files) {
            body.append("<li>");
            link(d, d);
            body.append("</li>");
        }
        body.append("</ul>\n");
        return this;
    }

    /** Raw HTML (already escaped by the caller). */
    HtmlPage raw(String html) {
        body.append(html);
        return this;
    }

    String html() {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>")
                .append(esc(title))
                .append("</title>\n<style>")
                .append(asset("uplot/uPlot.min.css"))
                .append('\n')
                .append(asset("report.css"))
                .append("</style></head><body>\n")
                .append(body)
                .append("<hr><p class=\"footer\"><small>")
                .append(esc(BuildInfo.footer()))
                .append("</small></p>\n");
        if (!figures.isEmpty()) {
            h.append("<script type=\"application/json\" id=\"ntk4j-figures\">")
                    .append(scriptSafe(figures.toString()))
                    .append("</script>\n<script>")
                    .append(scripts())
                    .append("</script>\n");
        }
        h.append("</body></html>\n");
        return h.toString();
    }

    /** uPlot, then the report's own script. */
    private static String scripts() {
        String a = assets;
        if (a == null) {
            a = asset("uplot/uPlot.iife.min.js") + "\n" + asset("report.js");
            if (a.toLowerCase(java.util.Locale.ROOT).contains("</script")) {
                throw new IllegalStateException("a bundled script contains </script>; it cannot be inlined");
            }
            assets = a;
        }
        return a;
    }

    /** A resource of this package as text. */
    static String asset(String name) {
        try (InputStream in = HtmlPage.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource org/ntk4j/report/" + name + " (a broken build)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** JSON inside a script element must not close it: every {@code <} (only ever inside strings) as \\u003c. */
    static String scriptSafe(String json) {
        return json.replace("<", "\\u003c");
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** The files of {@code dir} with one of the extensions, sorted by name. */
    static List<String> files(Path dir, String... extensions) {
        List<String> out = new ArrayList<>();
        try (var s = Files.list(dir)) {
            s.map(p -> p.getFileName().toString())
                    .filter(n -> !n.startsWith("."))
                    .sorted()
                    .forEach(n -> {
                        for (String e : extensions) {
                            if (n.endsWith(e)) {
                                out.add(n);
                                return;
                            }
                        }
                    });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }
}
