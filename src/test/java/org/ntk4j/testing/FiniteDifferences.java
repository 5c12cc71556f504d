package org.ntk4j.testing;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;

/**
 * The reference for the generic Jacobian path: Θ by central finite differences of f over every
 * trainable parameter entry, Θ[i][j][a][b] = Σ_θ (∂f_a(x_i)/∂θ)(∂f_b(x_j)/∂θ), with
 * ∂f/∂θ ≈ (f(θ+h) − f(θ−h))/2h. Float64 networks; error O(h²) from truncation plus O(ε/h) rounding.
 */
public final class FiniteDifferences {
    private FiniteDifferences() {}

    public static double[][][][] ntk(Network net, NDArray x1, NDArray x2, double h, NDManager manager) {
        int n1 = (int) x1.getShape().get(0);
        int n2 = (int) x2.getShape().get(0);
        int o = net.outputs();
        double[][][][] k = new double[n1][n2][o][o];
        for (Param p : net.trainableParams()) {
            double[] base = p.value().toDoubleArray();
            Shape shape = p.value().getShape();
            for (int e = 0; e < base.length; e++) {
                double[] plus = base.clone();
                double[] minus = base.clone();
                plus[e] += h;
                minus[e] -= h;
                p.set(Module.create64(manager, plus, shape));
                double[] f1p = eval(net, x1, manager);
                double[] f2p = eval(net, x2, manager);
                p.set(Module.create64(manager, minus, shape));
                double[] f1m = eval(net, x1, manager);
                double[] f2m = eval(net, x2, manager);
                for (int i = 0; i < n1; i++) {
                    for (int j = 0; j < n2; j++) {
                        for (int a = 0; a < o; a++) {
                            for (int b = 0; b < o; b++) {
                                double ga = (f1p[i * o + a] - f1m[i * o + a]) / (2 * h);
                                double gb = (f2p[j * o + b] - f2m[j * o + b]) / (2 * h);
                                k[i][j][a][b] += ga * gb;
                            }
                        }
                    }
                }
            }
            p.set(Module.create64(manager, base, shape));
        }
        return k;
    }

    /** f(x) in eval mode, as a flat row-major array (N·O). */
    public static double[] eval(Network net, NDArray x, NDManager manager) {
        try (NDManager m = manager.newSubManager()) {
            NDArray xx = x.duplicate();
            xx.attach(m);
            return net.forward(xx, Forward.eval(m)).toDoubleArray();
        }
    }
}
