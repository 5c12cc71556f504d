package org.ntk4j.approx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.NtkOptions;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.kernel.sketch.SketchKind;
import org.ntk4j.model.Network;
import org.ntk4j.testing.TinyMlp;

/** Sketched tangent features as a {@link LowRankKernel}, against the exact traced kernel of a tiny MLP (float64). */
class SketchedFeaturesTest {
    private static NDManager manager;

    @BeforeAll
    static void setUp() {
        manager = NDManager.newBaseManager();
    }

    @AfterAll
    static void tearDown() {
        manager.close();
    }

    private static Network net() {
        return TinyMlp.TANH_16.build(manager, 42);
    }

    private static NDArray inputs(int n, long seed) {
        return TinyMlp.inputs(manager, n, seed);
    }

    @Test
    void theVariantNamesTheProjection() {
        assertEquals(SketchKind.KHATRI_RAO, SketchedFeatures.kind(ApproxSpec.parse("sketch:64")));
        assertEquals(SketchKind.KHATRI_RAO, SketchedFeatures.kind(ApproxSpec.parse("sketch:64:kr")));
        assertEquals(SketchKind.GAUSSIAN, SketchedFeatures.kind(ApproxSpec.parse("sketch:64:gauss")));
        assertThrows(UserException.class, () -> ApproxSpec.parse("sketch:64:srht"));
    }

    /**
     * Train and test features come from the same projection, so G Fᵀ estimates the cross kernel K(X*, X) (a test
     * projected apart from the train would give a kernel near zero). The relative Frobenius error's mean square
     * was measured at ≈ 6/k for this kind of net (TangentSketchTest, Khatri–Rao), so ≈ 0.04 at k = 4096; 0.12 is
     * three times that, and an unrelated projection gives ≈ 1.
     */
    @Test
    void testFeaturesShareTheTrainProjection() {
        try (Network net = net()) {
            NDArray x = inputs(6, 1);
            NDArray xt = inputs(4, 2);
            int k = 4096;
            SketchedFeatures.Result r =
                    SketchedFeatures.compute(net, NtkOptions.defaults(), x, xt, ApproxSpec.parse("sketch:" + k), 3);
            LowRankKernel lr = r.kernel();
            assertEquals(k, lr.rank());
            assertEquals(6, lr.trainRows());
            assertEquals(4, lr.testRows());
            double[] exact = Ntk.of(net)
                    .mode(Mode.TRACE)
                    .float64()
                    .compute(xt, x)
                    .total()
                    .toDoubleArray();
            float[] f = lr.trainFeatures();
            float[] g = lr.testFeatures();
            double err = 0;
            double norm = 0;
            for (int i = 0; i < 4; i++) {
                for (int j = 0; j < 6; j++) {
                    double s = 0;
                    for (int c = 0; c < k; c++) {
                        s += (double) g[i * k + c] * f[j * k + c];
                    }
                    double e = exact[i * 6 + j];
                    err += (s - e) * (s - e);
                    norm += e * e;
                }
            }
            double rel = Math.sqrt(err / norm);
            assertTrue(rel < 0.12, "relative Frobenius error of the cross kernel " + rel);
        }
    }
}
