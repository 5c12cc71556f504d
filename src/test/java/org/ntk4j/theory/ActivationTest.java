package org.ntk4j.theory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Gaussian expectations of activations: closed forms vs Monte Carlo and vs Gauss–Hermite quadrature. */
class ActivationTest {

    /** Monte Carlo estimate and its standard error of E[h(u,v)]. */
    static double[] monteCarlo(
            double q11, double q12, double q22, java.util.function.DoubleBinaryOperator h, int n, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        double s1 = Math.sqrt(q11);
        double s2 = Math.sqrt(q22);
        double c = q12 / (s1 * s2);
        double sc = Math.sqrt(1 - c * c);
        double sum = 0;
        double sum2 = 0;
        for (int i = 0; i < n; i++) {
            double z1 = rng.nextGaussian();
            double z2 = rng.nextGaussian();
            double v = h.applyAsDouble(s1 * z1, s2 * (c * z1 + sc * z2));
            sum += v;
            sum2 += v * v;
        }
        double mean = sum / n;
        double var = sum2 / n - mean * mean;
        return new double[] {mean, Math.sqrt(var / n)};
    }

    static final double[][] COVARIANCES = {{1.0, 0.3, 2.0}, {0.5, -0.4, 0.7}, {2.0, 1.9, 2.0}};

    @Test
    void closedFormsMatchMonteCarlo() {
        // Tolerance: 5 Monte Carlo standard errors (n = 200k samples); a correct closed form fails this
        // with probability < 1e-6 per comparison.
        int n = 200_000;
        Activation[] acts = {Activation.RELU, Activation.ERF, Activation.TANH};
        long seed = 1;
        for (Activation a : acts) {
            for (double[] q : COVARIANCES) {
                double[] mc = monteCarlo(q[0], q[1], q[2], (u, v) -> a.apply(u) * a.apply(v), n, seed++);
                assertEquals(mc[0], a.expectedProduct(q[0], q[1], q[2]), 5 * mc[1], a + " V at " + q[1]);
                double[] mcd = monteCarlo(q[0], q[1], q[2], (u, v) -> a.derivative(u) * a.derivative(v), n, seed++);
                assertEquals(
                        mcd[0],
                        a.expectedDerivativeProduct(q[0], q[1], q[2]),
                        5 * mcd[1] + 1e-12,
                        a + " V' at " + q[1]);
            }
        }
    }

    @Test
    void erfClosedFormMatchesGaussHermite() {
        // erf is entire, so Gauss–Hermite converges geometrically: the error of the 96-point rule is far below
        // the difference between the 48- and 96-point rules, which serves as the tolerance (×10, + rounding).
        Activation gh48 = Activation.gaussHermite("erf-gh48", Special::erf, Activation.ERF::derivative, 48);
        Activation gh96 = Activation.gaussHermite("erf-gh96", Special::erf, Activation.ERF::derivative, 96);
        for (double[] q : COVARIANCES) {
            double a = gh96.expectedProduct(q[0], q[1], q[2]);
            double tol = 10 * Math.abs(gh48.expectedProduct(q[0], q[1], q[2]) - a) + 1e-13;
            assertEquals(Activation.ERF.expectedProduct(q[0], q[1], q[2]), a, tol);
            double b = gh96.expectedDerivativeProduct(q[0], q[1], q[2]);
            double tolb = 10 * Math.abs(gh48.expectedDerivativeProduct(q[0], q[1], q[2]) - b) + 1e-13;
            assertEquals(Activation.ERF.expectedDerivativeProduct(q[0], q[1], q[2]), b, tolb);
        }
    }

    @Test
    void errorControlledQuadratureMatchesErfClosedFormEverywhere() {
        // The quadrature used for every φ without closed form (tanh), applied to erf, against Williams' exact
        // formulas: small to large variances (erf' is a Gaussian of width 1/√2, sharply peaked on √q = 10),
        // orthogonal, anti-correlated, near-parallel (ρ = 0.999999) and exactly parallel inputs, unequal norms.
        Activation quad = Activation.numerical("erf-quad", Special::erf, Activation.ERF::derivative);
        double[][] cov = {
            {1e-6, 0, 1e-6},
            {0.3, 0.1, 0.5},
            {1, 0.3, 2},
            {9, 0, 9},
            {12.25, 12.25, 12.25},
            {30, -29, 30},
            {100, 99.9999, 100},
            {100, 100, 100},
            {4, 3.999996, 4},
            {2, 1.2, 50},
            {0, 0, 3}
        };
        for (double[] q : cov) {
            double[] v = quad.expectedProducts(q[0], q[1], q[2]);
            String at = java.util.Arrays.toString(q);
            assertEquals(Activation.ERF.expectedProduct(q[0], q[1], q[2]), v[0], 1e-12, "V at " + at);
            assertEquals(Activation.ERF.expectedDerivativeProduct(q[0], q[1], q[2]), v[1], 1e-12, "V' at " + at);
        }
    }

    @Test
    void reluClosedFormMatchesQuadratureAtKinkRate() {
        // ReLU has a kink, so Gauss–Hermite converges only algebraically; the error must shrink as the order
        // grows (32 → 128 points) and be below 1e-3 at 128 points.
        double[] q = COVARIANCES[0];
        double exact = Activation.RELU.expectedProduct(q[0], q[1], q[2]);
        double e32 = Math.abs(
                new GaussHermite(32).expect2(q[0], q[1], q[2], (u, v) -> Math.max(u, 0) * Math.max(v, 0)) - exact);
        double e128 = Math.abs(
                new GaussHermite(128).expect2(q[0], q[1], q[2], (u, v) -> Math.max(u, 0) * Math.max(v, 0)) - exact);
        assertTrue(e128 < e32 && e128 < 1e-3, "errors " + e32 + " " + e128);
    }

    @Test
    void gaussHermiteIsExactOnPolynomials() {
        GaussHermite gh = new GaussHermite(10);
        assertEquals(1.0, gh.expect(z -> 1), 1e-14);
        assertEquals(3.0, gh.expect(z -> z * z * z * z), 1e-12);
        assertEquals(945.0, gh.expect(z -> Math.pow(z, 10)), 1e-8);
    }

    @Test
    void erfReferenceValues() {
        assertEquals(0.5204998778130465, Special.erf(0.5), 1e-15);
        assertEquals(0.8427007929497149, Special.erf(1.0), 1e-15);
        assertEquals(-0.9999779095030014, Special.erf(-3.0), 1e-15);
        assertEquals(0.9999999999984626, Special.erf(5.0), 1e-15);
    }
}
