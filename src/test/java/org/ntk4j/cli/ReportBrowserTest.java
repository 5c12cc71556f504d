package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.testing.HeadlessChromium;

/**
 * The run report and the comparison page in a real headless browser (Debian's {@code chromium}; skipped, with a
 * message, where none is installed): two short training runs with all three probes, {@code ntk4j report RUN} and
 * {@code ntk4j report A B --out DIR}; each page loads with the network offline and requests nothing but its own
 * file, logs no console error or exception, draws every figure, and its charts answer real mouse events: hovering a
 * line chart shows the values under the cursor in its legend, clicking a legend entry hides that series, hovering a
 * heatmap names the cell's classes and value.
 */
class ReportBrowserTest {
    private static Path chromium;

    @TempDir
    static Path dir;

    private static Path a;
    private static Path b;

    @BeforeAll
    static void runs() {
        chromium = HeadlessChromium.find();
        Assumptions.assumeTrue(
                chromium != null,
                "chromium is not installed: the report's browser test is skipped (Debian: apt-get install chromium;"
                        + " or set CHROMIUM=/path/to/chrome)");
        a = dir.resolve("lr0.05");
        b = dir.resolve("lr0.2");
        for (Path run : List.of(a, b)) {
            CliTest.Run r = CliTest.run(
                    "train",
                    "--model",
                    "mlp-quickstart",
                    "--per-class",
                    "6",
                    "--test",
                    "4",
                    "--epochs",
                    "2",
                    "--batch-size",
                    "20",
                    "--lr",
                    run == a ? "0.05" : "0.2",
                    "--probe",
                    "ntk,nc,nfa",
                    "--probe-set",
                    "2",
                    "--threads",
                    "1",
                    "--out",
                    run.toString());
            assertEquals(0, r.code(), r.err());
        }
    }

    @Test
    void theRunReportIsInteractiveAndOffline() throws Exception {
        CliTest.Run r = CliTest.run("report", a.toString());
        assertEquals(0, r.code(), r.err());
        try (HeadlessChromium c = new HeadlessChromium(chromium)) {
            Path page = a.resolve("report.html");
            c.open(page.toUri().toString());
            assertOffline(c, page);
            int charts = c.eval("window.ntk4jCharts.length").getAsInt();
            JsonArray figs = c.eval("JSON.parse(document.getElementById('ntk4j-figures').textContent).map(f => f.file)")
                    .getAsJsonArray();
            assertEquals(figs.size(), charts, "every figure drawn: " + figs);
            for (String f : List.of("loss.png", "loss-steps.png", "accuracy.png", "ntk-heatmap.png")) {
                assertTrue(figs.toString().contains(f), f + " among " + figs);
            }
            hoverLineChart(c, 0);
            toggleSeries(c, 0);
            // a heatmap: the cell under the cursor, with its classes
            JsonObject box = c.eval("(() => { const cv = document.querySelector('.hm-wrap canvas');"
                            + " cv.scrollIntoView({block: 'center'}); const r = cv.getBoundingClientRect();"
                            + " return {x: r.left, y: r.top, w: r.width, h: r.height}; })()")
                    .getAsJsonObject();
            c.mouse(
                    "mouseMoved",
                    box.get("x").getAsDouble() + 70 + 5,
                    box.get("y").getAsDouble() + 8 + 5); // just inside the matrix's top-left cell
            String tip = c.eval("document.querySelector('.hm-tip').textContent").getAsString();
            assertTrue(tip.matches("row 0 \\(class \\d+\\), column 0 \\(class \\d+\\): [-0-9.e]+"), tip);
            assertTrue(c.problems().isEmpty(), "console: " + c.problems());
        }
    }

    @Test
    void theComparisonPutsTheRunsOnOneChart() throws Exception {
        Path out = dir.resolve("compare");
        CliTest.Run r = CliTest.run("report", a.toString(), b.toString(), "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        String html = Files.readString(out.resolve("report.html"));
        assertTrue(html.contains("<th>train.lr</th><td>0.05</td><td>0.2</td>"), "the differing setting");
        assertFalse(html.contains("<th>train.momentum</th>"), "equal settings are not listed");
        try (HeadlessChromium c = new HeadlessChromium(chromium)) {
            c.open(out.resolve("report.html").toUri().toString());
            assertOffline(c, out.resolve("report.html"));
            JsonArray names = c.eval("window.ntk4jCharts[0].series.slice(1).map(s => s.label)")
                    .getAsJsonArray();
            assertEquals("[\"lr0.05\",\"lr0.2\"]", names.toString(), "one series per run");
            hoverLineChart(c, 0);
            assertTrue(c.problems().isEmpty(), "console: " + c.problems());
        }
    }

    /** Only the page itself was requested, the network being offline. */
    private static void assertOffline(HeadlessChromium c, Path page) {
        List<String> req = c.requests();
        assertEquals(1, req.size(), "requests: " + req);
        assertEquals(page.toAbsolutePath(), Path.of(java.net.URI.create(req.get(0))), "requests: " + req);
    }

    /** Hovering the middle of line chart {@code i} puts the values under the cursor into its legend. */
    private static void hoverLineChart(HeadlessChromium c, int i) throws Exception {
        JsonObject box = c.eval("(() => { const o = window.ntk4jCharts[" + i + "].over;"
                        + " o.scrollIntoView({block: 'center'}); const r = o.getBoundingClientRect();"
                        + " return {x: r.left, y: r.top, w: r.width, h: r.height}; })()")
                .getAsJsonObject();
        String legend = "Array.from(window.ntk4jCharts[" + i + "].root.querySelectorAll('.u-legend .u-value'))"
                + ".map(e => e.textContent)";
        JsonArray before = c.eval(legend).getAsJsonArray();
        c.mouse(
                "mouseMoved",
                box.get("x").getAsDouble() + box.get("w").getAsDouble() / 2,
                box.get("y").getAsDouble() + box.get("h").getAsDouble() / 2);
        JsonArray after = c.eval(legend).getAsJsonArray();
        assertNotEquals(before, after, "the legend follows the cursor");
        assertTrue(after.get(0).getAsString().matches("[-0-9.e]+"), "x under the cursor: " + after);
        assertTrue(c.eval("window.ntk4jCharts[" + i + "].cursor.idx != null").getAsBoolean());
    }

    /** Clicking the second legend entry of chart {@code i} hides its series. */
    private static void toggleSeries(HeadlessChromium c, int i) throws Exception {
        JsonObject box = c.eval("(() => { const e = window.ntk4jCharts[" + i
                        + "].root.querySelectorAll('.u-legend .u-series')[1];"
                        + " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
                        + " return {x: r.left + 8, y: r.top + r.height / 2}; })()")
                .getAsJsonObject();
        assertTrue(c.eval("window.ntk4jCharts[" + i + "].series[1].show").getAsBoolean());
        c.mouse("mousePressed", box.get("x").getAsDouble(), box.get("y").getAsDouble());
        c.mouse("mouseReleased", box.get("x").getAsDouble(), box.get("y").getAsDouble());
        assertFalse(c.eval("window.ntk4jCharts[" + i + "].series[1].show").getAsBoolean(), "series hidden");
    }
}
