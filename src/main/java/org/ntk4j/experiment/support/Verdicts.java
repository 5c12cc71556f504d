package org.ntk4j.experiment.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.ntk4j.report.Files2;

/**
 * The verdict table of a reproduction: each measured number beside the paper's, and whether the claim
 * is reproduced, partly reproduced or not, with the reason. Printed by the CLI and put at the top of
 * report.html (after {@link org.ntk4j.report.HtmlReport} has written it).
 */
public final class Verdicts {
    /** reproduced | partly | not. */
    public enum Outcome {
        REPRODUCED("reproduced"),
        PARTLY("partly"),
        NOT("not");

        final String word;

        Outcome(String word) {
            this.word = word;
        }
    }

    /** One claim: what is measured, the measured and the paper's value (as text), the outcome and why. */
    public record Verdict(String quantity, String measured, String paper, Outcome outcome, String reason) {
        /** The outcome as printed: reproduced, partly or not. */
        public String verdict() {
            return outcome.word;
        }
    }

    private Verdicts() {}

    /** reproduced when within {@code tight}, partly when {@code partly} holds, else not. */
    public static Outcome grade(boolean tight, boolean partly) {
        return tight ? Outcome.REPRODUCED : partly ? Outcome.PARTLY : Outcome.NOT;
    }

    /** The table as fixed-width text for the terminal. */
    public static String text(List<Verdict> vs) {
        StringBuilder t = new StringBuilder(
                String.format("%-44s %-22s %-16s %-11s %s%n", "quantity", "measured", "paper", "verdict", "reason"));
        for (Verdict v : vs) {
            t.append(String.format(
                    "%-44s %-22s %-16s %-11s %s%n", v.quantity(), v.measured(), v.paper(), v.verdict(), v.reason()));
        }
        return t.toString();
    }

    /** Inserts the verdict table as the first table of {@code dir}/report.html. */
    public static void addToReport(Path dir, List<Verdict> vs) {
        Path f = dir.resolve("report.html");
        String h;
        try {
            h = Files.readString(f);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
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
                    .append(esc(v.quantity()))
                    .append("</td><td>")
                    .append(esc(v.measured()))
                    .append("</td><td>")
                    .append(esc(v.paper()))
                    .append("</td><td style=\"background:")
                    .append(colour)
                    .append("\">")
                    .append(esc(v.verdict()))
                    .append("</td><td>")
                    .append(esc(v.reason()))
                    .append("</td></tr>");
        }
        t.append("</table><h2>Details</h2>");
        int at = h.indexOf("<table>");
        Files2.writeString(f, at < 0 ? h + t : h.substring(0, at) + t + h.substring(at));
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
