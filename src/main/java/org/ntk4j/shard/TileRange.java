package org.ntk4j.shard;

import java.util.function.Function;
import org.ntk4j.OptionException;
import org.ntk4j.request.KernelOption;

/**
 * One block of a kernel: rows {@code [rowStart, rowEnd)} × columns {@code [colStart, colEnd)} of the kernel
 * {@code kernel}, which is {@value #TRAIN} (Θ(X1, X1), N × N, symmetric) or {@value #TEST} (Θ(X2, X1), M × N: test
 * rows, training columns); in a Nyström plan C = K(X, L) and C* = K(X*, L) (columns: the landmarks), and {@value
 * #HOLDOUT}, the held-out K_SS ({@link ShardPlan#approx()}). The unit of a {@link ShardPlan}: each shard of the plan is
 * one range.
 *
 * @param kernel {@value #TRAIN}, {@value #TEST} or {@value #HOLDOUT}
 * @param rowStart first row (inclusive)
 * @param rowEnd last row (exclusive)
 * @param colStart first column (inclusive)
 * @param colEnd last column (exclusive)
 */
public record TileRange(String kernel, int rowStart, int rowEnd, int colStart, int colEnd) {
    /** The training kernel Θ(X1, X1). */
    public static final String TRAIN = "ntk";

    /** The test × training kernel Θ(X2, X1). */
    public static final String TEST = "ntk_test";

    /** A Nyström plan's exact kernel K_SS of the held-out training images its error is measured on. */
    public static final String HOLDOUT = "ntk_holdout";

    public TileRange {
        if (!TRAIN.equals(kernel) && !TEST.equals(kernel) && !HOLDOUT.equals(kernel)) {
            throw new IllegalArgumentException(
                    "kernel must be " + TRAIN + ", " + TEST + " or " + HOLDOUT + " (got " + kernel + ")");
        }
        if (rowStart < 0 || rowEnd <= rowStart || colStart < 0 || colEnd <= colStart) {
            throw new IllegalArgumentException(
                    "empty or negative range rows " + rowStart + ":" + rowEnd + " cols " + colStart + ":" + colEnd);
        }
    }

    /**
     * Parses the rows {@code A:B} (test rows with {@link #TEST}) and the columns {@code C:D}: half-open, 0-based; a
     * malformed or empty range is a one-line {@link OptionException} naming the setting.
     */
    public static TileRange parse(String kernel, String rows, String cols) {
        int[] r = span(rowOption(kernel), rows);
        int[] c = span(KernelOption.COLS, cols);
        return new TileRange(kernel, r[0], r[1], c[0], c[1]);
    }

    /** The setting that names the rows of {@code kernel}: the rows, the test rows of Θ(X2, X1), the held-out rows. */
    static KernelOption rowOption(String kernel) {
        return switch (kernel) {
            case TEST -> KernelOption.TEST_ROWS;
            case HOLDOUT -> KernelOption.HOLDOUT_ROWS;
            default -> KernelOption.ROWS;
        };
    }

    private static int[] span(KernelOption option, String v) {
        String[] p = v == null ? new String[0] : v.trim().split(":", -1);
        try {
            if (p.length == 2) {
                int a = Integer.parseInt(p[0].trim());
                int b = Integer.parseInt(p[1].trim());
                if (a >= 0 && b > a) {
                    return new int[] {a, b};
                }
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw new OptionException(option, " must be a range A:B of sample indices with 0 <= A < B (got " + v + ")");
    }

    public int rows() {
        return rowEnd - rowStart;
    }

    public int cols() {
        return colEnd - colStart;
    }

    /** Whether the two ranges share an entry of the same kernel. */
    public boolean overlaps(TileRange o) {
        return kernel.equals(o.kernel)
                && rowStart < o.rowEnd
                && o.rowStart < rowEnd
                && colStart < o.colEnd
                && o.colStart < colEnd;
    }

    /** The file-system name of the shard: {@code ntk_r000000-000256_c000256-000512}. */
    public String name() {
        return String.format(
                java.util.Locale.ROOT, "%s_r%06d-%06d_c%06d-%06d", kernel, rowStart, rowEnd, colStart, colEnd);
    }

    /**
     * The range as settings, for an {@link OptionException}: rows (or test rows) {@code 0:256}, columns {@code
     * 256:512}.
     */
    public Object[] options() {
        return new Object[] {
            rowOption(kernel), " " + rowStart + ":" + rowEnd + " ", KernelOption.COLS, " " + colStart + ":" + colEnd
        };
    }

    /** The range as a front end names its settings ({@code --rows 0:256 --cols 256:512} on the command line). */
    public String options(Function<String, String> name) {
        return name.apply(rowOption(kernel).key()) + " " + rowStart + ":" + rowEnd + " "
                + name.apply(KernelOption.COLS.key()) + " " + colStart + ":" + colEnd;
    }

    @Override
    public String toString() {
        return kernel + " rows " + rowStart + ":" + rowEnd + " cols " + colStart + ":" + colEnd;
    }
}
