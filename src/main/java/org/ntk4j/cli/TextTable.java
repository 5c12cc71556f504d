package org.ntk4j.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table whose columns are as wide as their widest cell, so long names never shift a row. */
final class TextTable {
    private final List<String[]> rows = new ArrayList<>();
    private final boolean[] right;

    /** {@code header}: column titles; {@code rightAligned}: which columns hold numbers. */
    TextTable(String[] header, boolean... rightAligned) {
        this.right = java.util.Arrays.copyOf(rightAligned, header.length);
        rows.add(header);
    }

    TextTable row(String... cells) {
        if (cells.length != right.length) {
            throw new IllegalArgumentException(cells.length + " cells for " + right.length + " columns");
        }
        rows.add(cells);
        return this;
    }

    void print(PrintWriter out) {
        int[] w = new int[right.length];
        for (String[] r : rows) {
            for (int c = 0; c < r.length; c++) {
                w[c] = Math.max(w[c], r[c].codePointCount(0, r[c].length()));
            }
        }
        for (String[] r : rows) {
            StringBuilder b = new StringBuilder();
            for (int c = 0; c < r.length; c++) {
                String cell = r[c];
                // a left-aligned last column needs no padding (no trailing blanks)
                int pad = c == r.length - 1 && !right[c] ? 0 : w[c] - cell.codePointCount(0, cell.length());
                if (right[c]) {
                    b.append(" ".repeat(pad)).append(cell);
                } else {
                    b.append(cell).append(" ".repeat(pad));
                }
                if (c < r.length - 1) {
                    b.append("  ");
                }
            }
            out.println(b.toString().stripTrailing());
        }
        out.flush();
    }
}
