package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;

/**
 * A block of a kernel computed from its rows' and columns' inputs alone ({@link Ntk#computeBlock}) equals the same
 * block of the whole kernel ({@link Ntk#compute}) bit for bit, on the same tile grid: every block of a 3×3 grid of
 * blocks over N = 30 (tiles of 8, blocks of 16: the last tile and block short), on, above and below the diagonal
 * of Θ(X1, X1), and of Θ(X2, X1) with M = 14; total and per-layer kernels; an MLP (with its dense factor kernels)
 * and a small conv net; float64 and float32.
 */
class NtkBlockTest {
    static NDManager manager;

    @BeforeAll
    static void setUp() {
        manager = NDManager.newBaseManager();
    }

    @AfterAll
    static void tearDown() {
        manager.close();
    }

    static final String MLP =
            "{\"arch\":\"mlp\",\"input\":[1,4,4],\"widths\":[12,12],\"outputs\":3,\"activation\":\"relu\"}";
    static final String CNN = "{\"arch\":\"cnn\",\"input\":[1,6,6],\"channels\":[2,3],\"pool\":\"avg\",\"head\":[4],"
            + "\"outputs\":3,\"activation\":\"tanh\"}";

    @ParameterizedTest
    @CsvSource({
        "mlp, TRACE, FLOAT64",
        "mlp, FULL, FLOAT64",
        "mlp, DIAGONAL, FLOAT32",
        "cnn, TRACE, FLOAT64",
        "cnn, FULL, FLOAT64",
        "cnn, DIAGONAL, FLOAT64"
    })
    void blocksEqualTheWholeKernelBitForBit(String model, Mode mode, DataType dt) {
        ModelSpec spec = ModelSpec.parse(model.equals("mlp") ? MLP : CNN, model);
        int n = 30;
        int m = 14;
        int tile = 8;
        int block = 16;
        try (NDManager mm = manager.newSubManager();
                Network net = Network.build(spec, 3, mm, dt)) {
            NDArray x1 = inputs(mm, net, n, 1, dt);
            NDArray x2 = inputs(mm, net, m, 2, dt);
            Ntk ntk = Ntk.of(net).mode(mode).perLayer().tile(tile);
            if (model.equals("mlp")) {
                ntk.factorKernels();
            }
            if (dt == DataType.FLOAT64) {
                ntk.float64();
            }
            KernelResult whole = ntk.compute(x1);
            KernelResult wholeTest = ntk.compute(x2, x1);
            assertEquals(model.equals("mlp") ? 3 : 4, whole.layers().size());
            int checked = 0;
            for (int r0 = 0; r0 < n; r0 += block) {
                for (int c0 = 0; c0 < n; c0 += block) {
                    int r1 = Math.min(n, r0 + block);
                    int c1 = Math.min(n, c0 + block);
                    KernelResult b = ntk.computeBlock(rows(x1, r0, r1), rows(x1, c0, c1), r0, c0, n, n, true);
                    checked += same(
                            whole, b, r0, c0, model + " " + mode + " block " + r0 + ":" + r1 + "×" + c0 + ":" + c1);
                }
            }
            for (int r0 = 0; r0 < m; r0 += block) {
                for (int c0 = 0; c0 < n; c0 += block) {
                    int r1 = Math.min(m, r0 + block);
                    int c1 = Math.min(n, c0 + block);
                    KernelResult b = ntk.computeBlock(rows(x2, r0, r1), rows(x1, c0, c1), r0, c0, m, n, false);
                    checked += same(wholeTest, b, r0, c0, model + " " + mode + " test block " + r0 + "×" + c0);
                }
            }
            long inner = whole.total().inner();
            long perArray = (n * n + m * n) * inner;
            assertTrue(checked >= perArray, "entries compared " + checked);
            // a block off the tile grid is refused
            assertThrows(
                    IllegalArgumentException.class,
                    () -> ntk.computeBlock(rows(x1, 4, 16), rows(x1, 0, 16), 4, 0, n, n, true));
            assertThrows(
                    IllegalArgumentException.class,
                    () -> ntk.computeBlock(rows(x1, 0, 12), rows(x1, 0, 16), 0, 0, n, n, true));
        }
    }

    /** Compares every array of block {@code b} with the same block of {@code whole}, bit for bit; entries compared. */
    static int same(KernelResult whole, KernelResult b, int r0, int c0, String what) {
        int count = compare(whole.total(), b.total(), r0, c0, what + " total");
        assertEquals(whole.layers().keySet(), b.layers().keySet());
        for (Map.Entry<String, KernelMatrix> e : whole.layers().entrySet()) {
            compare(e.getValue(), b.layers().get(e.getKey()), r0, c0, what + " " + e.getKey());
        }
        assertEquals(whole.factorKernels().keySet(), b.factorKernels().keySet());
        for (Map.Entry<String, KernelMatrix> e : whole.factorKernels().entrySet()) {
            compare(e.getValue(), b.factorKernels().get(e.getKey()), r0, c0, what + " " + e.getKey());
        }
        return count;
    }

    static int compare(KernelMatrix whole, KernelMatrix block, int r0, int c0, String what) {
        boolean nonZero = false;
        int count = 0;
        for (int i = 0; i < block.rows(); i++) {
            for (int j = 0; j < block.cols(); j++) {
                for (int k = 0; k < block.inner(); k++) {
                    double a = block.get(i, j, k);
                    double w = whole.get(r0 + i, c0 + j, k);
                    if (Double.doubleToRawLongBits(a) != Double.doubleToRawLongBits(w)) {
                        throw new AssertionError(what + ": entry (" + (r0 + i) + ", " + (c0 + j) + ", " + k + ") " + a
                                + " in the block, " + w + " in the whole kernel");
                    }
                    nonZero |= a != 0;
                    count++;
                }
            }
        }
        assertTrue(nonZero, what + " is all zeros");
        return count;
    }

    static NDArray rows(NDArray x, int a, int b) {
        return x.get(new NDIndex("{}:{}", a, b));
    }

    static NDArray inputs(NDManager m, Network net, int n, long seed, DataType dt) {
        Random r = new Random(seed);
        int d = (int) net.inputShape().size();
        float[] v = new float[n * d];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) r.nextGaussian();
        }
        long[] s = new long[net.inputShape().dimension() + 1];
        s[0] = n;
        System.arraycopy(net.inputShape().getShape(), 0, s, 1, s.length - 1);
        NDArray a = m.create(v, new Shape(s));
        return dt == DataType.FLOAT64 ? a.toType(DataType.FLOAT64, false) : a;
    }
}
