package org.ntk4j.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report page without a browser: the bundled uPlot files are the npm release their note names (SHA-256); the
 * page inlines them and the figures' data so that nothing is fetched, and data cannot close the script element;
 * the summary stays the page's first table (experiments insert their verdict before it); numbers are printed to
 * their precision; a line chart without a PNG is written as CSV and still charted.
 */
class HtmlReportTest {
    @Test
    void bundledChartLibraryIsTheNpmReleaseItsNoteNames() throws Exception {
        String note = HtmlPage.asset("uplot/README.md");
        for (String f : List.of("uPlot.iife.min.js", "uPlot.min.css")) {
            try (InputStream in = HtmlPage.class.getResourceAsStream("uplot/" + f)) {
                String sha = HexFormat.of()
                        .formatHex(MessageDigest.getInstance("SHA-256").digest(in.readAllBytes()));
                assertTrue(note.contains("`" + f + "` (sha256 `" + sha + "`)"), f + " has sha256 " + sha);
            }
        }
        assertTrue(HtmlPage.asset("uplot/LICENSE").contains("MIT License"));
    }

    @Test
    void aSelfContainedPageWithTheSummaryAsItsFirstTable(@TempDir Path dir) throws Exception {
        Map<String, double[]> s = new LinkedHashMap<>();
        s.put("train </script><script>alert(1)</script>", new double[] {1.0, 0.5, Double.NaN});
        Figure f = Figure.lines("loss.png", "Loss", "epoch", "loss", new double[] {1, 2, 3}, s, true);
        Figure.register(dir, f);
        Files.writeString(dir.resolve("loss.csv"), f.csv()); // as when no PNG can be drawn
        Map<String, String> summary = new LinkedHashMap<>();
        summary.put("train loss", Numbers.format(0.3793735617399216));
        HtmlReport.write(dir, "t", summary, List.of("note"), List.of());
        String html = Files.readString(dir.resolve("report.html"));
        assertTrue(html.indexOf("<table>") < html.indexOf("<script"), "the summary is the first table");
        assertTrue(html.contains("<td>0.3794</td>"), html.substring(0, 400));
        assertEquals(2, html.split("</script>", -1).length - 1, "only the two script elements close");
        assertFalse(html.contains("src=\"http") || html.contains("href=\"http"), "nothing from the network");
        assertTrue(html.contains("uPlot") && html.contains("ntk4jCharts"), "library and charts inlined");
        assertTrue(html.contains("href=\"loss.csv\""), "the data file linked");
        assertEquals("epoch,train </script><script>alert(1)</script>\n1,1\n2,0.5\n3,\n", f.csv());
    }

    @Test
    void numbersToTheirPrecision() {
        assertEquals("0.3794", Numbers.format(0.3793735617399216));
        assertEquals("8.443", Numbers.format(8.44316213));
        assertEquals("1235", Numbers.format(1234.56));
        assertEquals("160", Numbers.format(160.0));
        assertEquals("1.235e-05", Numbers.format(1.2345e-5));
        assertEquals("2.500e+07", Numbers.format(2.5e7 + 0.5));
        assertEquals("NaN", Numbers.format(Double.NaN));
        assertEquals("8.44 s", Numbers.seconds(8.44316213));
        assertEquals("2 min 05 s", Numbers.seconds(125.2));
        assertEquals("8.44 s", Numbers.value("seconds", new com.google.gson.JsonPrimitive(8.44316213)));
    }
}
