package org.ntk4j.util;

import java.util.Locale;

/** Numbers as tables and summary lines show them. */
public final class Numbers {
    private Numbers() {}

    /**
     * A number in few characters: an integer value as an integer ({@code 3}), any other with six significant
     * digits and no trailing zeros ({@code 0.25}, {@code 1.41421}, {@code 3.2e-07}).
     */
    public static String compact(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e9) {
            return String.valueOf((long) v);
        }
        String s = String.format(Locale.ROOT, "%.6g", v);
        int e = s.indexOf('e');
        String mant = e < 0 ? s : s.substring(0, e);
        String exp = e < 0 ? "" : s.substring(e);
        if (mant.contains(".")) {
            mant = mant.replaceAll("0+$", "").replaceAll("\\.$", "");
        }
        return mant + exp;
    }

    /** The values with {@code decimals} decimals, joined by {@code separator}: {@code 0.100 0.250}. */
    public static String join(double[] v, int decimals, String separator) {
        StringBuilder b = new StringBuilder();
        String f = "%." + decimals + "f";
        for (int i = 0; i < v.length; i++) {
            b.append(i == 0 ? "" : separator).append(String.format(Locale.ROOT, f, v[i]));
        }
        return b.toString();
    }

    /**
     * A size such as {@code 512m}, {@code 4g}, {@code 1t}, {@code 64k} or {@code 1000000} in bytes (k, m, g, t are
     * powers of 1024, also written kb, kib, ...); -1 when it is not one (or not positive).
     */
    public static long parseSize(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT).replaceAll("i?b$", "");
        long mult = 1;
        if (t.endsWith("k")) {
            mult = 1L << 10;
        } else if (t.endsWith("m")) {
            mult = 1L << 20;
        } else if (t.endsWith("g")) {
            mult = 1L << 30;
        } else if (t.endsWith("t")) {
            mult = 1L << 40;
        }
        try {
            long v = Long.parseLong(mult == 1 ? t : t.substring(0, t.length() - 1));
            return v <= 0 ? -1 : Math.multiplyExact(v, mult);
        } catch (NumberFormatException | ArithmeticException e) {
            return -1;
        }
    }

    /** Bytes in binary units for messages: {@code 512 B}, {@code 1.50 KiB}, {@code 12.3 MiB}, {@code 640 GiB}. */
    public static String bytes(long b) {
        if (b < 1024) {
            return b + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = b;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, units[u]);
    }
}
