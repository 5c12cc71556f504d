package org.ntk4j.report;

import java.awt.Color;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.HeatMapChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/** PNG plots with XChart: line charts of metrics and kernel heatmaps. */
public final class Plots {
    private Plots() {}

    /** One line per series (name → y values) against x. */
    public static void lines(
            Path file,
            String title,
            String xLabel,
            String yLabel,
            double[] x,
            Map<String, double[]> series,
            boolean logY) {
        XYChart chart = new XYChartBuilder()
                .width(860)
                .height(420)
                .title(title)
                .xAxisTitle(xLabel)
                .yAxisTitle(yLabel)
                .build();
        // the legend outside the plot: inside it covers data points
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setYAxisLogarithmic(logY);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        for (Map.Entry<String, double[]> e : series.entrySet()) {
            var sr = chart.addSeries(e.getKey(), x, e.getValue());
            if (x.length > 60) { // dense curves (thousands of steps): markers would hide the lines
                sr.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE);
            }
        }
        save(chart, file);
    }

    /** Heatmap of a square matrix (rows top to bottom). */
    public static void heatmap(Path file, String title, double[][] m) {
        int n = m.length;
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) {
            idx[i] = i;
        }
        List<Number[]> cells = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < m[i].length; j++) {
                cells.add(new Number[] {j, n - 1 - i, m[i][j]});
            }
        }
        HeatMapChart chart =
                new HeatMapChartBuilder().width(640).height(600).title(title).build();
        chart.getStyler().setShowValue(false);
        chart.getStyler().setPlotContentSize(1.0);
        chart.getStyler()
                .setRangeColors(new Color[] {new Color(0x30, 0x30, 0x90), Color.WHITE, new Color(0xb0, 0x20, 0x20)});
        chart.getStyler().setXAxisTicksVisible(false);
        chart.getStyler().setYAxisTicksVisible(false);
        chart.getStyler().setLegendVisible(true);
        chart.addSeries("Θ", toList(idx), toList(idx), cells);
        save(chart, file);
    }

    /**
     * Heatmap of a rows × columns grid with labelled axes: row 0 at the top, column 0 at the left (e.g. the
     * relative layer l/L against the depth L).
     */
    public static void heatmap(
            Path file, String title, String xTitle, String yTitle, String[] xLabels, String[] yLabels, double[][] m) {
        int rows = m.length;
        List<Number[]> cells = new java.util.ArrayList<>();
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < m[i].length; j++) {
                cells.add(new Number[] {j, rows - 1 - i, m[i][j]});
            }
        }
        List<String> ys = new java.util.ArrayList<>(List.of(yLabels));
        java.util.Collections.reverse(ys);
        HeatMapChart chart = new HeatMapChartBuilder()
                .width(720)
                .height(560)
                .title(title)
                .xAxisTitle(xTitle)
                .yAxisTitle(yTitle)
                .build();
        chart.getStyler().setShowValue(false);
        chart.getStyler().setPlotContentSize(1.0);
        chart.getStyler().setRangeColors(new Color[] {new Color(0x20, 0x10, 0x40), new Color(0xf0, 0xe0, 0x40)});
        chart.getStyler().setLegendVisible(true);
        chart.addSeries("value", List.of(xLabels), ys, cells);
        save(chart, file);
    }

    private static List<Integer> toList(int[] a) {
        return java.util.Arrays.stream(a).boxed().toList();
    }

    private static void save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path file) {
        Files2.writeAtomically(file, os -> BitmapEncoder.saveBitmap(chart, os, BitmapEncoder.BitmapFormat.PNG));
    }
}
