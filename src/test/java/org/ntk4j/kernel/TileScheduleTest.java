package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.aggregator.ArgumentsAccessor;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The schedule places every entry of a block exactly once: directly or as a mirror image, in a symmetric kernel the
 * mirror of a pair above the diagonal and the transpose of a pair below it whose mirror is outside the block.
 */
class TileScheduleTest {
    @ParameterizedTest
    @CsvSource({
        // rowStart, rows, colStart, cols, n1, n2, symmetric, tile
        "0, 10, 0, 10, 10, 10, true, 3",
        "0, 10, 0, 10, 10, 10, true, 10",
        "0, 10, 0, 10, 10, 10, true, 1",
        "0, 7, 0, 10, 7, 10, false, 3",
        "3, 6, 0, 10, 10, 10, true, 3",
        "6, 4, 0, 6, 10, 10, true, 3",
        "0, 3, 6, 4, 10, 10, true, 3",
        "3, 3, 3, 3, 10, 10, true, 3",
        "9, 1, 0, 10, 10, 10, true, 3"
    })
    void everyEntryOfTheBlockIsWrittenOnce(ArgumentsAccessor args) {
        int rowStart = args.getInteger(0);
        int rows = args.getInteger(1);
        int colStart = args.getInteger(2);
        int cols = args.getInteger(3);
        int n1 = args.getInteger(4);
        int n2 = args.getInteger(5);
        boolean symmetric = args.getBoolean(6);
        int tile = args.getInteger(7);
        TileSchedule s =
                TileSchedule.of(new TileSchedule.Block(rowStart, rows, colStart, cols, n1, n2, symmetric), tile);
        int[][] writes = new int[rows][cols];
        long pairs = 0;
        for (int k = 0; k < s.rowTiles(); k++) {
            for (TileSchedule.Pair p : s.row(k)) {
                pairs++;
                Placement at = p.at();
                assertEquals(p.below() ? p.c1() - p.c0() : p.r1() - p.r0(), at.rows(), p.toString());
                assertEquals(p.below() ? p.r1() - p.r0() : p.c1() - p.c0(), at.cols(), p.toString());
                assertEquals(!p.below(), at.direct(), p.toString());
                if (at.direct()) {
                    mark(writes, at.row(), at.col(), at.rows(), at.cols());
                    // the direct block is the pair's own samples
                    assertEquals(p.r0() - rowStart, at.row());
                    assertEquals(p.c0() - colStart, at.col());
                }
                if (at.mirror()) {
                    mark(writes, at.mirrorRow(), at.mirrorCol(), at.cols(), at.rows());
                }
            }
        }
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                assertEquals(1, writes[i][j], "entry (" + (rowStart + i) + ", " + (colStart + j) + ") writes");
            }
        }
        assertEquals(pairs, s.pairs());
    }

    private static void mark(int[][] w, int r, int c, int rows, int cols) {
        for (int i = r; i < r + rows; i++) {
            for (int j = c; j < c + cols; j++) {
                assertTrue(i >= 0 && i < w.length && j >= 0 && j < w[0].length, "(" + i + ", " + j + ") outside");
                w[i][j]++;
            }
        }
    }
}
