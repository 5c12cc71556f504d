package org.ntk4j.theory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.ntk4j.spec.Parameterization;

/**
 * Lou, Mingard &amp; Hayou, Equilibrium Hypothesis, App. A recursions: closed forms vs Monte Carlo (Gaussian and
 * finite-width networks), plus reference values computed independently from the paper's recursions (numpy / 40-digit
 * mpmath).
 */
class EquilibriumHypothesisTest {

    @Test
    void gIsTwiceTheReluGaussianExpectation() {
        // g(c) = 2E[φ(u)φ(v)], g'(c) = 2E[φ'(u)φ'(v)] for unit-variance (u,v) with correlation c; 200k samples,
        // tolerance 5 standard errors.
        long seed = 40;
        for (double c : new double[] {-0.9, -0.3, 0.2, 0.8}) {
            double[] mc =
                    ActivationTest.monteCarlo(1, c, 1, (u, v) -> 2 * Math.max(u, 0) * Math.max(v, 0), 200_000, seed++);
            assertEquals(mc[0], EquilibriumHypothesis.g(c), 5 * mc[1]);
            double[] md = ActivationTest.monteCarlo(1, c, 1, (u, v) -> (u > 0 && v > 0) ? 2 : 0, 200_000, seed++);
            assertEquals(md[0], EquilibriumHypothesis.gPrime(c), 5 * md[1]);
        }
    }

    @Test
    void stableFormAgreesWithNaiveFormWhereBothAreAccurate() {
        for (double e : new double[] {1e-3, 0.01, 0.1, 0.5, 1, 1.5, 2}) {
            assertEquals(1 - EquilibriumHypothesis.g(1 - e), EquilibriumHypothesis.oneMinusG(e), 1e-12);
            assertEquals(1 - EquilibriumHypothesis.gPrime(1 - e), EquilibriumHypothesis.oneMinusGPrime(e), 1e-12);
        }
    }

    @Test
    void correlationRecursionMatchesNoteValues() {
        // independent reference values of the App. A eq. 3 recursion, printed to 6 decimals
        double[] c = EquilibriumHypothesis.correlations(-1, 20);
        assertEquals(0.0, c[2], 1e-15);
        assertEquals(1 / Math.PI, c[3], 1e-12);
        assertEquals(0.493731, c[4], 5e-7);
        assertEquals(0.604826, c[5], 5e-7);
        assertEquals(0.834416, c[10], 5e-7);
        assertEquals(0.940077, c[20], 5e-7);
        // Thm 3: |I_f^l − 1/2| = (1 − c_l)/2 → 0
        assertEquals(
                0.5 - EquilibriumHypothesis.forwardDeficit(20),
                EquilibriumHypothesis.forwardInformation(-1, 20),
                1e-15);
        assertEquals(
                EquilibriumHypothesis.zeta(0, 30) / EquilibriumHypothesis.zeta(0, 10),
                EquilibriumHypothesis.backwardInformation(0, 10, 30),
                1e-12);
    }

    @Test
    void forwardRateTheorem3() {
        // l²(1 − c_l) from c_1 = −1: reference table (40-digit mpmath), printed to 2 decimals
        // (Thm 3); the limit 9π²/2 is approached from below.
        double[] e = EquilibriumHypothesis.deficits(-1, 10_000);
        assertEquals(16.56, 100 * e[10], 0.005);
        assertEquals(37.11, 1e4 * e[100], 0.005);
        assertEquals(43.30, 1e6 * e[1000], 0.005);
        assertEquals(44.27, 1e8 * e[10_000], 0.005);
        assertTrue(1e8 * e[10_000] < 9 * Math.PI * Math.PI / 2);
    }

    @Test
    void backwardRateTheorem4() {
        // Thm 4 (reference values computed independently): l(1 − g'(c_l)) → 3 and ζ_m m³ converge, c_1 = 0
        double[] e = EquilibriumHypothesis.deficits(0, 10_000);
        assertEquals(1.737, 10 * EquilibriumHypothesis.oneMinusGPrime(e[10]), 5e-4);
        assertEquals(2.718, 100 * EquilibriumHypothesis.oneMinusGPrime(e[100]), 5e-4);
        assertEquals(2.9948, 1e4 * EquilibriumHypothesis.oneMinusGPrime(e[10_000]), 5e-5);
        assertEquals(40.7, 1e3 * EquilibriumHypothesis.zeta(0, 10), 0.05);
        assertEquals(148.1, 1e6 * EquilibriumHypothesis.zeta(0, 100), 0.05);
        assertEquals(189.0, 1e9 * EquilibriumHypothesis.zeta(0, 1000), 0.05);
        // case 1: ζ_L/ζ_{αL} → α³ with error shrinking in L
        double prev = Double.MAX_VALUE;
        double[] expect = {0.2263, 0.1542, 0.1292, 0.12555};
        int[] depths = {20, 100, 1000, 10_000};
        for (int i = 0; i < depths.length; i++) {
            int l = depths[i];
            double ratio = EquilibriumHypothesis.backwardProduct(0, l / 2, l);
            assertEquals(expect[i], ratio, 5e-5 + (i == 3 ? 5e-6 : 0));
            double err = Math.abs(ratio - 0.125);
            assertTrue(err < prev);
            prev = err;
        }
    }

    @Test
    void equilibriumLayerAndThreeFifthsSlope() {
        // Cor. 5, our operationalisation: ε = 0.1, C = 1 gives these layers for L = 10..100; the slope tends to 3/5
        int[] expected = {3, 5, 7, 9, 11, 13, 14, 16, 18, 19};
        int[] got = new int[10];
        for (int i = 0; i < 10; i++) {
            got[i] = EquilibriumHypothesis.equilibriumLayer(10 * (i + 1), 0.1, 1.0);
        }
        assertArrayEquals(expected, got);
        double slope = EquilibriumHypothesis.equilibriumSlope(new int[] {1000, 2000, 5000, 10_000, 20_000}, 0.1, 1.0);
        assertEquals(0.6, slope, 0.07, "slope " + slope);
    }

    @Test
    void forwardAndBackwardKernelsOfFiniteNetworksMatchRecursion() {
        // App. A.1/A.3 at finite width: He init (σ_w² = 2, no bias), ‖x‖² = d, scalar output. For l ≤ L−1:
        // corr(z_l(x), z_l(x')) → c_l and E[∂f/∂z_l(x)·∂f/∂z_l(x')] = Π_{k=l}^{L−1} g'(c_k).
        // Tolerance: 4 standard errors over the seeds + 3/N for the O(1/N) finite-width bias.
        int d = 64;
        int n = 512;
        int depth = 6;
        int seeds = 12;
        SplittableRandom r = new SplittableRandom(9);
        double[] x = new double[d];
        double[] y = new double[d];
        double c1 = 0.3;
        for (int i = 0; i < d; i++) {
            double a = r.nextGaussian();
            double b = r.nextGaussian();
            x[i] = a;
            y[i] = b;
        }
        // make ‖x‖² = ‖y‖² = d and x·y = c1 d exactly
        double nx = Math.sqrt(MlpKernel.dot(x, x));
        for (int i = 0; i < d; i++) {
            x[i] /= nx;
        }
        double p = MlpKernel.dot(x, y);
        for (int i = 0; i < d; i++) {
            y[i] -= p * x[i];
        }
        double ny = Math.sqrt(MlpKernel.dot(y, y));
        for (int i = 0; i < d; i++) {
            y[i] = Math.sqrt(d) * (c1 * x[i] + Math.sqrt(1 - c1 * c1) * y[i] / ny);
            x[i] *= Math.sqrt(d);
        }
        int[] widths = new int[depth + 1];
        widths[0] = d;
        for (int l = 1; l < depth; l++) {
            widths[l] = n;
        }
        widths[depth] = 1;
        double[] c = EquilibriumHypothesis.correlations(c1, depth);
        double[][] corr = new double[depth][seeds];
        double[][] back = new double[depth][seeds];
        for (int s = 0; s < seeds; s++) {
            MonteCarloNtk net = new MonteCarloNtk(
                    widths, Activation.RELU, Parameterization.STANDARD, Math.sqrt(2), 0, false, 500 + s);
            MonteCarloNtk.Pass px = net.pass(x);
            MonteCarloNtk.Pass py = net.pass(y);
            for (int l = 1; l < depth; l++) {
                double[] hx = px.preActivations[l - 1];
                double[] hy = py.preActivations[l - 1];
                corr[l][s] = MlpKernel.dot(hx, hy) / Math.sqrt(MlpKernel.dot(hx, hx) * MlpKernel.dot(hy, hy));
                back[l][s] = MlpKernel.dot(px.deltas[l - 1], py.deltas[l - 1]);
            }
        }
        for (int l = 1; l < depth; l++) {
            double[] mc = meanSe(corr[l]);
            assertEquals(c[l], mc[0], 4 * mc[1] + 3.0 / n, "corr layer " + l);
            double[] mb = meanSe(back[l]);
            double theory = EquilibriumHypothesis.backwardProduct(c1, l, depth);
            assertEquals(theory, mb[0], 4 * mb[1] + 3.0 / n, "backward layer " + l);
        }
    }

    static double[] meanSe(double[] v) {
        double m = 0;
        for (double a : v) {
            m += a;
        }
        m /= v.length;
        double s = 0;
        for (double a : v) {
            s += (a - m) * (a - m);
        }
        return new double[] {m, Math.sqrt(s / (v.length - 1) / v.length)};
    }
}
