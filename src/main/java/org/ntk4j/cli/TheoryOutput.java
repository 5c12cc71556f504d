package org.ntk4j.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.ntk4j.UserException;
import org.ntk4j.theory.Table;
import org.ntk4j.util.Numbers;

/**
 * Tables for the theory commands: printed aligned on stdout, and written as CSV and PNG into an output
 * folder. Every file is written to a temporary file in the same folder and then moved into place, so a
 * reader never sees a half-written file.
 */
final class TheoryOutput {
    private final Path dir;
    private final PrintStream out;

    TheoryOutput(Path dir, PrintStream out) {
        this.dir = dir;
        this.out = out;
        if (dir != null) {
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new UserException("cannot create output folder " + dir + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * Shows a table: the lines before it, the table printed, the lines after it, then its CSV and plot (when it has
     * plotted columns) written.
     */
    void show(Table t) {
        t.before().forEach(out::println);
        print(t.header(), t.rows());
        t.after().forEach(out::println);
        csv(t);
        if (t.ys().length > 0) {
            plot(t.name(), t.title(), t.header(), t.rows(), t.x(), t.ys(), false);
        }
    }

    /** Writes the table's CSV ({@link #csv(String, String[], List)}). */
    void csv(Table t) {
        csv(t.name(), t.header(), t.rows());
    }

    /** Prints a table (header + rows) with aligned columns. */
    void print(String[] header, List<double[]> rows) {
        int[] w = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            w[i] = Math.max(12, header[i].length() + 2);
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < header.length; i++) {
            sb.append(" ".repeat(w[i] - header[i].length())).append(header[i]);
        }
        out.println(sb);
        for (double[] r : rows) {
            sb.setLength(0);
            for (int i = 0; i < r.length; i++) {
                String v = Numbers.compact(r[i]);
                sb.append(" ".repeat(Math.max(1, w[i] - v.length()))).append(v);
            }
            out.println(sb);
        }
    }

    /** Writes {@code name}.csv if an output folder was given. */
    private void csv(String name, String[] header, List<double[]> rows) {
        if (dir == null) {
            return;
        }
        StringBuilder sb = new StringBuilder(String.join(",", header)).append('\n');
        for (double[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(Double.toString(r[i]));
            }
            sb.append('\n');
        }
        write(name + ".csv", sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** Writes {@code name}.png: columns {@code ys} of {@code rows} against column {@code x}. */
    private void plot(String name, String title, String[] header, List<double[]> rows, int x, int[] ys, boolean logY) {
        if (dir == null) {
            return;
        }
        XYChart chart = new XYChartBuilder()
                .width(800)
                .height(560)
                .title(title)
                .xAxisTitle(header[x])
                .yAxisTitle(ys.length == 1 ? header[ys[0]] : "")
                .build();
        chart.getStyler().setYAxisLogarithmic(logY);
        chart.getStyler().setMarkerSize(4);
        double[] xs = new double[rows.size()];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = rows.get(i)[x];
        }
        for (int c : ys) {
            double[] v = new double[rows.size()];
            for (int i = 0; i < v.length; i++) {
                v[i] = rows.get(i)[c];
            }
            chart.addSeries(header[c], xs, v);
        }
        try {
            write(name + ".png", BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG));
        } catch (IOException e) {
            throw new UserException("cannot render " + name + ".png: " + e.getMessage(), e);
        }
    }

    private void write(String file, byte[] bytes) {
        Path target = dir.resolve(file);
        try {
            Path tmp = Files.createTempFile(dir, "." + file, ".tmp");
            try {
                Files.write(tmp, bytes);
                try {
                    Files.setPosixFilePermissions(
                            tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
                } catch (UnsupportedOperationException ignored) {
                    // not a POSIX file system: keep the default permissions
                }
                try {
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UserException("cannot write " + target + ": " + e.getMessage(), e);
        }
        out.println("wrote " + target);
    }
}
