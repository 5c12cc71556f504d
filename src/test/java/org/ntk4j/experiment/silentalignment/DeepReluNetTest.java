package org.ntk4j.experiment.silentalignment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.ntk4j.experiment.support.Series;
import org.ntk4j.experiment.support.TwoLayerNet;

/**
 * {@link DeepReluNet}: its NTK against inner products of finite-difference parameter gradients ∇_θ f (depth 3), and
 * against {@link TwoLayerNet}'s analytic two-layer ReLU NTK with the same weights (depth 2); its GD step against the
 * finite-difference gradient of the loss.
 */
class DeepReluNetTest {
    private static final int D = 5;
    private static final int N = 4;

    private static double[] inputs(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] x = new double[n * D];
        for (int i = 0; i < x.length; i++) {
            x[i] = r.nextGaussian();
        }
        return x;
    }

    /** All parameters, in a fixed order (hidden layers, then the readout). */
    private static double[][] params(DeepReluNet net) {
        double[][] p = new double[net.depth][];
        System.arraycopy(net.w, 0, p, 0, net.depth - 1);
        p[net.depth - 1] = net.a;
        return p;
    }

    /** Central finite-difference gradient of f(x_i) with respect to every parameter. */
    private static double[] gradF(DeepReluNet net, double[] x, int i) {
        double h = 1e-6;
        java.util.List<Double> g = new java.util.ArrayList<>();
        for (double[] p : params(net)) {
            for (int k = 0; k < p.length; k++) {
                double v = p[k];
                p[k] = v + h;
                double up = net.forward(x, i * D);
                p[k] = v - h;
                double down = net.forward(x, i * D);
                p[k] = v;
                g.add((up - down) / (2 * h));
            }
        }
        return g.stream().mapToDouble(Double::doubleValue).toArray();
    }

    @Test
    void depthThreeNtkIsTheInnerProductOfParameterGradients() {
        DeepReluNet net = new DeepReluNet(3, N, D, 1.5, 11);
        double[] x = inputs(4, 3);
        double[][] k = net.ntk(x, 4, x, 4);
        for (int i = 0; i < 4; i++) {
            double[] gi = gradF(net, x, i);
            for (int j = 0; j < 4; j++) {
                double[] gj = gradF(net, x, j);
                double s = 0;
                for (int q = 0; q < gi.length; q++) {
                    s += gi[q] * gj[q];
                }
                assertEquals(s, k[i][j], 1e-6 * (1 + Math.abs(s)), i + "," + j);
            }
        }
    }

    @Test
    void depthTwoMatchesTheAnalyticTwoLayerNtk() {
        DeepReluNet net = new DeepReluNet(2, N, D, 1.0, 5);
        TwoLayerNet two = new TwoLayerNet(N, D, 1, 1, true);
        System.arraycopy(net.w[0], 0, two.w, 0, two.w.length);
        System.arraycopy(net.a, 0, two.u, 0, two.u.length);
        double[] x = inputs(6, 8);
        double[][] k = net.ntk(x, 6, x, 6);
        double[][] ref = two.ntk(x, Series.range(6), x, Series.range(6));
        for (int i = 0; i < 6; i++) {
            assertEquals(two.forward(x, i * D)[0], net.forward(x, i * D), 1e-12);
            for (int j = 0; j < 6; j++) {
                assertEquals(ref[i][j], k[i][j], 1e-12);
            }
        }
    }

    @Test
    void gdStepFollowsTheLossGradient() {
        DeepReluNet net = new DeepReluNet(3, N, D, 1.5, 2);
        double[] x = inputs(5, 4);
        double[] y = {1, -1, 1, 1, -1};
        double[][] before = params(net);
        double[][] copy = new double[before.length][];
        double[][] numeric = new double[before.length][];
        double h = 1e-6;
        for (int l = 0; l < before.length; l++) {
            copy[l] = before[l].clone();
            numeric[l] = new double[before[l].length];
            for (int k = 0; k < before[l].length; k++) {
                double v = before[l][k];
                before[l][k] = v + h;
                double up = net.loss(x, y);
                before[l][k] = v - h;
                double down = net.loss(x, y);
                before[l][k] = v;
                numeric[l][k] = (up - down) / (2 * h);
            }
        }
        double lr = 1e-3;
        net.gdStep(x, y, lr);
        double[][] after = params(net);
        for (int l = 0; l < after.length; l++) {
            for (int k = 0; k < after[l].length; k++) {
                double g = (copy[l][k] - after[l][k]) / lr;
                assertEquals(numeric[l][k], g, 1e-6 * (1 + Math.abs(g)), l + "," + k);
            }
        }
    }
}
