package org.ntk4j.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A one-line text progress bar with rate and ETA on stderr, redrawn at most 5 times a second, when stderr is a
 * terminal ({@link #stderrIsTerminal()}); otherwise (a log file, a pipe, CI) it prints a line at every 10% instead,
 * never a carriage return. Long work between updates (a probe measuring a kernel) runs as an {@link #activity}: on a
 * terminal its name and elapsed time are redrawn every quarter second, after the bar if one is showing, so the line
 * never freezes.
 */
public final class ProgressBar {
    private static final long TICK_MS = 250;
    private static volatile Boolean terminal;
    private static volatile ProgressBar current;
    private static final Object LOCK = new Object();

    private final String label;
    private final long total;
    private final PrintStream out;
    private final boolean tty;
    private final long start = System.nanoTime();
    private long lastDraw;
    private long done;
    private int lastDecile = -1;
    private String suffix = "";
    private String note = "";

    public ProgressBar(String label, long total) {
        this(label, total, System.err, stderrIsTerminal());
    }

    ProgressBar(String label, long total, PrintStream out, boolean tty) {
        this.label = label;
        this.total = Math.max(1, total);
        this.out = out;
        this.tty = tty;
        if (tty) {
            current = this;
        }
    }

    /**
     * Whether stderr, where bars are drawn, is a terminal: the system property {@code ntk4j.stderr.tty} (the launcher
     * sets it from {@code [ -t 2 ]}), else, on Linux, whether file descriptor 2 is a terminal device; else false.
     * Not {@code System.console()}, which looks at stdin and stdout.
     */
    public static boolean stderrIsTerminal() {
        Boolean t = terminal;
        if (t == null) {
            String p = System.getProperty("ntk4j.stderr.tty");
            if (p != null) {
                t = Boolean.parseBoolean(p.trim());
            } else {
                try {
                    String target =
                            Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
                    t = target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
                } catch (IOException | UnsupportedOperationException | SecurityException e) {
                    t = false;
                }
            }
            terminal = t;
        }
        return t;
    }

    /** Extra text shown after the bar (e.g. the current loss). */
    public void suffix(String s) {
        this.suffix = s;
    }

    public void update(long done) {
        synchronized (LOCK) {
            this.done = done;
            long now = System.nanoTime();
            int decile = (int) (10 * done / total);
            if (tty) {
                if (now - lastDraw < 200_000_000L && done < total) {
                    return;
                }
                draw(now);
                if (done >= total) {
                    out.println();
                    if (current == this) {
                        current = null;
                    }
                }
            } else if (decile != lastDecile) {
                lastDecile = decile;
                out.println(line(now));
            }
            out.flush();
        }
    }

    private void draw(long now) {
        lastDraw = now;
        out.print("\r" + line(now) + note + "\u001b[K"); // erase what a longer earlier line left
    }

    private String line(long now) {
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

    /** Work that runs between bar updates; closing it ends its line. */
    public interface Activity extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Marks long work ({@code what}, e.g. "probe ntk") on stderr while it runs: on a terminal, its elapsed time is
     * redrawn every 250 ms after the running bar (or on a line of its own between bars) and removed when it ends;
     * elsewhere nothing is printed.
     */
    public static Activity activity(String what) {
        return activity(what, System.err, stderrIsTerminal());
    }

    static Activity activity(String what, PrintStream out, boolean tty) {
        if (!tty) {
            return () -> {};
        }
        long t0 = System.nanoTime();
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ntk4j-progress");
            t.setDaemon(true);
            return t;
        });
        Runnable tick = () -> {
            synchronized (LOCK) {
                String note = " | " + what + " " + time((System.nanoTime() - t0) / 1e9);
                ProgressBar bar = current;
                if (bar != null && bar.out == out) {
                    bar.note = note;
                    bar.draw(System.nanoTime());
                } else {
                    out.print("\r" + note.substring(3) + " …\u001b[K");
                }
                out.flush();
            }
        };
        ScheduledFuture<?> f = ticker.scheduleAtFixedRate(tick, 0, TICK_MS, TimeUnit.MILLISECONDS);
        return () -> {
            f.cancel(false);
            ticker.shutdownNow();
            try {
                ticker.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (LOCK) {
                ProgressBar bar = current;
                if (bar != null && bar.out == out) {
                    bar.note = "";
                    bar.draw(System.nanoTime());
                } else {
                    out.print("\r\u001b[K");
                }
                out.flush();
            }
        };
    }

    static String time(double s) {
        if (s < 60) {
            return String.format("%.1fs", s);
        }
        return String.format("%dm%02ds", (long) s / 60, (long) s % 60);
    }
}
