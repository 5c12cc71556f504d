package org.ntk4j.experiment.support;

import java.util.List;

/**
 * The verdict table of a reproduction: each measured number beside the paper's, and whether the claim
 * is reproduced, partly reproduced or not, with the reason. Printed by the CLI and put at the top of
 * report.html by {@link StudyReport}.
 */
public final class Verdicts {
    /** reproduced | partly | not; not computed when a measurement the claim needs is missing (NaN). */
    public enum Outcome {
        REPRODUCED("reproduced"),
        PARTLY("partly"),
        NOT("not"),
        NOT_COMPUTED("not computed");

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

    /**
     * {@link #grade} when every value in {@code measured} is finite, else {@link Outcome#NOT_COMPUTED}: a claim is
     * never graded on a NaN.
     */
    public static Outcome grade(boolean tight, boolean partly, double... measured) {
        return allFinite(measured) ? grade(tight, partly) : Outcome.NOT_COMPUTED;
    }

    /** Whether every value is finite (neither NaN nor infinite). */
    public static boolean allFinite(double... values) {
        for (double v : values) {
            if (!Double.isFinite(v)) {
                return false;
            }
        }
        return true;
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

    /**
     * Grades the claim "a is above b" for two accuracies (or any binomial proportions) measured on {@code na} and
     * {@code nb} images: reproduced when a − b exceeds two standard errors of the difference
     * ({@link Stats#differenceSe}), partly when the difference is within ±2 SE (not resolved at this sample size),
     * not when b exceeds a by more than 2 SE.
     */
    public static Outcome gradeAbove(double a, int na, double b, int nb) {
        double se = Stats.differenceSe(a, na, b, nb);
        return a - b > 2 * se ? Outcome.REPRODUCED : b - a > 2 * se ? Outcome.NOT : Outcome.PARTLY;
    }

    /** The lower of two outcomes (not &lt; partly &lt; reproduced). */
    public static Outcome worst(Outcome a, Outcome b) {
        return a.ordinal() >= b.ordinal() ? a : b;
    }

    /** "a vs b (difference d ± 2 SE)": the measured text of {@link #gradeAbove}, accuracies in percent. */
    public static String accuracyPair(double a, int na, double b, int nb) {
        return String.format(
                java.util.Locale.ROOT,
                "%.1f%% vs %.1f%% (±%.1f, 2 SE)",
                100 * a,
                100 * b,
                200 * Stats.differenceSe(a, na, b, nb));
    }
}
