package org.ntk4j.kernel.sketch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each projection against its own dense form P (float64): the structured application to general rows, and to
 * rank-one rows without forming them, equal vec(M_i)ᵀ P. The same sums in another order, so they agree to ~1e-15
 * relative; 1e-12 leaves room for the ordering while any wrong index or scale is an O(1) error. Blocks of 60
 * entries cut every matrix into several, so block boundaries (inside a row of M for the Gaussian) are crossed.
 */
class ProjectionTest {
    private static NDManager manager;

    @BeforeAll
    static void setUp() {
        manager = NDManager.newBaseManager();
    }

    @AfterAll
    static void tearDown() {
        manager.close();
    }

    static NDArray gaussian(Random r, Shape s) {
        double[] v = new double[(int) s.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = r.nextGaussian();
        }
        return manager.create(v, s).duplicate();
    }

    static void assertClose(NDArray want, NDArray got, String what) {
        double[] w = want.toDoubleArray();
        double[] g = got.toDoubleArray();
        assertEquals(w.length, g.length, what);
        double scale = 0;
        double diff = 0;
        for (int i = 0; i < w.length; i++) {
            scale = Math.max(scale, Math.abs(w[i]));
            diff = Math.max(diff, Math.abs(w[i] - g[i]));
        }
        assertTrue(scale > 0.1, what + ": trivial");
        assertTrue(
                diff <= 1e-12 * scale,
                java.util.Arrays.toString(w) + "\n" + java.util.Arrays.toString(g) + what + ": max difference " + diff
                        + " of " + scale);
    }

    @ParameterizedTest
    @EnumSource(SketchKind.class)
    void structuredApplicationsMatchTheDenseForm(SketchKind kind) {
        int n = 4;
        int rows = 6;
        int cols = 5;
        int k = 7;
        Random r = new Random(11);
        LayerProjection p =
                LayerProjection.of(kind, k, new Streams(3, 60), 2, new Shape(rows, cols), manager, DataType.FLOAT64);
        NDArray dense = p.matrix(manager);
        assertArrayEquals(new long[] {rows * cols, k}, dense.getShape().getShape());
        NDArray m = gaussian(r, new Shape(n, rows, cols));
        assertClose(m.reshape(n, rows * cols).matMul(dense), p.project(m), kind + " general rows");
        NDArray d = gaussian(r, new Shape(n, rows));
        NDArray a = gaussian(r, new Shape(n, cols));
        NDArray outer = d.expandDims(2).mul(a.expandDims(1));
        assertClose(outer.reshape(n, rows * cols).matMul(dense), p.projectRankOne(d, a), kind + " rank-one rows");
    }

    @ParameterizedTest
    @EnumSource(SketchKind.class)
    void blocksAreDrawnTheSameWhateverTheirCut(SketchKind kind) {
        // the dense form drawn whole and drawn again in a fresh projection: bit for bit
        LayerProjection p1 = LayerProjection.of(kind, 9, new Streams(5), 0, new Shape(8, 3), manager, DataType.FLOAT64);
        LayerProjection p2 = LayerProjection.of(kind, 9, new Streams(5), 0, new Shape(8, 3), manager, DataType.FLOAT64);
        assertArrayEquals(p1.matrix(manager).toDoubleArray(), p2.matrix(manager).toDoubleArray());
        LayerProjection other =
                LayerProjection.of(kind, 9, new Streams(5), 1, new Shape(8, 3), manager, DataType.FLOAT64);
        assertTrue(
                !java.util.Arrays.equals(
                        p1.matrix(manager).toDoubleArray(),
                        other.matrix(manager).toDoubleArray()),
                "another layer draws another block");
    }

    @ParameterizedTest
    @EnumSource(SketchKind.class)
    void theProjectionIsIsotropicInExpectation(SketchKind kind) {
        // E[P Pᵀ] = I: P Pᵀ is the mean over k independent columns of k p pᵀ. A diagonal entry's terms have
        // variance 2 (g², Gaussian) or 8 (u²v², Khatri–Rao: E[u⁴v⁴] = 9), an off-diagonal one's at most 1, so with
        // k = 20000 every entry's standard deviation is at most √(8/k) = 0.02 and 0.12 is six of them.
        int k = 20000;
        LayerProjection p = LayerProjection.of(kind, k, new Streams(17), 0, new Shape(3, 4), manager, DataType.FLOAT64);
        NDArray pp = p.matrix(manager);
        double[] g = pp.matMul(pp.transpose()).toDoubleArray();
        for (int i = 0; i < 12; i++) {
            for (int j = 0; j < 12; j++) {
                double want = i == j ? 1 : 0;
                assertEquals(want, g[i * 12 + j], 0.12, kind + " (P Pᵀ)[" + i + "," + j + "]");
            }
        }
    }
}
