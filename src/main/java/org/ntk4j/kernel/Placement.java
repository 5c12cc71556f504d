package org.ntk4j.kernel;

/**
 * Where one computed tile-pair block B (rows × cols[, O[, O]], in the engine) lands in an output kernel, in the
 * output's own coordinates: directly, B at rows {@code [row, row + rows)} × columns {@code [col, col + cols)};
 * mirrored, Bᵀ (the sample axes swapped and, in a FULL kernel, the output axes too: Θ[j,i,p,o] = Θ[i,j,o,p]) at rows
 * {@code [mirrorRow, mirrorRow + cols)} × columns {@code [mirrorCol, mirrorCol + rows)}. A block may go to either
 * place or to both (a tile pair above the diagonal of a symmetric kernel).
 *
 * @param rows rows of the computed block
 * @param cols columns of the computed block
 * @param direct whether B goes to (row, col)
 * @param row first output row of the direct placement
 * @param col first output column of the direct placement
 * @param mirror whether Bᵀ goes to (mirrorRow, mirrorCol)
 * @param mirrorRow first output row of the mirrored placement
 * @param mirrorCol first output column of the mirrored placement
 */
public record Placement(
        int rows, int cols, boolean direct, int row, int col, boolean mirror, int mirrorRow, int mirrorCol) {
    public Placement {
        if (!direct && !mirror) {
            throw new IllegalArgumentException("a block must be placed somewhere");
        }
    }

    /** Output entries (i, j) this placement writes: rows·cols per placement made. */
    public long pairsWritten() {
        return (long) rows * cols * ((direct ? 1 : 0) + (mirror ? 1 : 0));
    }
}
