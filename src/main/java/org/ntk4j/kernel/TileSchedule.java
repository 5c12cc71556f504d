package org.ntk4j.kernel;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Which tile pairs of a kernel block are computed, in what order, and where each lands. The block is rows {@code
 * [rowStart, rowStart + R)} × columns {@code [colStart, colStart + C)} of the N1 × N2 kernel Θ(X1, X2), on the grid
 * of tiles of {@code tile} samples from index 0. Row tiles are visited in order and, within a row tile, column tiles
 * in order. In a symmetric kernel (X2 = X1) a pair (i, j) with i &lt; j is computed once and placed directly and,
 * when its mirror image (j, i) lies in the block, mirrored there; a pair below the diagonal whose mirror is in the
 * block is skipped (the mirror writes it), and one whose mirror is outside the block is computed from the mirror
 * pair's factors, contract(f_j, f_i), and placed transposed: the same values the whole kernel mirrors there, so a
 * block equals the same block of the whole kernel bit for bit.
 */
public final class TileSchedule {
    /**
     * One tile pair: row tile {@code row} (samples {@code [r0, r1)}) against column tile {@code col} (samples {@code
     * [c0, c1)}). The block computed is contract(left, right) with left = the row tile's factors and right = the
     * column tile's, or, when {@code below}, the other way round (then only its transpose is placed).
     *
     * @param row row tile index
     * @param col column tile index
     * @param r0 first sample of the row tile
     * @param r1 end of the row tile
     * @param c0 first sample of the column tile
     * @param c1 end of the column tile
     * @param below whether the pair is computed as the transpose of (col, row)
     * @param at where the computed block lands, in the block's coordinates
     */
    public record Pair(int row, int col, int r0, int r1, int c0, int c1, boolean below, Placement at) {}

    /**
     * The block of a kernel a schedule covers: rows {@code [rowStart, rowStart + rows)} × columns {@code [colStart,
     * colStart + cols)} of the {@code n1} × {@code n2} kernel, symmetric when X2 = X1.
     *
     * @param rowStart first row of the block
     * @param rows R, rows of the block
     * @param colStart first column of the block
     * @param cols C, columns of the block
     * @param n1 rows of the kernel
     * @param n2 columns of the kernel
     * @param symmetric whether the kernel is Θ(X1, X1)
     */
    public record Block(int rowStart, int rows, int colStart, int cols, int n1, int n2, boolean symmetric) {}

    private final List<List<Pair>> rows;
    private final int firstRow;
    private final int tile;
    private final long pairs;

    private TileSchedule(List<List<Pair>> rows, int firstRow, int tile) {
        this.rows = rows;
        this.firstRow = firstRow;
        this.tile = tile;
        this.pairs = rows.stream().mapToLong(List::size).sum();
    }

    /** The schedule of the block {@code b} on the grid of tiles of {@code tile} samples (see the class comment). */
    public static TileSchedule of(Block b, int tile) {
        int rowStart = b.rowStart();
        int colStart = b.colStart();
        int n1 = b.n1();
        int n2 = b.n2();
        boolean symmetric = b.symmetric();
        int rowCount = b.rows();
        int colCount = b.cols();
        int i0 = rowStart / tile;
        int i1 = (rowStart + rowCount + tile - 1) / tile;
        int j0 = colStart / tile;
        int j1 = (colStart + colCount + tile - 1) / tile;
        List<List<Pair>> rows = new ArrayList<>();
        for (int i = i0; i < i1; i++) {
            List<Pair> row = new ArrayList<>();
            int r0 = i * tile;
            int r1 = Math.min(n1, r0 + tile);
            for (int j = j0; j < j1; j++) {
                boolean below = symmetric && i > j;
                // in a symmetric kernel: is the mirror image (j, i) of this pair inside the block?
                boolean mirrorInBlock = symmetric && j >= i0 && j < i1 && i >= j0 && i < j1;
                if (below && mirrorInBlock) {
                    continue; // written as the mirror image of pair (j, i)
                }
                int c0 = j * tile;
                int c1 = Math.min(n2, c0 + tile);
                Placement at = below
                        ? new Placement(c1 - c0, r1 - r0, false, 0, 0, true, r0 - rowStart, c0 - colStart)
                        : new Placement(
                                r1 - r0,
                                c1 - c0,
                                true,
                                r0 - rowStart,
                                c0 - colStart,
                                symmetric && j != i && mirrorInBlock,
                                c0 - rowStart,
                                r0 - colStart);
                row.add(new Pair(i, j, r0, r1, c0, c1, below, at));
            }
            rows.add(Collections.unmodifiableList(row));
        }
        return new TileSchedule(Collections.unmodifiableList(rows), i0, tile);
    }

    /** Row tiles of the block, in the order they are visited. */
    public int rowTiles() {
        return rows.size();
    }

    /** Index (on the kernel's grid) of the {@code k}-th row tile of the block. */
    public int rowTile(int k) {
        return firstRow + k;
    }

    /** The pairs of the {@code k}-th row tile, in the order they are computed. */
    public List<Pair> row(int k) {
        return rows.get(k);
    }

    /** Samples per tile. */
    public int tile() {
        return tile;
    }

    /** Tile pairs computed. */
    public long pairs() {
        return pairs;
    }
}
