package org.ntk4j.report;

import java.awt.Color;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * A PNG chart built by name, for figures a paper draws with more than lines on one axis: series as lines or
 * scatter points, with error bars where a standard error exists, on a left or a second (right) y axis with its own
 * scale, logarithmic axes, and the legend outside the plot so it never covers data. E.g.
 * {@code new Chart(title, "depth L", "r").line("sampled", x, y, se).save(file)}.
 */
public final class Chart {
    private record Series(String name, double[] x, double[] y, double[] errors, boolean scatter, boolean right) {}

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

    /** Draws the chart into {@code file} (PNG, written atomically). */
    public void save(Path file) {
        XYChart chart = new XYChartBuilder()
                .width(860)
                .height(440)
                .title(title)
                .xAxisTitle(xLabel)
                .yAxisTitle(yLabel)
                .build();
        Styler st = chart.getStyler();
        st.setLegendPosition(Styler.LegendPosition.OutsideE);
        st.setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setXAxisLogarithmic(logX);
        chart.getStyler().setYAxisLogarithmic(logY);
        chart.getStyler().setErrorBarsColorSeriesColor(true);
        if (rightLabel != null) {
            chart.setYAxisGroupTitle(1, rightLabel);
            st.setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
        }
        for (Series s : series) {
            XYSeries x = s.errors() == null
                    ? chart.addSeries(s.name(), s.x(), s.y())
                    : chart.addSeries(s.name(), s.x(), s.y(), s.errors());
            if (s.scatter()) {
                x.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            } else if (s.x().length > 60) { // dense curves: markers would hide the line
                x.setMarker(SeriesMarkers.NONE);
            }
            if (s.right()) {
                x.setYAxisGroup(1);
            }
        }
        Files2.writeAtomically(file, os -> BitmapEncoder.saveBitmap(chart, os, BitmapEncoder.BitmapFormat.PNG));
    }
}
