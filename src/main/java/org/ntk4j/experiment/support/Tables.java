package org.ntk4j.experiment.support;

import java.util.Locale;

/** Number formats shared by the studies' printed tables and report summaries. */
public final class Tables {
    private Tables() {}

    /** The values to three decimals, separated by spaces. */
    public static String fmt(double[] v) {
        StringBuilder b = new StringBuilder();
        for (double x : v) {
            b.append(b.length() > 0 ? " " : "").append(String.format(Locale.ROOT, "%.3f", x));
        }
        return b.toString();
    }
}
