package org.ntk4j.theory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.ntk4j.spec.Parameterization;

/** Mean-field maps vs finite-width Monte Carlo, the ReLU closed forms, and the asymptotic depth scales. */
class SignalPropagationTest {

    @Test
    void reluClosedForms() {
        SignalPropagation sp = new SignalPropagation(Activation.RELU, 1.5, 0.2);
        assertEquals(1.5 * 3 / 2 + 0.2, sp.lengthMap(3), 1e-14);
        assertEquals(0.75, sp.chi1(1.234), 1e-14);
        assertEquals(0.2 / (1 - 0.75), sp.fixedPointLength(1), 1e-10);
        assertEquals(SignalPropagation.Phase.ORDERED, sp.phase(0.8, 1e-9));
        assertEquals(
                SignalPropagation.Phase.EDGE_OF_CHAOS, new SignalPropagation(Activation.RELU, 2, 0).phase(1, 1e-9));
        assertEquals(SignalPropagation.Phase.CHAOTIC, new SignalPropagation(Activation.RELU, 2.5, 0).phase(1, 1e-9));
        assertEquals(-1 / Math.log(0.75), sp.lengthDepthScale(0.8), 1e-12);
    }

    @Test
    void tanhEdgeOfChaosAtUnitWeightVarianceWithoutBias() {
        // with σ_b = 0 the fixed point is q* = 0, where χ₁ = σ_w² φ'(0)² = σ_w²
        assertEquals(1.0, new SignalPropagation(Activation.TANH, 1.0, 0).chi1(1e-12), 1e-9);
        assertEquals(1.7, new SignalPropagation(Activation.TANH, 1.7, 0).chi1(1e-12), 1e-9);
        SignalPropagation eoc = new SignalPropagation(Activation.TANH, 1.0, 0);
        double q = eoc.fixedPointLength(1);
        assertEquals(0.0, q, 0);
        assertEquals(SignalPropagation.Phase.EDGE_OF_CHAOS, eoc.phase(q, 1e-9));
        // ReLU above the edge of chaos with bias: the length map diverges
        assertTrue(Double.isNaN(new SignalPropagation(Activation.RELU, 2.5, 0.1).fixedPointLength(1)));
    }

    @Test
    void lengthMapSlopeMatchesFiniteDifferences() {
        // Stein's-lemma slope vs central difference with step 1e-4 (error O(h²) ≈ 1e-8)
        SignalPropagation sp = new SignalPropagation(Activation.TANH, 2.2, 0.3);
        double q = 0.9;
        double h = 1e-4;
        double fd = (sp.lengthMap(q + h) - sp.lengthMap(q - h)) / (2 * h);
        assertEquals(fd, sp.lengthMapSlope(q), 1e-7);
    }

    @Test
    void correlationDepthScaleGovernsConvergence() {
        // Ordered tanh network: c_l − c* ≈ A e^{−l/ξ_c}. The ratio of successive gaps must approach e^{−1/ξ_c};
        // the linearisation error decays like the gap itself, so compare late ratios to 1e-6.
        SignalPropagation sp = new SignalPropagation(Activation.TANH, 0.8, 0.05);
        double q = sp.fixedPointLength(1);
        double xi = sp.correlationDepthScale(q);
        double c = 0.2;
        double cStar = sp.fixedPointCorrelation(q);
        double gapPrev = Math.abs(c - cStar);
        double ratio = 0;
        for (int l = 0; l < 40; l++) {
            c = sp.correlationMap(c, q);
            double gap = Math.abs(c - cStar);
            ratio = gap / gapPrev;
            gapPrev = gap;
        }
        assertEquals(Math.exp(-1 / xi), ratio, 1e-6);
        // chaotic tanh: c* < 1 and χ_c < 1 there (the stable fixed point)
        SignalPropagation ch = new SignalPropagation(Activation.TANH, 4.0, 0.05);
        double qc = ch.fixedPointLength(1);
        assertEquals(SignalPropagation.Phase.CHAOTIC, ch.phase(qc, 1e-6));
        double cs = ch.fixedPointCorrelation(qc);
        assertTrue(cs < 1 && ch.chiC(qc, cs) < 1);
    }

    @Test
    void mapsMatchWideTanhNetworks() {
        // q_l and c_l of a width-1024 tanh network (mean over 6 networks) vs the maps; tolerance 4 SE + 3/n
        int d = 32;
        int n = 1024;
        int depth = 5;
        double sw = 1.6;
        double sb = 0.3;
        double[] x = MlpKernelTest.input(d, 3);
        double[] y = MlpKernelTest.input(d, 4);
        SignalPropagation sp = new SignalPropagation(Activation.TANH, sw * sw, sb * sb);
        double q1 = sw * sw * MlpKernel.dot(x, x) / d + sb * sb;
        double q2 = sw * sw * MlpKernel.dot(y, y) / d + sb * sb;
        double q12 = sw * sw * MlpKernel.dot(x, y) / d + sb * sb;
        double[] c = sp.correlations(q1, q2, q12 / Math.sqrt(q1 * q2), depth - 1);
        double[] q = sp.lengths(q1, depth - 1);
        int[] widths = {d, n, n, n, n, 1};
        int seeds = 6;
        double[][] qs = new double[depth][seeds];
        double[][] cs = new double[depth][seeds];
        double[][] gs = new double[depth][seeds];
        for (int s = 0; s < seeds; s++) {
            MonteCarloNtk net =
                    new MonteCarloNtk(widths, Activation.TANH, Parameterization.STANDARD, sw, sb, true, 70 + s);
            MonteCarloNtk.Pass px = net.pass(x);
            MonteCarloNtk.Pass py = net.pass(y);
            for (int l = 1; l < depth; l++) {
                double[] hx = px.preActivations[l - 1];
                double[] hy = py.preActivations[l - 1];
                qs[l][s] = MlpKernel.dot(hx, hx) / n;
                cs[l][s] = MlpKernel.dot(hx, hy) / Math.sqrt(MlpKernel.dot(hx, hx) * MlpKernel.dot(hy, hy));
                gs[l][s] = MlpKernel.dot(px.deltas[l - 1], px.deltas[l - 1]);
            }
        }
        double[] grad = sp.gradientNormRatios(q1, depth);
        for (int l = 1; l < depth; l++) {
            double[] mq = EquilibriumHypothesisTest.meanSe(qs[l]);
            assertEquals(q[l - 1], mq[0], 4 * mq[1] + 3.0 / n * q[l - 1], "q layer " + l);
            double[] mc = EquilibriumHypothesisTest.meanSe(cs[l]);
            assertEquals(c[l - 1], mc[0], 4 * mc[1] + 3.0 / n, "c layer " + l);
            double[] mg = EquilibriumHypothesisTest.meanSe(gs[l]);
            assertEquals(grad[l - 1], mg[0], 4 * mg[1] + 3.0 / n * grad[l - 1], "gradient norm layer " + l);
        }
    }
}
