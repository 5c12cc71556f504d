package org.ntk4j.report;

import java.io.PrintStream;

/**
 * A one-line text progress bar with rate and ETA on stderr, redrawn at most 5 times a second.
 * When stderr is not a terminal (CI, pipes) it prints a line at every 10% instead.
 */
public final class ProgressBar {
    private final String label;
    private final long total;
    private final PrintStream out;
    private final long start = System.nanoTime();
    private final boolean tty = System.console() != null;
    private long lastDraw;
    private int lastDecile = -1;
    private String suffix = "";

    public ProgressBar(String label, long total) {
        this.label = label;
        this.total = Math.max(1, total);
        this.out = System.err;
    }

    /** Extra text shown after the bar (e.g. the current loss). */
    public void suffix(String s) {
        this.suffix = s;
    }

    public void update(long done) {
        long now = System.nanoTime();
        int decile = (int) (10 * done / total);
        if (tty) {
            if (now - lastDraw < 200_000_000L && done < total) {
                return;
            }
            lastDraw = now;
            out.print("\r" + line(done, now));
            if (done >= total) {
                out.println();
            }
        } else if (decile != lastDecile) {
            lastDecile = decile;
            out.println(line(done, now));
        }
        out.flush();
    }

    private String line(long done, long now) {
        double frac = Math.min(1.0, (double) done / total);
        int width = 30;
        int filled = (int) Math.round(frac * width);
        double elapsed = (now - start) / 1e9;
        double eta = done > 0 ? elapsed * (total - done) / done : Double.NaN;
        return String.format(
                "%-12s [%s%s] %3.0f%% %d/%d %s ETA %s %s",
                label,
                "=".repeat(filled),
                " ".repeat(width - filled),
                100 * frac,
                done,
                total,
                time(elapsed),
                done > 0 ? time(eta) : "?",
                suffix);
    }

    static String time(double s) {
        if (s < 60) {
            return String.format("%.1fs", s);
        }
        return String.format("%dm%02ds", (long) s / 60, (long) s % 60);
    }
}
