package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.kernel.sketch.SketchKind;
import org.ntk4j.model.Network;

/**
 * Sketched tangent features against the exact traced kernel, in float64 on the MLP of {@link NtkCorrectnessTest}
 * (input 6, widths 7 and 5, 3 outputs, NTK parameterisation, biases).
 */
class TangentSketchTest {
    private static NDManager manager;

    @BeforeAll
    static void setUp() {
        NtkCorrectnessTest.setUp();
        manager = NtkCorrectnessTest.manager;
    }

    @AfterAll
    static void tearDown() {
        NtkCorrectnessTest.tearDown();
    }

    private static double[] exact(Network net, NDArray x) {
        return Ntk.of(net).mode(Mode.TRACE).float64().compute(x).total().toDoubleArray();
    }

    private static double[] gram(NDArray s) {
        return s.matMul(s.transpose()).toDoubleArray();
    }

    /** S Sᵀ of the sketch with {@code k} columns for each of the seeds {@code seed0 .. seed0 + seeds − 1}. */
    private static double[][] sketchGrams(Network net, NDArray x, int k, SketchKind kind, long seed0, int seeds) {
        double[][] grams = new double[seeds][];
        for (int s = 0; s < seeds; s++) {
            try (NDManager m = manager.newSubManager()) {
                NDArray xs = x.duplicate();
                xs.attach(m);
                grams[s] = gram(TangentSketch.of(net).features(xs, k, kind, seed0 + s));
            }
        }
        return grams;
    }

    /**
     * The rank-one path (dense layers' inputs and output gradients, no per-sample gradient formed) against the
     * per-sample Jacobian path with the same projection: the same sums in another order in float64, so ~1e-15
     * relative; 1e-10 as in {@link NtkCorrectnessTest}, while a wrong layout of the rows or a lost scale is O(1).
     */
    @ParameterizedTest
    @EnumSource(SketchKind.class)
    void rankOnePathEqualsTheJacobianPath(SketchKind kind) {
        for (boolean bias : new boolean[] {true, false}) {
            try (Network net = NtkCorrectnessTest.net("tanh", "ntk", bias, 0.5)) {
                NDArray x = NtkCorrectnessTest.inputs(5, 3);
                assertTrue(TangentSketch.of(net).plan(5).jacobian().isEmpty());
                NDArray fast = TangentSketch.of(net).tile(2).features(x, 16, kind, 7);
                NDArray general = TangentSketch.of(net).method(Method.JACOBIAN).features(x, 16, kind, 7);
                double[] f = fast.toDoubleArray();
                double[] g = general.toDoubleArray();
                double scale = Arrays.stream(g).map(Math::abs).max().orElse(0);
                double diff = 0;
                for (int i = 0; i < f.length; i++) {
                    diff = Math.max(diff, Math.abs(f[i] - g[i]));
                }
                assertTrue(scale > 0.1, "trivial features");
                assertTrue(diff <= 1e-10 * scale, kind + " bias " + bias + ": " + diff + " of " + scale);
            }
        }
    }

    /**
     * E[S Sᵀ] = K by Monte Carlo over M = 300 seeds, k = 8. Each seed's S Sᵀ is an independent unbiased estimate of
     * K; the mean of M of them differs from K by at most 5 of its standard errors (sd/√M, sd the sample standard
     * deviation over the seeds) per entry: a false failure has probability ~6e-7 per entry under the central limit
     * theorem, and the seeds are fixed, so the test is deterministic. The standard error is 3-4% of K here (measured): a missing
     * 1/√k (a factor 8), a dropped bias or weight scale, or a layer left out are each many times that.
     */
    @ParameterizedTest
    @EnumSource(SketchKind.class)
    void sketchIsUnbiased(SketchKind kind) {
        try (Network net = NtkCorrectnessTest.net("relu", "ntk", true, 0.5)) {
            int n = 4;
            NDArray x = NtkCorrectnessTest.inputs(n, 5);
            double[] k = exact(net, x);
            int seeds = 300;
            double[] mean = new double[n * n];
            double[] sq = new double[n * n];
            for (double[] e : sketchGrams(net, x, 8, kind, 0, seeds)) {
                for (int i = 0; i < e.length; i++) {
                    mean[i] += e[i] / seeds;
                    sq[i] += e[i] * e[i] / seeds;
                }
            }
            for (int i = 0; i < n * n; i++) {
                double sd = Math.sqrt(Math.max(0, sq[i] - mean[i] * mean[i]) * seeds / (seeds - 1));
                double se = sd / Math.sqrt(seeds);
                assertTrue(
                        Math.abs(mean[i] - k[i]) <= 5 * se,
                        kind + " entry " + i + ": mean " + mean[i] + ", exact " + k[i] + ", standard error " + se);
                double typical = Math.sqrt(k[i / n * (n + 1)] * k[i % n * (n + 1)]); // √(K_rr K_cc)
                assertTrue(se < 0.1 * typical, "the test resolves the entry: se " + se + " of " + typical);
            }
        }
    }

    @Test
    void seededRerunsAreBitIdentical() {
        try (Network net = NtkCorrectnessTest.net("relu", "standard", true, 0.5)) {
            NDArray x = NtkCorrectnessTest.inputs(6, 9);
            for (SketchKind kind : SketchKind.values()) {
                double[] a = TangentSketch.of(net).features(x, 32, kind, 123).toDoubleArray();
                double[] b = TangentSketch.of(net).features(x, 32, kind, 123).toDoubleArray();
                double[] c = TangentSketch.of(net).features(x, 32, kind, 124).toDoubleArray();
                assertArrayEquals(a, b, kind + ": rerun with the same seed");
                assertFalse(Arrays.equals(a, c), kind + ": another seed");
            }
        }
    }

    /**
     * The relative Frobenius error ‖S Sᵀ − K‖_F / ‖K‖_F falls like 1/√k: its mean square over 40 seeds at k = 16
     * and k = 256 gives the exponent log(mse₁₆/mse₂₅₆)/log 16, 1 for an unbiased sketch whose entries' variances
     * are c/k (exactly so for the Gaussian, (K_ii K_jj + K_ij²)/k; for the Khatri–Rao the columns are
     * independent too). Each mean square is a mean of 40 draws with a relative spread of ~20% (measured over the
     * seeds), so the exponent is 1 ± ~0.15 (measured 0.97 Gaussian, 1.13 Khatri–Rao); [0.7, 1.3] fails a sketch whose error stalls (exponent ~0, a bias)
     * or falls like k^{-1/4} (exponent 0.5, a plain Kronecker product of two projections).
     */
    @ParameterizedTest
    @EnumSource(SketchKind.class)
    void errorFallsLikeOneOverRootK(SketchKind kind) {
        try (Network net = NtkCorrectnessTest.net("tanh", "ntk", true, 0.5)) {
            int n = 8;
            NDArray x = NtkCorrectnessTest.inputs(n, 13);
            double[] k = exact(net, x);
            double norm = 0;
            for (double v : k) {
                norm += v * v;
            }
            int[] dims = {16, 256};
            double[] mse = new double[2];
            int seeds = 40;
            for (int d = 0; d < 2; d++) {
                for (double[] e : sketchGrams(net, x, dims[d], kind, 1000L * d, seeds)) {
                    double err = 0;
                    for (int i = 0; i < e.length; i++) {
                        err += (e[i] - k[i]) * (e[i] - k[i]);
                    }
                    mse[d] += err / norm / seeds;
                }
            }
            double exponent = Math.log(mse[0] / mse[1]) / Math.log(16);
            assertTrue(
                    exponent > 0.7 && exponent < 1.3,
                    kind + ": mean squared relative error " + Arrays.toString(mse) + ", exponent " + exponent);
        }
    }
}
