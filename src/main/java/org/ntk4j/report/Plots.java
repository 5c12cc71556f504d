package org.ntk4j.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Plots of a report: each figure's numbers go to the folder's {@value Figure#INDEX} (which {@link HtmlReport} draws
 * as interactive charts) and to a PNG for papers. Line charts are drawn with XChart, an optional dependency that the
 * CLI carries and library consumers usually do not: without it (or when Java2D cannot draw, e.g. no fonts) a line
 * chart becomes {@code <name>.csv} beside where the PNG would be, and nothing fails. Heatmaps are drawn with Java2D
 * ({@link HeatmapImage}), without XChart.
 */
public final class Plots {
    private static volatile Boolean xchart;

    private Plots() {}

    /** Whether XChart is on the classpath (line-chart PNGs; otherwise their data go to CSV files). */
    public static boolean xchartAvailable() {
        Boolean x = xchart;
        if (x == null) {
            try {
                Class.forName("org.knowm.xchart.XYChart", false, Plots.class.getClassLoader());
                x = true;
            } catch (ClassNotFoundException | LinkageError e) {
                x = false;
            }
            xchart = x;
        }
        return x;
    }

    /** One line per series (name → y values, NaN = no point) against x; {@code logY}: a log-scale y axis. */
    public static void lines(
            Path file,
            String title,
            String xLabel,
            String yLabel,
            double[] x,
            Map<String, double[]> series,
            boolean logY) {
        draw(file, Figure.lines(name(file), title, xLabel, yLabel, x, series, logY));
    }

    /** Heatmap of a square matrix (rows top to bottom), without class structure. */
    public static void heatmap(Path file, String title, double[][] m) {
        heatmap(file, title, m, null);
    }

    /**
     * Heatmap of a square kernel whose rows and columns are sorted by class: {@code classes[i]} is the class of row
     * i (non-decreasing), drawn as block boundaries and axis labels; null for none.
     */
    public static void heatmap(Path file, String title, double[][] m, int[] classes) {
        draw(file, Figure.heatmap(name(file), title, m, classes));
    }

    /**
     * Heatmap of a rows × columns grid with labelled axes: row 0 at the top, column 0 at the left (e.g. the
     * relative layer l/L against the depth L).
     */
    public static void heatmap(
            Path file, String title, String xTitle, String yTitle, String[] xLabels, String[] yLabels, double[][] m) {
        draw(file, Figure.grid(name(file), title, xTitle, yTitle, xLabels, yLabels, m));
    }

    /**
     * Records {@code f} in the folder's figure index and draws it to {@code file} (a PNG), or, when it cannot be
     * drawn here, writes its data to {@code <name>.csv} (and removes a stale PNG of the same name).
     */
    /**
     * Prepares the chart drawing on a background daemon thread (a small chart drawn into memory, {@link
     * XChartPlots#warmUp}), so that a command whose report comes at the end does not pay the first chart's class
     * loading and font set-up then: 0.3-0.5 s of a training run's time outside its epochs (benchmarks/RESULTS.md,
     * "Memory's first touch"). For a command that starts with single-threaded work (reading data, loading the engine)
     * on a machine with a core to spare; nothing happens without XChart, and a failure is left to the real chart.
     */
    public static void prepareInBackground() {
        if (Runtime.getRuntime().availableProcessors() < 2
                || !xchartAvailable()
                || !java.awt.GraphicsEnvironment.isHeadless()) {
            return;
        }
        Thread t = new Thread(
                () -> {
                    try {
                        XChartPlots.warmUp();
                    } catch (Exception | LinkageError | java.awt.AWTError e) {
                        // the real chart meets the same failure and says so (or writes the data file instead)
                    }
                },
                "ntk4j-plots-warm-up");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    public static void draw(Path file, Figure f) {
        Path dir = file.toAbsolutePath().getParent();
        Figure.register(dir, f);
        if (png(file, f)) {
            deleteQuietly(csv(file));
        } else {
            deleteQuietly(file);
            Files2.writeString(csv(file), "lines".equals(f.kind()) ? f.csv() : f.matrixCsv());
        }
    }

    /** Draws the PNG; false when this JVM cannot (no XChart for line charts, no usable Java2D). */
    private static boolean png(Path file, Figure f) {
        try {
            if ("lines".equals(f.kind())) {
                if (!xchartAvailable()) {
                    return false;
                }
                XChartPlots.lines(file, f);
            } else {
                HeatmapImage.write(file, f);
            }
            return true;
        } catch (LinkageError | java.awt.AWTError e) {
            return false; // XChart's own dependencies missing, no fonts, no Java2D: the data file stands in
        }
    }

    /** {@code <name>.csv} beside the PNG {@code file}. */
    public static Path csv(Path file) {
        String n = file.getFileName().toString();
        int dot = n.lastIndexOf('.');
        return file.resolveSibling((dot > 0 ? n.substring(0, dot) : n) + ".csv");
    }

    private static String name(Path file) {
        return file.getFileName().toString();
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + p + ": " + e.getMessage(), e);
        }
    }
}
