package org.ntk4j.theory;

import java.util.List;
import org.ntk4j.UserException;

/**
 * A table of predictions as a front end shows it: the lines said before it, the table (a header and rows of
 * numbers), the lines said after it, and how it is plotted (columns {@code ys} against column {@code x}).
 *
 * @param name the file stem of its CSV and plot
 * @param title the plot's title
 * @param header the column names
 * @param rows the rows, one value per column
 * @param x the plot's x column
 * @param ys the plotted columns; empty = no plot
 * @param before lines said before the table
 * @param after lines said after it
 */
public record Table(
        String name,
        String title,
        String[] header,
        List<double[]> rows,
        int x,
        int[] ys,
        List<String> before,
        List<String> after) {
    public Table {
        rows = List.copyOf(rows);
        before = List.copyOf(before);
        after = List.copyOf(after);
    }

    /**
     * The table itself when every value is finite; else refused in one line naming the settings {@code given} (values
     * this large make the recursions leave the doubles), instead of a table of NaN or infinities.
     */
    public Table requireFinite(String given) {
        for (double[] r : rows) {
            for (double v : r) {
                if (!Double.isFinite(v)) {
                    throw new UserException("theory " + name + ": the result is not finite (" + v + ") with " + given
                            + "; choose smaller values");
                }
            }
        }
        return this;
    }

    /** The table with nothing said around it and no plot. */
    public static Table of(String name, String[] header, List<double[]> rows) {
        return new Table(name, name, header, rows, 0, new int[0], List.of(), List.of());
    }
}
