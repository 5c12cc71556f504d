package org.ntk4j.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.ntk4j.UserException;

/** Numeric CSV files: one sample per row, values separated by commas, semicolons or blanks. */
public final class Csv {
    private Csv() {}

    /**
     * The rows of a numeric CSV file; a first line that is not numeric is taken as a header. A missing file, a
     * value that is not a number, rows of different lengths or no row at all are one-line {@link UserException}s
     * naming the file and line.
     */
    public static double[][] read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UserException("cannot read " + file + ": " + e.getMessage(), e);
        }
        List<double[]> rows = new ArrayList<>();
        int width = -1;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split("[,;\\s]+");
            double[] r = new double[parts.length];
            try {
                for (int j = 0; j < parts.length; j++) {
                    r[j] = Double.parseDouble(parts[j]);
                }
            } catch (NumberFormatException e) {
                if (rows.isEmpty() && i == 0) {
                    continue;
                }
                throw new UserException(file + " line " + (i + 1) + ": not a number in '" + line + "'");
            }
            if (width >= 0 && r.length != width) {
                throw new UserException(file + " line " + (i + 1) + ": " + r.length + " columns, expected " + width);
            }
            width = r.length;
            rows.add(r);
        }
        if (rows.isEmpty()) {
            throw new UserException(file + ": no numeric rows");
        }
        return rows.toArray(new double[0][]);
    }
}
