package org.ntk4j.testing;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.List;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.model.Sequential;

/**
 * The reference for the generic Jacobian path: Θ by central finite differences of f over every
 * trainable parameter entry, Θ[i][j][a][b] = Σ_θ (∂f_a(x_i)/∂θ)(∂f_b(x_j)/∂θ), with
 * ∂f/∂θ ≈ (f(θ+h) − f(θ−h))/2h; and gradients of f w.r.t. an intermediate input (a layer's input, for
 * the feature ansatz). Float64 networks; error O(h²) from truncation plus O(ε/h) rounding.
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

    /**
     * ∂f_o(x_α)/∂a_j by central differences, where a is the input of child {@code index} of the
     * network's Sequential root (index = the number of children: a is the root's output, f = κ·a),
     * as g[α][o][j] with j over the flattened per-sample entries of a. Coordinate j of every sample
     * is perturbed at once: in eval mode each f(x_α) depends only on its own row. Float64 networks.
     */
    public static double[][][] inputGradients(Network net, NDArray x, int index, double h, NDManager manager) {
        if (!(net.root() instanceof Sequential)) {
            throw new IllegalArgumentException("input gradients need a Sequential root");
        }
        List<Module> mods = net.root().children();
        double kappa = net.spec().outputScale();
        int o = net.outputs();
        try (NDManager m = manager.newSubManager()) {
            NDArray a = x.duplicate();
            a.attach(m);
            Forward ctx = Forward.eval(m);
            for (int i = 0; i < index; i++) {
                a = mods.get(i).forward(a, ctx);
            }
            double[] base = a.toDoubleArray();
            Shape shape = a.getShape();
            int n = (int) shape.get(0);
            int d = base.length / n;
            double[][][] g = new double[n][o][d];
            for (int j = 0; j < d; j++) {
                double[] plus = base.clone();
                double[] minus = base.clone();
                for (int s = 0; s < n; s++) {
                    plus[s * d + j] += h;
                    minus[s * d + j] -= h;
                }
                double[] fp = tail(mods, index, Module.create64(m, plus, shape), ctx);
                double[] fm = tail(mods, index, Module.create64(m, minus, shape), ctx);
                for (int s = 0; s < n; s++) {
                    for (int c = 0; c < o; c++) {
                        g[s][c][j] = kappa * (fp[s * o + c] - fm[s * o + c]) / (2 * h);
                    }
                }
            }
            return g;
        }
    }

    private static double[] tail(List<Module> mods, int from, NDArray a, Forward ctx) {
        for (int i = from; i < mods.size(); i++) {
            a = mods.get(i).forward(a, ctx);
        }
        return a.toDoubleArray();
    }

    /** f(x) in eval mode, as a flat row-major array (N·O). */
    public static double[] eval(Network net, NDArray x, NDManager manager) {
        try (NDManager m = manager.newSubManager()) {
            NDArray xx = x.duplicate();
            xx.attach(m);
            return net.forward(xx, Forward.eval(m)).toDoubleArray();
        }
    }

    /** The largest entry-wise difference between a kernel and its finite-difference reference, and the largest entry of the reference. */
    public record Gap(double maxDiff, double maxRef) {
        /** maxDiff / maxRef. */
        public double relative() {
            return maxDiff / maxRef;
        }
    }

    /**
     * Compares a full kernel (entry (i, j, a·O + b)) with {@link #ntk}'s Θ[i][j][a][b] over every sample pair and
     * output pair of {@code fd}.
     */
    public static Gap gap(KernelMatrix k, double[][][][] fd) {
        double maxDiff = 0;
        double maxRef = 0;
        for (int i = 0; i < fd.length; i++) {
            for (int j = 0; j < fd[i].length; j++) {
                int o = fd[i][j].length;
                for (int a = 0; a < o; a++) {
                    for (int b = 0; b < o; b++) {
                        maxDiff = Math.max(maxDiff, Math.abs(k.get(i, j, a * o + b) - fd[i][j][a][b]));
                        maxRef = Math.max(maxRef, Math.abs(fd[i][j][a][b]));
                    }
                }
            }
        }
        return new Gap(maxDiff, maxRef);
    }
}
