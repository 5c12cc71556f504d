package org.ntk4j.theory;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.ntk4j.spec.Parameterization;

/**
 * Issue #15: the mean empirical NTK of finite tanh networks (plain-Java float64 {@link MonteCarloNtk}) converges
 * to the infinite-width {@link MlpKernel} value as the width grows, at σ_w = 3.5 where the old fixed 64-point
 * Gauss–Hermite rule was 15% off (the empirical kernels at width 4096 were 1.1% from the exact kernel).
 */
class TanhEmpiricalConvergenceTest {
    static final double SW = 3.5;
    static final double SB = 0.1;
    static final int SEEDS = 16;

    /** Mean and standard error over SEEDS depth-2 networks of width n of Θ(x, y). */
    static double[] empirical(int n, double[] x, double[] y) {
        double[] v = new double[SEEDS];
        for (int s = 0; s < SEEDS; s++) {
            MonteCarloNtk net = new MonteCarloNtk(
                    new int[] {x.length, n, 1}, Activation.TANH, Parameterization.NTK, SW, SB, true, 500 + 31L * s + n);
            v[s] = net.ntk(x, y);
        }
        double m = 0;
        for (double a : v) {
            m += a;
        }
        m /= SEEDS;
        double ss = 0;
        for (double a : v) {
            ss += (a - m) * (a - m);
        }
        return new double[] {m, Math.sqrt(ss / (SEEDS - 1) / SEEDS)};
    }

    @Test
    void meanEmpiricalNtkConvergesToInfiniteWidthKernel() {
        // inputs with x·x/n0 = 1 (q¹ = σ_w² + σ_b² ≈ 12.3: tanh' = sech² is sharply peaked on the scale of √q¹)
        double[] x = {1.2, -0.9, 0.8, 0.6, -0.5, 0.7, -1.1, 1.0};
        double[] y = {0.4, 1.1, -1.0, 1.2, 0.3, -0.8, 0.9, 0.6};
        normalise(x);
        normalise(y);
        MlpKernel k = MlpKernel.builder()
                .activation(Activation.TANH)
                .depth(2)
                .sigmaW(SW)
                .sigmaB(SB)
                .build();
        int[] widths = {256, 1024, 4096};
        StringBuilder log = new StringBuilder();
        double[] err = new double[widths.length];
        // Θ(x,x) and Θ(y,y): the large-variance diagonal, where sech² is sharply peaked and the old rule failed
        for (double[][] pair : new double[][][] {{x, x}, {y, y}}) {
            double theory = k.pair(pair[0], pair[1])[1];
            for (int i = 0; i < widths.length; i++) {
                double[] e = empirical(widths[i], pair[0], pair[1]);
                err[i] = Math.abs(e[0] - theory) / Math.abs(theory);
                double se = e[1] / Math.abs(theory);
                log.append(String.format(
                        "n=%d theory %.6f empirical %.6f ± %.6f rel.err %.4f (SE %.4f)%n",
                        widths[i], theory, e[0], e[1], err[i], se));
                // Tolerance: 4 standard errors of the seed mean plus 2/n relative for an O(1/n) finite-width
                // bias of the mean (with one hidden layer the first-layer pre-activations are exactly Gaussian,
                // so the mean is unbiased and only the O(1/√n) seed-to-seed spread remains: SE ≈ 3-5% at n = 256,
                // ≈ 0.8% at n = 4096 with 16 seeds). The fixed bound 1.5% at n = 4096 is ≈ 2 SE; the old
                // quadrature is ≈ 10% off here.
                assertTrue(err[i] <= 4 * se + 2.0 / widths[i], log.toString());
            }
            assertTrue(err[2] < 0.015 && err[2] < err[0], log.toString());
            // and the old fixed 64-point Gauss–Hermite rule is not within that distance
            double old = MlpKernel.builder()
                    .activation(Activation.gaussHermite("tanh-gh64", Math::tanh, Activation::sech2, 64))
                    .depth(2)
                    .sigmaW(SW)
                    .sigmaB(SB)
                    .build()
                    .pair(pair[0], pair[1])[1];
            log.append(String.format(
                    "old 64-point Gauss–Hermite kernel %.6f (rel.err %.4f)%n", old, Math.abs(old - theory) / theory));
            assertTrue(Math.abs(old - theory) / Math.abs(theory) > 0.05, log.toString());
        }
        System.out.print(log);
    }

    static void normalise(double[] x) {
        double s = Math.sqrt(MlpKernel.dot(x, x) / x.length);
        for (int i = 0; i < x.length; i++) {
            x[i] /= s;
        }
    }
}
