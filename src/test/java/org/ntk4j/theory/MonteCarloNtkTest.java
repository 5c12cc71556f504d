package org.ntk4j.theory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.ntk4j.spec.Parameterization;

/** The plain-Java empirical NTK: backprop identity vs explicit gradients vs finite differences. */
class MonteCarloNtkTest {

    static double[] randomInput(int d, SplittableRandom rng) {
        double[] x = new double[d];
        for (int i = 0; i < d; i++) {
            x[i] = rng.nextGaussian();
        }
        return x;
    }

    @Test
    void backpropIdentityEqualsGradientInnerProduct() {
        SplittableRandom rng = new SplittableRandom(3);
        for (Parameterization p : Parameterization.values()) {
            MonteCarloNtk net = new MonteCarloNtk(new int[] {5, 7, 6, 1}, Activation.TANH, p, 1.3, 0.4, true, 11);
            double[] x = randomInput(5, rng);
            double[] y = randomInput(5, rng);
            double[] gx = net.gradient(x);
            double[] gy = net.gradient(y);
            // exact identity: only rounding separates the two (relative 1e-12)
            double direct = MlpKernel.dot(gx, gy);
            assertEquals(direct, net.ntk(x, y), 1e-12 * Math.abs(direct) + 1e-14, p.name());
        }
    }

    @Test
    void gradientMatchesCentralDifferences() {
        // Central differences have error O(ε² f''') ≈ 1e-10 at ε = 1e-5 for this O(1) network, plus rounding
        // 1e-16/ε ≈ 1e-11: tolerance 1e-7 leaves a wide margin but catches any wrong factor.
        SplittableRandom rng = new SplittableRandom(5);
        for (Parameterization p : Parameterization.values()) {
            MonteCarloNtk net = new MonteCarloNtk(new int[] {4, 5, 3, 1}, Activation.ERF, p, 1.5, 0.7, true, 17);
            double[] x = randomInput(4, rng);
            double[] g = net.gradient(x);
            double eps = 1e-5;
            for (int k = 0; k < g.length; k++) {
                double fd = (net.outputPerturbed(x, k, eps) - net.outputPerturbed(x, k, -eps)) / (2 * eps);
                assertEquals(fd, g[k], 1e-7, p + " parameter " + k);
            }
        }
    }

    @Test
    void gradientStepMovesTheOutputByTheNtk() {
        // One GD step on (x, y) with ½(f − y)²: θ₁ = θ₀ − η(f − y)∇f, so f₁(x') = f₀(x') − η(f − y)Θ(x', x) + O(η²)
        // for every x'. With η = 1e-6 and O(1) curvature the second-order term is ~1e-12: tolerance 1e-9.
        SplittableRandom rng = new SplittableRandom(8);
        for (Parameterization p : Parameterization.values()) {
            MonteCarloNtk net = new MonteCarloNtk(new int[] {4, 6, 5, 1}, Activation.TANH, p, 1.4, 0.3, true, 23);
            double[] x = randomInput(4, rng);
            double[] xp = randomInput(4, rng);
            double y = 0.7;
            double eta = 1e-6;
            double f0 = net.pass(x).output;
            double fp0 = net.pass(xp).output;
            double theta = net.ntk(xp, x);
            assertEquals(f0, net.gradientStep(x, y, eta), 0, "returns f before the step");
            double fp1 = net.pass(xp).output;
            assertEquals(-eta * (f0 - y) * theta, fp1 - fp0, 1e-9, p.name());
        }
    }
}
