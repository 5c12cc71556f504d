package org.ntk4j.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A PNG chart built by name, for figures a paper draws with more than lines on one axis: series as lines or
 * scatter points, with error bars where a standard error exists, on a left or a second (right) y axis with its own
 * scale, logarithmic axes, and the legend outside the plot so it never covers data. E.g.
 * {@code new Chart(title, "depth L", "r").line("sampled", x, y, se).save(file)}.
 */
public final class Chart {
    record Series(String name, double[] x, double[] y, double[] errors, boolean scatter, boolean right) {}

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final List<Series> series = new ArrayList<>();
    private String rightLabel;
    private boolean logX;
    private boolean logY;

    /** A chart with a title and the x and (left) y axis labels. */
    public Chart(String title, String xLabel, String yLabel) {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
    }

    /** A logarithmic x axis. */
    public Chart logX() {
        logX = true;
        return this;
    }

    /** Logarithmic y axes. */
    public Chart logY() {
        logY = true;
        return this;
    }

    /** A line on the left axis. */
    public Chart line(String name, double[] x, double[] y) {
        return add(new Series(name, x, y, null, false, false));
    }

    /** A line on the left axis with ± error bars (e.g. one standard error). */
    public Chart line(String name, double[] x, double[] y, double[] errors) {
        return add(new Series(name, x, y, errors, false, false));
    }

    /** Points without a line on the left axis. */
    public Chart scatter(String name, double[] x, double[] y) {
        return add(new Series(name, x, y, null, true, false));
    }

    /** Points with ± error bars on the left axis. */
    public Chart scatter(String name, double[] x, double[] y, double[] errors) {
        return add(new Series(name, x, y, errors, true, false));
    }

    /** A line on the right axis, whose label is {@code axisLabel} (the first right series names it). */
    public Chart rightLine(String name, String axisLabel, double[] x, double[] y) {
        if (rightLabel == null) {
            rightLabel = axisLabel;
        }
        return add(new Series(name, x, y, null, false, true));
    }

    private Chart add(Series s) {
        if (s.x().length != s.y().length || s.errors() != null && s.errors().length != s.y().length) {
            throw new IllegalArgumentException(
                    "series '" + s.name() + "': " + s.x().length + " x values for " + s.y().length + " y values");
        }
        series.add(s);
        return this;
    }

    /**
     * Draws the chart into {@code file} (PNG, written atomically, by {@link XChartPlots}); where this JVM cannot draw
     * it (no XChart, no usable Java2D), its data go to {@code <name>.csv} beside it instead.
     */
    public void save(Path file) {
        try {
            if (Plots.xchartAvailable()) {
                XChartPlots.chart(file, this);
                return;
            }
        } catch (LinkageError | java.awt.AWTError e) {
            // the data file stands in
        }
        StringBuilder csv = new StringBuilder("series,axis,x,y,error\n");
        for (Series sr : series) {
            for (int i = 0; i < sr.x().length; i++) {
                csv.append('"')
                        .append(sr.name().replace("\"", "\"\""))
                        .append("\",")
                        .append(sr.right() ? "right" : "left")
                        .append(',')
                        .append(sr.x()[i])
                        .append(',')
                        .append(sr.y()[i])
                        .append(',')
                        .append(sr.errors() == null ? "" : Double.toString(sr.errors()[i]))
                        .append('\n');
            }
        }
        Files2.writeString(Plots.csv(file), csv.toString());
    }

    String title() {
        return title;
    }

    String xLabel() {
        return xLabel;
    }

    String yLabel() {
        return yLabel;
    }

    String rightLabel() {
        return rightLabel;
    }

    boolean isLogX() {
        return logX;
    }

    boolean isLogY() {
        return logY;
    }

    List<Series> series() {
        return series;
    }
}
