package org.ntk4j.theory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Xu &amp; Ziyin, When Does Feature Learning Happen?: closed forms vs RK4 gradient flow and vs plain gradient descent
 * of the two-layer linear network.
 */
class SolvableModelTest {
    static final double[] U0 = {0.5, -0.3, 0.8};
    static final double[][] W0 = {{0.2, 0.1}, {-0.4, 0.3}, {0.1, -0.2}};
    static final double[] X = {1.0, 0.5};

    /** State [u (d), W (d×d0 row-major)]; loss (f − y)², flow u̇ = −2η_uκ r Wx, Ẇ = −2η_Wκ r u xᵀ. */
    static Rk4.System flow(int d, double[] x, double y, double kappa, double etaU, double etaW) {
        int d0 = x.length;
        return (t, s, ds) -> {
            double[] wx = new double[d];
            for (int i = 0; i < d; i++) {
                for (int j = 0; j < d0; j++) {
                    wx[i] += s[d + i * d0 + j] * x[j];
                }
            }
            double f = 0;
            for (int i = 0; i < d; i++) {
                f += kappa * s[i] * wx[i];
            }
            double r = f - y;
            for (int i = 0; i < d; i++) {
                ds[i] = -2 * etaU * kappa * r * wx[i];
                for (int j = 0; j < d0; j++) {
                    ds[d + i * d0 + j] = -2 * etaW * kappa * r * s[i] * x[j];
                }
            }
        };
    }

    static double[] pack(double[] u, double[][] w) {
        int d = u.length;
        int d0 = w[0].length;
        double[] s = new double[d + d * d0];
        System.arraycopy(u, 0, s, 0, d);
        for (int i = 0; i < d; i++) {
            System.arraycopy(w[i], 0, s, d + i * d0, d0);
        }
        return s;
    }

    @Test
    void goldenInstanceOfNotes004() {
        // reference instance, values computed independently in numpy, printed to 12 decimals
        SolvableModel m = new SolvableModel(U0, W0, X, 1.0, 1.0, 1.0, 0.5);
        assertEquals(1.053727766017, m.bigP(), 1e-11);
        assertEquals(0.421272233983, m.bigQ(), 1e-11);
        assertEquals(0.4875, m.bigC(), 1e-12);
        assertEquals(0.319609712016, m.zPlus(), 1e-11);
        assertEquals(-7.826104099906, m.zMinus(), 1e-11);
        assertEquals(0.291412392543, m.tau(), 1e-11);
        assertEquals(0.287228132327, m.area(), 1e-11);
        assertEquals(0.961138662664, m.finalAlignment(), 1e-11);
        assertEquals(0.709747722336, m.output(0.5), 1e-11);
        assertEquals(1.305090350666, m.ntk(0.5), 1e-11);
        assertEquals(0.926969844157, m.alignment(0.5), 1e-11);
        assertEquals(1.715781527468, m.ntk(Double.POSITIVE_INFINITY), 1e-11);
    }

    @Test
    void closedFormMatchesRk4GradientFlow() {
        // RK4 with dt = 1e-3 and 5e-4 from the same start: the O(h⁴) error of the finer run is estimated by
        // Richardson, |y_h − y_{h/2}|/15; the tolerance is 10× that estimate + 1e-12 rounding.
        SplittableRandom r = new SplittableRandom(8);
        for (int trial = 0; trial < 4; trial++) {
            int d = 5;
            int d0 = 3;
            double[] u = new double[d];
            double[][] w = new double[d][d0];
            double[] x = new double[d0];
            for (int i = 0; i < d; i++) {
                u[i] = r.nextGaussian();
                for (int j = 0; j < d0; j++) {
                    w[i][j] = r.nextGaussian() / Math.sqrt(d0);
                }
            }
            for (int j = 0; j < d0; j++) {
                x[j] = r.nextGaussian();
            }
            double y = trial % 2 == 0 ? 1.3 : -0.7;
            double kappa = 0.3 + r.nextDouble();
            double etaU = 0.2 + r.nextDouble();
            double etaW = 0.2 + r.nextDouble();
            SolvableModel m = new SolvableModel(u, w, x, y, kappa, etaU, etaW);
            double[] s = pack(u, w);
            double tol = 0;
            double t = 0;
            for (double tEnd : new double[] {0.1, 0.5, 1.5}) {
                int steps = (int) Math.round((tEnd - t) / 1e-3);
                double[] coarse = Rk4.integrate(flow(d, x, y, kappa, etaU, etaW), s, t, tEnd, steps);
                s = Rk4.integrate(flow(d, x, y, kappa, etaU, etaW), s, t, tEnd, 2 * steps);
                double est = 0;
                for (int i = 0; i < s.length; i++) {
                    est = Math.max(est, Math.abs(coarse[i] - s[i]) / 15);
                }
                assertTrue(est < 1e-6, "RK4 step too coarse: " + est);
                // errors accumulate over the segments: keep the largest so far
                tol = Math.max(tol, 10 * est + 1e-12);
                t = tEnd;
                double[] ut = m.u(t);
                double[][] wt = m.w(t);
                for (int i = 0; i < d; i++) {
                    assertEquals(s[i], ut[i], tol, "u trial " + trial + " t " + t);
                    for (int j = 0; j < d0; j++) {
                        assertEquals(s[d + i * d0 + j], wt[i][j], tol, "W trial " + trial);
                    }
                }
                // the scalar closed forms (f, Θ_η, ζ, norms) must be exact functions of the closed-form
                // weights, which were just checked against the flow: compare to 1e-11 relative
                double[] uu = ut;
                double[] wx = SolvableModel.matVec(wt, x);
                double f = kappa * MlpKernel.dot(uu, wx);
                assertEquals(f, m.output(t), 1e-11 * Math.max(1, Math.abs(m.ntk(t))));
                double xx = MlpKernel.dot(x, x);
                double ntk = kappa * kappa * (etaU * MlpKernel.dot(wx, wx) + etaW * MlpKernel.dot(uu, uu) * xx);
                assertEquals(ntk, m.ntk(t), 1e-11 * Math.max(1, Math.abs(m.ntk(t))));
                assertEquals(ntk, m.ntkOfOutput(f), 1e-11 * Math.max(1, Math.abs(m.ntk(t))));
                double zeta = MlpKernel.dot(uu, wx) / Math.sqrt(MlpKernel.dot(uu, uu) * MlpKernel.dot(wx, wx));
                assertEquals(zeta, m.alignment(t), 1e-11 * Math.max(1, Math.abs(m.ntk(t))));
                double[] norms = m.norms(f);
                assertEquals(MlpKernel.dot(uu, uu), norms[0], 1e-11 * Math.max(1, Math.abs(m.ntk(t))));
                assertEquals(MlpKernel.dot(wx, wx), norms[1], 1e-11 * Math.max(1, Math.abs(m.ntk(t))));
            }
            assertEquals(y, m.output(Double.POSITIVE_INFINITY), 1e-12);
            assertEquals(1 / (2 * m.tau()), m.ntk(Double.POSITIVE_INFINITY), 1e-12);
        }
    }

    @Test
    void finalAlignmentDoesNotDependOnLearningRateRatio() {
        // derived from eq. (21), contradicting the paper's text on the learning-rate ratio (eqs. 20–24):
        // ζ∞ = y/√(y² + κ²D²), D independent of η
        double ref = new SolvableModel(U0, W0, X, 1.0, 1.0, 1.0, 1.0).finalAlignment();
        for (double ratio : new double[] {0.01, 15, 100}) {
            assertEquals(ref, new SolvableModel(U0, W0, X, 1.0, 1.0, ratio, 1.0).finalAlignment(), 1e-12);
        }
    }

    @Test
    void exactGdRecursionMatchesPlainGradientDescent() {
        // plain GD on (u, W) with step rates η_u, η_W is reproduced by the scalar recursion to rounding
        double y = 1.0;
        double kappa = 1.0;
        double etaU = 0.1;
        double etaW = 0.05;
        SolvableModel m = new SolvableModel(U0, W0, X, y, kappa, etaU, etaW);
        int steps = 60;
        SolvableModel.GdTrajectory traj = m.gradientDescent(steps);
        double[] u = U0.clone();
        double[][] w = {W0[0].clone(), W0[1].clone(), W0[2].clone()};
        for (int k = 0; k <= steps; k++) {
            double[] wx = SolvableModel.matVec(w, X);
            double f = kappa * MlpKernel.dot(u, wx);
            double zeta = MlpKernel.dot(u, wx) / Math.sqrt(MlpKernel.dot(u, u) * MlpKernel.dot(wx, wx));
            assertEquals(f, traj.output()[k], 1e-12, "step " + k);
            assertEquals(zeta, traj.alignment()[k], 1e-12, "step " + k);
            double r = f - y;
            double[] un = new double[3];
            for (int i = 0; i < 3; i++) {
                un[i] = u[i] - 2 * etaU * kappa * r * wx[i];
                for (int j = 0; j < 2; j++) {
                    w[i][j] -= 2 * etaW * kappa * r * u[i] * X[j];
                }
            }
            u = un;
        }
        // A trained network: plain GD on (u, W) with step rates s·η_u, s·η_W for t/s steps approaches the
        // closed-form flow at time t with error O(s). Richardson for a first-order method: the error of the
        // s/2 run is ≈ |f_s − f_{s/2}|; tolerance 3× that estimate.
        SolvableModel flowModel = new SolvableModel(U0, W0, X, y, 1.0, 1.0, 0.5);
        double fCoarse = plainGd(0.01, 50, 1.0, 0.5, y);
        double fFine = plainGd(0.005, 100, 1.0, 0.5, y);
        double tolGd = 3 * Math.abs(fCoarse - fFine);
        assertTrue(tolGd < 1e-2, "GD step too coarse");
        assertEquals(flowModel.output(0.5), fFine, tolGd);
        assertTrue(Math.abs(flowModel.output(0.5) - fCoarse) > Math.abs(flowModel.output(0.5) - fFine));
    }

    /** f after {@code steps} plain GD steps with rates scale·η_u, scale·η_W on the golden instance (κ = 1). */
    static double plainGd(double scale, int steps, double etaU, double etaW, double y) {
        double[] u = U0.clone();
        double[][] w = {W0[0].clone(), W0[1].clone(), W0[2].clone()};
        for (int k = 0; k < steps; k++) {
            double[] wx = SolvableModel.matVec(w, X);
            double r = MlpKernel.dot(u, wx) - y;
            double[] un = new double[3];
            for (int i = 0; i < 3; i++) {
                un[i] = u[i] - 2 * scale * etaU * r * wx[i];
                for (int j = 0; j < 2; j++) {
                    w[i][j] -= 2 * scale * etaW * r * u[i] * X[j];
                }
            }
            u = un;
        }
        return MlpKernel.dot(u, SolvableModel.matVec(w, X));
    }

    @Test
    void saddleOfProposition1() {
        // q₀ = 0 exactly: η_u = η_W = 1, ‖x‖ = 1, u₀ = W₀x. y = −1 converges to the saddle f → 0; y = +1 to f = y.
        // RK4 at dt = 1e-3 over t = 3 on O(1) rates: error O(dt⁴) ≈ 1e-12, tolerance 1e-9.
        double[] x = {1.0, 0.0};
        double[][] w = {{0.6, 0.2}, {-0.3, 0.1}};
        double[] u = {0.6, -0.3};
        SolvableModel down = new SolvableModel(u, w, x, -1, 1, 1, 1);
        assertEquals(0.0, down.bigQ(), 0);
        double[] s = Rk4.integrate(flow(2, x, -1, 1, 1, 1), pack(u, w), 0, 3, 3000);
        double fRk = s[0] * (s[2] * 1) + s[1] * (s[4] * 1);
        assertEquals(fRk, down.output(3), 1e-9);
        assertTrue(down.output(50) < 1e-6 && down.output(50) >= 0);
        SolvableModel up = new SolvableModel(u, w, x, 1, 1, 1, 1);
        assertEquals(1.0, up.output(50), 1e-9);
    }

    @Test
    void phaseClassifierReproducesAllTwentyLabelsOfTable1() {
        String[] names = {"ntk", "mean-field", "xavier", "kaiming", "lazy"};
        PhaseClassifier.Phase k = PhaseClassifier.Phase.KERNEL;
        PhaseClassifier.Phase f = PhaseClassifier.Phase.FEATURE_LEARNING;
        PhaseClassifier.Phase z = PhaseClassifier.Phase.FROZEN;
        PhaseClassifier.Phase u = PhaseClassifier.Phase.UNSTABLE;
        PhaseClassifier.Phase[] plain = {k, z, f, u, u};
        PhaseClassifier.Phase[] cor1 = {k, f, f, k, k};
        PhaseClassifier.Phase[] cor2 = {f, f, f, f, f};
        PhaseClassifier.Phase[] cor3 = {k, k, k, k, k};
        double[] eta1 = {0, 1, 0, -1, -2};
        double[][] cor2Exp = {{1, -1}, {1, -1}, {0, 0}, {1, -1}, {0, 0}};
        double[] eta3 = {0, 0, -2, -1, -2};
        var presets = PhaseClassifier.table1Presets();
        for (int i = 0; i < 5; i++) {
            PhaseClassifier.Exponents e = presets.get(names[i]);
            assertEquals(plain[i], PhaseClassifier.classify(e), names[i] + " plain");
            PhaseClassifier.Exponents c1 = PhaseClassifier.corollary1(e);
            assertEquals(eta1[i], c1.cU(), 1e-12, names[i] + " η Cor 1");
            assertEquals(cor1[i], PhaseClassifier.classify(c1), names[i] + " Cor 1");
            PhaseClassifier.Exponents c2 = PhaseClassifier.corollary2(e);
            assertEquals(cor2Exp[i][0], c2.cU(), 1e-12);
            assertEquals(cor2Exp[i][1], c2.cKappa(), 1e-12);
            assertEquals(cor2[i], PhaseClassifier.classify(c2), names[i] + " Cor 2");
            PhaseClassifier.Exponents c3 =
                    PhaseClassifier.corollary3(e, PhaseClassifier.table1Corollary3Kappa(names[i]));
            assertEquals(eta3[i], c3.cU(), 1e-12, names[i] + " η Cor 3");
            assertEquals(cor3[i], PhaseClassifier.classify(c3), names[i] + " Cor 3");
        }
    }

    @Test
    void kernelVersusFeatureLearningAtLargeWidth() {
        // Xu & Ziyin §3 / Table 1: NTK scaling (κ = d^{-1/2}, η = 1) has relative NTK change O(1/d); mean-field
        // with η = d (κ = 1/d) has ζ∞ → 1/√2 and relative change → √2 − 1. Mean over 10 seeds at d = 2000;
        // the per-seed fluctuation is O(d^{-1/2}) ≈ 0.02, so the tolerance on the mean is 0.03.
        int d = 2000;
        double ntkChange = 0;
        double mfZeta = 0;
        double mfChange = 0;
        int seeds = 10;
        double[] x = {1.0};
        for (int s = 0; s < seeds; s++) {
            SplittableRandom r = new SplittableRandom(300 + s);
            double[] u = new double[d];
            double[][] w = new double[d][1];
            for (int i = 0; i < d; i++) {
                u[i] = r.nextGaussian();
                w[i][0] = r.nextGaussian();
            }
            ntkChange += new SolvableModel(u, w, x, 1, 1 / Math.sqrt(d), 1, 1).relativeNtkChange() / seeds;
            SolvableModel mf = new SolvableModel(u, w, x, 1, 1.0 / d, d, d);
            mfZeta += mf.finalAlignment() / seeds;
            mfChange += mf.relativeNtkChange() / seeds;
        }
        assertTrue(Math.abs(ntkChange) < 20.0 / d, "NTK-scaling change " + ntkChange);
        assertEquals(1 / Math.sqrt(2), mfZeta, 0.03);
        assertEquals(Math.sqrt(2) - 1, mfChange, 0.03);
    }
}
