package org.ntk4j.theory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.ntk4j.spec.Parameterization;

/**
 * Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit, Thm 3.2 moments (proof form): an independently
 * computed dispersion table, Monte Carlo, and the Thm 3.1 limits.
 */
class FiniteWidthNtkMomentsTest {

    static final double[] SIGMA_W2 = {1.0, 1.5, 1.8, 2.0, 2.2, 2.5, 3.0};
    static final int[] DEPTHS = {2, 5, 10, 20};
    /** Independently computed (numpy) proof-form oracle table, rows (M, L), columns σ_w², printed to 4 decimals. */
    static final double[][][] TABLE = {
        { // M = 50
            {1.0232, 1.0309, 1.0343, 1.0362, 1.0380, 1.0402, 1.0431},
            {1.0438, 1.1158, 1.1576, 1.1807, 1.1996, 1.2215, 1.2454},
            {1.0355, 1.1691, 1.3646, 1.4979, 1.6009, 1.6977, 1.7705},
            {1.0345, 1.1541, 1.6901, 2.5465, 3.1907, 3.5773, 3.7431}
        },
        { // M = 100
            {1.0116, 1.0154, 1.0172, 1.0181, 1.0190, 1.0201, 1.0216},
            {1.0215, 1.0559, 1.0757, 1.0866, 1.0955, 1.1058, 1.1169},
            {1.0174, 1.0785, 1.1632, 1.2196, 1.2626, 1.3025, 1.3321},
            {1.0170, 1.0714, 1.2726, 1.5599, 1.7644, 1.8819, 1.9303}
        }
    };

    @Test
    void reproducesDispersionTableOfNotes003() {
        int[] widths = {50, 100};
        for (int w = 0; w < 2; w++) {
            for (int d = 0; d < DEPTHS.length; d++) {
                for (int s = 0; s < SIGMA_W2.length; s++) {
                    double r = FiniteWidthNtkMoments.constantWidth(widths[w], DEPTHS[d], widths[w], SIGMA_W2[s])
                            .dispersion();
                    // printed precision: 4 decimals → half a unit in the last place
                    assertEquals(
                            TABLE[w][d][s],
                            r,
                            5e-5 + 1e-12,
                            "M=" + widths[w] + " L=" + DEPTHS[d] + " σw²=" + SIGMA_W2[s]);
                }
            }
        }
    }

    @Test
    void printedEquation13WouldNotReproduceMonteCarlo() {
        // proof form vs printed eq. (13) at M = 100, L = 20: proof form 1.560 (σ_w²=2), 1.930 (σ_w²=3)
        assertEquals(
                1.560, FiniteWidthNtkMoments.constantWidth(100, 20, 100, 2.0).dispersion(), 5e-4);
        assertEquals(
                1.930, FiniteWidthNtkMoments.constantWidth(100, 20, 100, 3.0).dispersion(), 5e-4);
    }

    static double[] sampleDiagonal(int width, int depth, double sigmaW2, int inits, long seed0) {
        int[] widths = new int[depth + 1];
        widths[0] = width;
        for (int l = 1; l < depth; l++) {
            widths[l] = width;
        }
        widths[depth] = 1;
        double[] x = MlpKernelTest.input(width, seed0);
        double nx = Math.sqrt(MlpKernel.dot(x, x));
        for (int i = 0; i < x.length; i++) {
            x[i] /= nx;
        }
        double[] th = new double[inits];
        for (int s = 0; s < inits; s++) {
            MonteCarloNtk net = new MonteCarloNtk(
                    widths,
                    Activation.RELU,
                    Parameterization.STANDARD,
                    Math.sqrt(sigmaW2),
                    0,
                    true,
                    seed0 * 100_000 + s);
            th[s] = net.ntk(x, x);
        }
        return th;
    }

    /** Bootstrap standard error of the plain dispersion ratio (200 resamples, fixed seed). */
    static double bootstrapSe(double[] th) {
        java.util.SplittableRandom r = new java.util.SplittableRandom(1);
        int b = 200;
        double[] est = new double[b];
        double[] re = new double[th.length];
        for (int k = 0; k < b; k++) {
            for (int i = 0; i < th.length; i++) {
                re[i] = th[r.nextInt(th.length)];
            }
            est[k] = FiniteWidthNtkMoments.dispersionPlain(re);
        }
        return EquilibriumHypothesisTest.meanSe(est)[1] * Math.sqrt(b);
    }

    @Test
    void meanAndDispersionMatchMonteCarlo() {
        // Width 50, depth 5, n0 = 50, ‖x‖ = 1, σ_b = 0 (biases trained), SP; 1500 initialisations each.
        // Tolerance: 4 Monte Carlo standard errors (bootstrap SE for r) + the O(M^{-3/2}) terms the theorem
        // drops (relative 50^{-1.5} ≈ 3e-3).
        for (double s2 : new double[] {1.0, 2.0}) {
            double[] th = sampleDiagonal(50, 5, s2, 1500, s2 == 1.0 ? 3 : 4);
            FiniteWidthNtkMoments.Moments m =
                    FiniteWidthNtkMoments.constantWidth(50, 5, 50, s2).moments();
            double[] ms = EquilibriumHypothesisTest.meanSe(th);
            assertEquals(m.mean(), ms[0], 4 * ms[1] + 3e-3 * m.mean(), "mean σw²=" + s2);
            double rPlain = FiniteWidthNtkMoments.dispersionPlain(th);
            double se = bootstrapSe(th);
            assertEquals(m.dispersion(), rPlain, 4 * se + 3e-3, "r σw²=" + s2 + " se " + se);
            // the leave-one-out estimator agrees with the plain one to O(1/N)
            assertEquals(rPlain, FiniteWidthNtkMoments.dispersionLeaveOneOut(th), 10.0 / th.length);
        }
    }

    @Test
    void offDiagonalEstimateInOrderedPhase() {
        // eq. (18) vs Monte Carlo at M = 100, L = 10, σ_w² = 1, ρ0 = 0.5 (an independent run: MC 0.859 vs 0.855).
        // The estimate is an approximation whose gap in the ordered phase is ≤ 0.02 (independent runs); the
        // tolerance is that gap plus 4 Monte Carlo standard errors of the ratio (delta method).
        int m = 100;
        int depth = 10;
        int[] widths = new int[depth + 1];
        widths[0] = m;
        for (int l = 1; l < depth; l++) {
            widths[l] = m;
        }
        widths[depth] = 1;
        double[] x = MlpKernelTest.input(m, 21);
        double[] z = MlpKernelTest.input(m, 22);
        double nx = Math.sqrt(MlpKernel.dot(x, x));
        for (int i = 0; i < m; i++) {
            x[i] /= nx;
        }
        double p = MlpKernel.dot(x, z);
        for (int i = 0; i < m; i++) {
            z[i] -= p * x[i];
        }
        double nz = Math.sqrt(MlpKernel.dot(z, z));
        double rho0 = 0.5;
        double[] y = new double[m];
        for (int i = 0; i < m; i++) {
            y[i] = rho0 * x[i] + Math.sqrt(1 - rho0 * rho0) * z[i] / nz;
        }
        int inits = 300;
        double[] off = new double[inits];
        double[] diag = new double[inits];
        for (int s = 0; s < inits; s++) {
            MonteCarloNtk net =
                    new MonteCarloNtk(widths, Activation.RELU, Parameterization.STANDARD, 1.0, 0, true, 9000 + s);
            MonteCarloNtk.Pass px = net.pass(x);
            MonteCarloNtk.Pass py = net.pass(y);
            off[s] = net.ntk(px, py);
            diag[s] = net.ntk(px, px);
        }
        double[] mo = EquilibriumHypothesisTest.meanSe(off);
        double[] md = EquilibriumHypothesisTest.meanSe(diag);
        double ratio = mo[0] / md[0];
        double se = ratio * Math.hypot(mo[1] / mo[0], md[1] / md[0]);
        double est = FiniteWidthNtkMoments.offDiagonalRatio(depth, 1.0, rho0);
        assertEquals(0.855, est, 5e-4);
        assertEquals(est, ratio, 0.02 + 4 * se, "MC " + ratio + " ± " + se);
        assertTrue(ratio >= 0.25);
    }

    @Test
    void limitFormulasReproduceNoteTable() {
        // Thm 3.1 limits (eqs. (8), (9)), computed independently, printed to 6 significant decimals
        double[] lambdas = {0.001, 0.05, 0.1, 0.2, 0.5, 1.0};
        double[] chaotic = {1.003674, 1.202538, 1.449227, 2.117957, 6.915608, 55.99472};
        double[][] eoc = {
            {1.003353, 1.002634, 1.002253, 1.001966},
            {1.184287, 1.143354, 1.121741, 1.105446},
            {1.407412, 1.313728, 1.264359, 1.227242},
            {2.007270, 1.759762, 1.629814, 1.532631},
            {6.230402, 4.705415, 3.911990, 3.326345},
            {48.45965, 31.76915, 23.16575, 16.90193}
        };
        double[] alphas = {0.1, 0.5, 1, 2};
        for (int i = 0; i < lambdas.length; i++) {
            double tol = i == 5 ? 5e-5 : 5e-7;
            assertEquals(chaotic[i], FiniteWidthNtkMoments.chaoticLimit(lambdas[i]), tol, "chaotic λ=" + lambdas[i]);
            for (int j = 0; j < alphas.length; j++) {
                assertEquals(
                        eoc[i][j],
                        FiniteWidthNtkMoments.edgeOfChaosLimit(lambdas[i], alphas[j]),
                        tol,
                        "EOC λ=" + lambdas[i] + " α0=" + alphas[j]);
            }
        }
        // EOC → chaotic as α0 → 0; ordered → 1
        assertEquals(FiniteWidthNtkMoments.chaoticLimit(0.3), FiniteWidthNtkMoments.edgeOfChaosLimit(0.3, 1e-9), 1e-7);
        assertEquals(1.0, FiniteWidthNtkMoments.limitDispersion(1.5, 0.3, 1), 0);
    }

    @Test
    void componentLimitsOfLemmasA6A7AreApproachedByTheFiniteWidthFormula() {
        // Edge of chaos, λ = 0.2, α0 = 1: E[Θ_b²]/L² and E[Θ_WΘ_b]/L² at widths 250, 500, 1000 approach the
        // Lemma A.6/A.7 limits; the finite-width corrections are O(1/M), so the gap must roughly halve with each
        // doubling (ratio in [1.6, 2.4]) and be below 1% at M = 1000.
        double lambda = 0.2;
        double bLim = FiniteWidthNtkMoments.biasSecondMomentLimitEoc(lambda);
        double cLim = FiniteWidthNtkMoments.crossMomentLimitEoc(lambda, 1.0);
        double[] gapB = new double[3];
        double[] gapC = new double[3];
        int[] ms = {250, 500, 1000};
        for (int i = 0; i < 3; i++) {
            int m = ms[i];
            int depth = (int) Math.round(lambda * m);
            FiniteWidthNtkMoments.Moments mo =
                    FiniteWidthNtkMoments.constantWidth(m, depth, m, 2.0).moments();
            assertEquals(depth, mo.meanB(), 1e-9);
            gapB[i] = Math.abs(mo.secondB() / ((double) depth * depth) - bLim);
            gapC[i] = Math.abs(mo.crossWB() / ((double) depth * depth) - cLim);
        }
        for (int i = 0; i < 2; i++) {
            double rb = gapB[i] / gapB[i + 1];
            double rc = gapC[i] / gapC[i + 1];
            assertTrue(rb > 1.6 && rb < 2.4, "bias gap ratio " + rb);
            assertTrue(rc > 1.6 && rc < 2.4, "cross gap ratio " + rc);
        }
        assertTrue(gapB[2] < 0.01 * bLim && gapC[2] < 0.01 * cLim);
        // ordered phase: E[Θ_b] → 1/(1 − a)
        assertEquals(
                FiniteWidthNtkMoments.biasMeanLimitOrdered(1.0),
                FiniteWidthNtkMoments.constantWidth(100, 80, 100, 1.0).moments().meanB(),
                1e-12);
    }

    @Test
    void finiteWidthFormulaApproachesTheLimitAsWidthGrows() {
        // at fixed λ = 0.2 the finite-width r approaches the λ-limit as M grows (chaotic σ_w² = 3: only the
        // Θ_W-dominated limit survives; the gap must shrink monotonically)
        double prev = Double.MAX_VALUE;
        for (int m : new int[] {50, 100, 200, 400}) {
            double r = FiniteWidthNtkMoments.constantWidth(m, m / 5, m, 3.0).dispersion();
            double gap = Math.abs(r - FiniteWidthNtkMoments.chaoticLimit(0.2));
            assertTrue(gap < prev, "M=" + m + " gap " + gap);
            prev = gap;
        }
    }
}
