package org.ntk4j.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Initializations;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.theory.LinearNetworks;

/**
 * A deep linear network built and trained by ntk4j (Network + LossFunction + UpdateRule, full-batch GD on
 * whitened inputs) against the balanced dynamics of Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, in the
 * corrected form of eq. 39 (the printed equation drops the factor L): c(t) = β̂·w_eff(t) obeys ċ = L c^{2−2/L}(s − c)
 * (theory.LinearNetworks.deepScale).
 *
 * <p>Tolerance: GD with step η approximates the flow with an O(η) error, so the error at η/2 is
 * about half the error at η (checked), and the Richardson extrapolation 2c_{η/2} − c_η is O(η²):
 * with η = 0.02 and |c̈| = O(s) that is ≲ 1e-3·s.
 */
class LinearNetworkDynamicsTest {
    static final int D = 12;
    static final int L = 3;
    static final double S = 1.0;
    static final double U0 = 0.3;
    static final double T = 4.0;

    @Test
    void alignedBalancedInitIsBalancedAndComputesTheRankOneMap() {
        try (NDManager m = NDManager.newBaseManager();
                Network net = build(m)) {
            double[] beta = beta();
            Initializations.alignedBalanced(net, U0, beta, null, 3);
            List<Param> w = net.trainableParams();
            for (int l = 0; l + 1 < w.size(); l++) {
                NDArray upper = w.get(l + 1).value();
                NDArray lower = w.get(l).value();
                double[] a = upper.transpose().matMul(upper).toDoubleArray();
                double[] b = lower.matMul(lower.transpose()).toDoubleArray();
                for (int i = 0; i < a.length; i++) {
                    assertEquals(b[i], a[i], 1e-14, "W^{l+1}ᵀW^{l+1} = W^l W^lᵀ at l = " + (l + 1));
                }
            }
            assertEquals(Math.pow(U0, L), c(net, beta), 1e-14);
        }
    }

    @Test
    void gradientDescentFollowsTheCorrectedBalancedOde() {
        double exact = LinearNetworks.deepScale(T, S, Math.pow(U0, L), L, 4000);
        double coarse = train(0.02);
        double fine = train(0.01);
        double eCoarse = Math.abs(coarse - exact);
        double eFine = Math.abs(fine - exact);
        assertTrue(exact > 0.3 && exact < 0.99, "the run should be mid-transition, c(T) = " + exact);
        assertTrue(eFine < 0.7 * eCoarse, "first-order convergence in the step: " + eCoarse + " -> " + eFine);
        assertEquals(exact, 2 * fine - coarse, 1e-3 * S, "Richardson-extrapolated GD vs the ODE");
    }

    static Network build(NDManager m) {
        ModelSpec spec = ModelSpec.parse(
                "{\"arch\":\"linear\",\"input\":[" + D + "],\"widths\":[" + D + "," + D + "],\"outputs\":1}", "test");
        return Network.build(spec, 1, m, DataType.FLOAT64);
    }

    static double[] beta() {
        Random r = new Random(9);
        double[] b = new double[D];
        for (int i = 0; i < D; i++) {
            b[i] = r.nextGaussian();
        }
        return b;
    }

    /** c = β̂·w_eff with w_eff = W^L ⋯ W^1. */
    static double c(Network net, double[] beta) {
        NDArray weff = null;
        for (Param p : net.trainableParams()) {
            weff = weff == null ? p.value() : p.value().matMul(weff);
        }
        double[] w = weff.toDoubleArray();
        double n = 0;
        double dot = 0;
        for (int i = 0; i < D; i++) {
            n += beta[i] * beta[i];
            dot += beta[i] * w[i];
        }
        return dot / Math.sqrt(n);
    }

    /** Full-batch GD to time T on whitened inputs X = √P·I (XᵀX/P = I), y = s·β̂·x. */
    static double train(double lr) {
        double[] beta = beta();
        double norm = Math.sqrt(java.util.Arrays.stream(beta).map(v -> v * v).sum());
        try (NDManager m = NDManager.newBaseManager();
                Network net = build(m)) {
            Initializations.alignedBalanced(net, U0, beta, null, 3);
            double[] x = new double[D * D];
            double[] y = new double[D];
            for (int i = 0; i < D; i++) {
                x[i * D + i] = Math.sqrt(D);
                y[i] = S * Math.sqrt(D) * beta[i] / norm;
            }
            NDArray xs = Module.create64(m, x, new Shape(D, D));
            NDArray ys = Module.create64(m, y, new Shape(D, 1));
            TrainSpec.Builder b = TrainSpec.builder();
            b.optimizer = "sgd";
            b.lr = lr;
            b.loss = "mse";
            TrainSpec spec = b.validate("test");
            UpdateRule opt = new UpdateRule(spec, net.trainableParams(), m);
            int steps = (int) Math.round(T / lr);
            for (int k = 0; k < steps; k++) {
                try (NDScope scope = new NDScope()) {
                    Forward ctx = Forward.train(m);
                    try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                        gc.backward(LossFunction.MSE.evaluate(net.forward(xs, ctx), ys, ctx));
                    }
                    opt.step(lr);
                }
            }
            return c(net, beta);
        }
    }

    /**
     * The solvable model of Xu &amp; Ziyin, When Does Feature Learning Happen? f = κ uᵀWx (theory.SolvableModel,
     * closed-form gradient flow of L = (f − y)² with layer rates η_u, η_W) against the same two-layer linear network
     * built by ntk4j and trained with its UpdateRule: per-layer learning rates 2η_u·h, 2η_W·h (ntk4j's MSE is
     * ½(f − y)²) for t/h steps. GD is first order in h: the h/2 run must be closer to the flow, and
     * the Richardson extrapolation 2f_{h/2} − f_h within 1e-4 of the closed form.
     */
    @Test
    void solvableModelClosedFormMatchesATrainedNtk4jNetwork() {
        double[] u0 = {0.5, -0.3, 0.2};
        double[][] w0 = {{0.4, -0.1}, {0.2, 0.3}, {-0.5, 0.25}};
        double[] x = {1.0, 0.5};
        double y = 1.0;
        double kappa = 1.3;
        double etaU = 1.0;
        double etaW = 0.5;
        double t = 0.5;
        double exact = new org.ntk4j.theory.SolvableModel(u0, w0, x, y, kappa, etaU, etaW).output(t);
        double coarse = trainSolvable(u0, w0, x, y, kappa, etaU, etaW, t, 0.01);
        double fine = trainSolvable(u0, w0, x, y, kappa, etaU, etaW, t, 0.005);
        assertTrue(Math.abs(fine - exact) < Math.abs(coarse - exact), "GD converges to the flow as h → 0");
        assertEquals(exact, 2 * fine - coarse, 1e-4, "closed form " + exact + ", GD " + coarse + " / " + fine);
    }

    static double trainSolvable(
            double[] u0,
            double[][] w0,
            double[] x,
            double y,
            double kappa,
            double etaU,
            double etaW,
            double t,
            double h) {
        ModelSpec spec = ModelSpec.parse(
                "{\"arch\":\"linear\",\"input\":[2],\"widths\":[3],\"outputs\":1," + "\"outputScale\":" + kappa + "}",
                "test");
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(spec, 0, m, DataType.FLOAT64)) {
            List<Param> p = net.trainableParams();
            double[] w = new double[6];
            for (int i = 0; i < 3; i++) {
                w[2 * i] = w0[i][0];
                w[2 * i + 1] = w0[i][1];
            }
            p.get(0).set(Module.create64(m, w, new Shape(3, 2)));
            p.get(1).set(Module.create64(m, u0, new Shape(1, 3)));
            NDArray xs = Module.create64(m, x, new Shape(1, 2));
            NDArray ys = Module.create64(m, new double[] {y}, new Shape(1, 1));
            TrainSpec.Builder b = TrainSpec.builder();
            b.optimizer = "sgd";
            b.lr = 2 * h;
            b.loss = "mse";
            TrainSpec ts = b.validate("test");
            UpdateRule opt = new UpdateRule(ts, p, m);
            opt.setLrMultiplier(0, etaW);
            opt.setLrMultiplier(1, etaU);
            int steps = (int) Math.round(t / h);
            for (int k = 0; k < steps; k++) {
                try (NDScope scope = new NDScope()) {
                    Forward ctx = Forward.train(m);
                    try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                        gc.backward(LossFunction.MSE.evaluate(net.forward(xs, ctx), ys, ctx));
                    }
                    opt.step(ts.lr());
                }
            }
            return org.ntk4j.testing.FiniteDifferences.eval(net, xs, m)[0];
        }
    }
}
