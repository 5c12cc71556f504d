package org.ntk4j.report;

import java.awt.Color;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Line-chart PNGs with XChart, the only class of the library that touches XChart (an optional dependency): loaded
 * only when {@link Plots#xchartAvailable()}. The legend sits outside the plot area (right of it), so it never covers
 * the curves; a log-scale axis runs between whole decades, so it always shows at least two labelled ticks (XChart
 * labels decades only); tick labels carry four significant digits.
 */
final class XChartPlots {
    private XChartPlots() {}

    static void lines(Path file, Figure f) {
        Map<String, double[]> series = f.series();
        double[] x = f.x();
        XYChart chart = new XYChartBuilder()
                .width(series.size() > 1 ? 860 : 640)
                .height(420)
                .title(f.title())
                .xAxisTitle(f.xLabel())
                .yAxisTitle(f.yLabel())
                .build();
        var st = chart.getStyler();
        st.setLegendPosition(Styler.LegendPosition.OutsideE);
        st.setLegendVisible(series.size() > 1);
        st.setChartBackgroundColor(Color.WHITE);
        st.setYAxisLogarithmic(f.logY());
        if (f.logY()) {
            double lo = Double.POSITIVE_INFINITY;
            double hi = 0;
            for (double[] y : series.values()) {
                for (double v : y) {
                    if (v > 0 && Double.isFinite(v)) {
                        lo = Math.min(lo, v);
                        hi = Math.max(hi, v);
                    }
                }
            }
            if (hi > 0) { // whole decades, so the axis has at least two labelled ticks
                double a = Math.pow(10, Math.floor(Math.log10(lo)));
                double b = Math.pow(10, Math.ceil(Math.log10(hi)));
                st.setYAxisMin(a);
                st.setYAxisMax(b > a ? b : 10 * a);
            }
        }
        st.setyAxisTickLabelsFormattingFunction(Numbers::format);
        for (Map.Entry<String, double[]> e : series.entrySet()) {
            double[] y = e.getValue();
            if (f.logY()) {
                y = Arrays.stream(y).map(v -> v > 0 ? v : Double.NaN).toArray(); // a log axis has no place for them
            }
            var sr = chart.addSeries(e.getKey(), x, y);
            if (x.length > 60) { // dense curves (thousands of steps): markers would hide the lines
                sr.setMarker(SeriesMarkers.NONE);
            }
        }
        Files2.writeAtomically(file, os -> BitmapEncoder.saveBitmap(chart, os, BitmapEncoder.BitmapFormat.PNG));
    }

    /**
     * Draws a small two-series chart with a log axis into memory: loads and initialises what the first real chart
     * needs (XChart, Java2D's renderer, the fonts, the PNG writer), 0.4-0.6 s in a fresh JVM.
     */
    static void warmUp() throws java.io.IOException {
        XYChart chart = new XYChartBuilder()
                .width(320)
                .height(200)
                .title("warm-up")
                .xAxisTitle("x")
                .yAxisTitle("y")
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setyAxisTickLabelsFormattingFunction(Numbers::format);
        chart.addSeries("a", new double[] {1, 2, 3}, new double[] {1, 10, 100});
        chart.addSeries("b", new double[] {1, 2, 3}, new double[] {2, 20, 50});
        BitmapEncoder.saveBitmap(chart, new java.io.ByteArrayOutputStream(), BitmapEncoder.BitmapFormat.PNG);
    }

    /** A {@link Chart}: lines or scatter points, error bars, a second y axis, log axes, the legend outside. */
    static void chart(Path file, Chart c) {
        XYChart chart = new XYChartBuilder()
                .width(860)
                .height(440)
                .title(c.title())
                .xAxisTitle(c.xLabel())
                .yAxisTitle(c.yLabel())
                .build();
        Styler st = chart.getStyler();
        st.setLegendPosition(Styler.LegendPosition.OutsideE);
        st.setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setXAxisLogarithmic(c.isLogX());
        chart.getStyler().setYAxisLogarithmic(c.isLogY());
        chart.getStyler().setErrorBarsColorSeriesColor(true);
        if (c.rightLabel() != null) {
            chart.setYAxisGroupTitle(1, c.rightLabel());
            st.setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
        }
        for (Chart.Series s : c.series()) {
            XYSeries x = s.errors() == null
                    ? chart.addSeries(s.name(), s.x(), s.y())
                    : chart.addSeries(s.name(), s.x(), s.y(), s.errors());
            if (s.scatter()) {
                x.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            } else if (s.x().length > 60) { // dense curves: markers would hide the line
                x.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE);
            }
            if (s.right()) {
                x.setYAxisGroup(1);
            }
        }
        Files2.writeAtomically(file, os -> BitmapEncoder.saveBitmap(chart, os, BitmapEncoder.BitmapFormat.PNG));
    }
}
