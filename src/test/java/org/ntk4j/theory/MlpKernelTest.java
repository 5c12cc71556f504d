package org.ntk4j.theory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.ntk4j.spec.Parameterization;

/** Infinite-width NNGP/NTK vs Monte Carlo means over wide random networks (plain-Java empirical NTK). */
class MlpKernelTest {

    /**
     * Mean and standard error over {@code nets} networks of: [Θ(x,x), Θ(x,x'), Θ(x',x'), Σ(x,x')], where
     * Σ is the conditional NNGP of the readout given the last hidden layer, σ_w²/n Σ_i φ_i φ'_i + σ_b².
     */
    static double[][] monteCarlo(
            int[] widths, Activation act, Parameterization p, double sw, double sb, double[] x, double[] y, int nets) {
        double[][] samples = new double[4][nets];
        for (int s = 0; s < nets; s++) {
            MonteCarloNtk net = new MonteCarloNtk(widths, act, p, sw, sb, true, 1000 + s);
            MonteCarloNtk.Pass px = net.pass(x);
            MonteCarloNtk.Pass py = net.pass(y);
            samples[0][s] = net.ntk(px, px);
            samples[1][s] = net.ntk(px, py);
            samples[2][s] = net.ntk(py, py);
            int last = widths.length - 2;
            samples[3][s] = sw * sw / widths[last] * MlpKernel.dot(px.inputs[last], py.inputs[last]) + sb * sb;
        }
        double[][] out = new double[4][2];
        for (int k = 0; k < 4; k++) {
            double m = 0;
            for (double v : samples[k]) {
                m += v;
            }
            m /= nets;
            double v2 = 0;
            for (double v : samples[k]) {
                v2 += (v - m) * (v - m);
            }
            out[k][0] = m;
            out[k][1] = Math.sqrt(v2 / (nets - 1) / nets);
        }
        return out;
    }

    static double[] input(int d, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] x = new double[d];
        for (int i = 0; i < d; i++) {
            x[i] = r.nextGaussian();
        }
        return x;
    }

    /**
     * Tolerance: 4 observed Monte Carlo standard errors (the width-n fluctuation is O(1/√n) per network and
     * the sample has {@code nets} networks) plus 3/n relative for the O(1/n) finite-width bias of the mean.
     */
    static void assertAgrees(
            MlpKernel k, int[] widths, Activation act, Parameterization p, double sw, double sb, int nets) {
        double[] x = input(widths[0], 1);
        double[] y = input(widths[0], 2);
        double[][] mc = monteCarlo(widths, act, p, sw, sb, x, y, nets);
        double[] xx = k.pair(x, x);
        double[] xy = k.pair(x, y);
        double[] yy = k.pair(y, y);
        double[] theory = {xx[1], xy[1], yy[1], xy[0]};
        String[] names = {"ntk(x,x)", "ntk(x,y)", "ntk(y,y)", "nngp(x,y)"};
        double bias = 3.0 / widths[1];
        for (int i = 0; i < 4; i++) {
            assertEquals(
                    theory[i],
                    mc[i][0],
                    4 * mc[i][1] + bias * Math.abs(theory[i]),
                    act + " " + p + " " + names[i] + " theory " + theory[i] + " mc " + mc[i][0] + " ± " + mc[i][1]);
        }
    }

    @Test
    void depth3ReluNtkMatchesWidth2048Networks() {
        // The check: infinite-width NTK of a depth-3 ReLU MLP vs the mean empirical NTK at width 2048.
        int[] widths = {8, 2048, 2048, 1};
        MlpKernel k = MlpKernel.builder()
                .activation(Activation.RELU)
                .depth(3)
                .sigmaW(Math.sqrt(2))
                .sigmaB(0.3)
                .build();
        assertAgrees(k, widths, Activation.RELU, Parameterization.NTK, Math.sqrt(2), 0.3, 8);
    }

    @Test
    void erfTanhAndLinearNtkMatchWideNetworks() {
        int[] widths = {6, 512, 512, 1};
        for (Activation a : new Activation[] {Activation.ERF, Activation.TANH, Activation.LINEAR}) {
            MlpKernel k = MlpKernel.builder()
                    .activation(a)
                    .depth(3)
                    .sigmaW(1.5)
                    .sigmaB(0.2)
                    .build();
            assertAgrees(k, widths, a, Parameterization.NTK, 1.5, 0.2, 12);
        }
    }

    @Test
    void standardParameterisationScalesWithWidth() {
        int[] widths = {6, 512, 512, 1};
        MlpKernel k = MlpKernel.builder()
                .activation(Activation.RELU)
                .depth(3)
                .sigmaW(Math.sqrt(2))
                .sigmaB(0.1)
                .parameterization(Parameterization.STANDARD)
                .hiddenWidth(512)
                .build();
        assertAgrees(k, widths, Activation.RELU, Parameterization.STANDARD, Math.sqrt(2), 0.1, 12);
    }

    @Test
    void reluRecursionMatchesNotes003PseudoCode() {
        // The ReLU recursion in an independent closed form (arcsin variant of Seleznova's Thm 2.6); this must agree
        // with the generic recursion using the arc-cosine expectations.
        double sw2 = 2.5;
        double sb2 = 0.3;
        int depth = 4;
        double[] x = input(5, 7);
        double[] y = input(5, 8);
        int n0 = 5;
        double s11 = sw2 * MlpKernel.dot(x, x) / n0 + sb2;
        double s22 = sw2 * MlpKernel.dot(y, y) / n0 + sb2;
        double s12 = sw2 * MlpKernel.dot(x, y) / n0 + sb2;
        double theta = s12;
        for (int l = 1; l < depth; l++) {
            double c = s12 / Math.sqrt(s11 * s22);
            double ephi =
                    Math.sqrt(s11 * s22) / (2 * Math.PI) * (Math.sqrt(1 - c * c) + c * Math.PI / 2 + c * Math.asin(c));
            double edot = (Math.PI / 2 + Math.asin(c)) / (2 * Math.PI);
            s11 = sw2 * s11 / 2 + sb2;
            s22 = sw2 * s22 / 2 + sb2;
            s12 = sw2 * ephi + sb2;
            theta = s12 + sw2 * edot * theta;
        }
        double[] k = MlpKernel.builder()
                .depth(depth)
                .sigmaW(Math.sqrt(sw2))
                .sigmaB(Math.sqrt(sb2))
                .build()
                .pair(x, y);
        assertEquals(s12, k[0], 1e-12);
        assertEquals(theta, k[1], 1e-12);
    }
}
