package org.ntk4j.report;

import com.google.gson.JsonElement;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

/**
 * How reports print numbers: to the precision they carry, never a raw double. Integers as integers; other values
 * to four significant digits ({@code 0.3794}, {@code 8.443}, {@code 1235}), in scientific notation outside
 * [10⁻³, 10⁵) ({@code 1.235e-05}); durations in seconds as {@code 8.44 s} or {@code 2 min 05 s}.
 */
public final class Numbers {
    /** Significant digits of {@link #format(double)}. */
    public static final int DIGITS = 4;

    private Numbers() {}

    /** Four significant digits; integers exactly; "NaN", "∞", "−∞" for non-finite values. */
    public static String format(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "∞" : "−∞";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        double a = Math.abs(v);
        if (a < 1e-3 || a >= 1e5) {
            return String.format(Locale.ROOT, "%." + (DIGITS - 1) + "e", v);
        }
        BigDecimal b = new BigDecimal(v).round(new MathContext(DIGITS));
        return b.stripTrailingZeros().toPlainString();
    }

    /** A duration: {@code 0.0123 s}, {@code 8.44 s}, {@code 2 min 05 s}, {@code 1 h 02 min}. */
    public static String seconds(double s) {
        if (!Double.isFinite(s)) {
            return format(s);
        }
        if (s < 60) {
            return format(new BigDecimal(s).round(new MathContext(3)).doubleValue()) + " s";
        }
        long t = Math.round(s);
        if (t < 3600) {
            return String.format(Locale.ROOT, "%d min %02d s", t / 60, t % 60);
        }
        return String.format(Locale.ROOT, "%d h %02d min", t / 3600, (t % 3600) / 60);
    }

    /**
     * A value of a metrics record as a report shows it: durations (keys ending in {@code seconds}) with their unit,
     * numbers to four significant digits, anything else as its text.
     */
    public static String value(String key, JsonElement v) {
        if (v == null || v.isJsonNull()) {
            return "–";
        }
        if (v.isJsonPrimitive()) {
            JsonPrimitive p = v.getAsJsonPrimitive();
            Double d = null;
            if (p.isNumber()) {
                d = p.getAsDouble();
            } else if (p.isString()
                    && (p.getAsString().equals("NaN") || p.getAsString().endsWith("Infinity"))) {
                d = Double.parseDouble(p.getAsString());
            }
            if (d != null) {
                return key.endsWith("seconds") ? seconds(d) : format(d);
            }
            return p.getAsString();
        }
        return v.toString();
    }

    /** Full precision for data files: the shortest text that reads back to the same double. */
    public static String plain(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return Double.toString(v);
    }
}
