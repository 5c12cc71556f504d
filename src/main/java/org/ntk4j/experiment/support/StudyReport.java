package org.ntk4j.experiment.support;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.ntk4j.experiment.support.Verdicts.Verdict;
import org.ntk4j.report.HtmlReport;

/**
 * A study's report.html: the title, the verdict table first (measured beside the paper's number, reproduced / partly
 * / not, coloured), then the summary table, the notes, every plot and the data files of the folder. Built by name:
 * {@code new StudyReport(title).summary(rows).notes(lines).verdicts(v).write(out)}.
 */
public final class StudyReport {
    private final String title;
    private Map<String, String> summary = Map.of();
    private List<String> notes = List.of();
    private List<Verdict> verdicts;

    /** A report with this title. */
    public StudyReport(String title) {
        this.title = title;
    }

    /** The summary table: one row per key. */
    public StudyReport summary(Map<String, String> rows) {
        this.summary = rows;
        return this;
    }

    /** Paragraphs after the summary: the settings and what differs from the paper. */
    public StudyReport notes(List<String> lines) {
        this.notes = lines;
        return this;
    }

    /** The verdicts, shown first (no verdict table when this is not called). */
    public StudyReport verdicts(List<Verdict> v) {
        this.verdicts = v;
        return this;
    }

    /** Writes {@code dir}/report.html (after the plots and data files it links to). */
    public void write(Path dir) {
        HtmlReport.write(dir, title, verdicts == null ? "" : verdictHtml(verdicts), summary, notes);
    }

    /** The verdict table as HTML, followed by the heading of the details. */
    static String verdictHtml(List<Verdict> vs) {
        StringBuilder t =
                new StringBuilder("<h2>Verdict</h2><table><tr><th>quantity</th><th>measured</th><th>paper</th>"
                        + "<th>verdict</th><th>reason</th></tr>");
        for (Verdict v : vs) {
            String colour =
                    switch (v.outcome()) {
                        case REPRODUCED -> "#dfd";
                        case PARTLY -> "#ffd";
                        default -> "#fdd";
                    };
            t.append("<tr><td>")
                    .append(HtmlReport.esc(v.quantity()))
                    .append("</td><td>")
                    .append(HtmlReport.esc(v.measured()))
                    .append("</td><td>")
                    .append(HtmlReport.esc(v.paper()))
                    .append("</td><td style=\"background:")
                    .append(colour)
                    .append("\">")
                    .append(HtmlReport.esc(v.verdict()))
                    .append("</td><td>")
                    .append(HtmlReport.esc(v.reason()))
                    .append("</td></tr>");
        }
        return t.append("</table><h2>Details</h2>").toString();
    }
}
