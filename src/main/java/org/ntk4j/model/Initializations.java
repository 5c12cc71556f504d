package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;
import java.util.List;
import java.util.Random;
import org.ntk4j.UserException;

/**
 * Special initialisations the linear-network theory needs (Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, eqs.
 * 10, 35–36; §3 "Balanced form" and §7.8): the aligned, balanced rank-one initialisation
 * <pre>W^l = √(η_l/η_L) · u₀ · r_{l+1} r_lᵀ  (l = 1..L),   r_1 = the given direction (e.g. the teacher β),</pre>
 * with r_2..r_L random unit vectors and r_{L+1} a random unit vector of the output space (1 for a
 * scalar output). For equal learning rates the layers are exactly balanced, W^{l+1}ᵀW^{l+1} = W^l W^lᵀ,
 * and the network computes f(x) = u₀^L r_{L+1} (r_1·x).
 */
public final class Initializations {
    private Initializations() {}

    /**
     * Sets the dense layers of a bias-free MLP or linear network to the aligned, balanced init.
     *
     * @param lrRatios η_l/η_L per layer (null: all 1)
     */
    public static void alignedBalanced(Network net, double u0, double[] direction, double[] lrRatios, long seed) {
        List<Module> layers = net.parameterLayers();
        int depth = layers.size();
        for (Module m : layers) {
            if (!(m instanceof Dense d) || d.bias() != null) {
                throw new UserException(
                        "aligned balanced init needs a bias-free MLP of dense layers; " + m.name() + " is not one");
            }
        }
        if (lrRatios != null && lrRatios.length != depth) {
            throw new UserException(
                    "aligned balanced init: " + lrRatios.length + " learning-rate ratios for " + depth + " layers");
        }
        Random rng = new Random(seed);
        double[] r = unit(direction);
        long in = ((Dense) layers.get(0)).weight().value().getShape().get(1);
        if (r.length != in) {
            throw new UserException(
                    "aligned balanced init: direction has " + r.length + " entries, the input has " + in);
        }
        for (int l = 0; l < depth; l++) {
            Dense d = (Dense) layers.get(l);
            int out = (int) d.weight().value().getShape().get(0);
            double[] next = out == 1 ? new double[] {1.0} : randomUnit(out, rng);
            double scale = u0 * Math.sqrt(lrRatios == null ? 1.0 : lrRatios[l]);
            double[] w = new double[out * r.length];
            for (int i = 0; i < out; i++) {
                for (int j = 0; j < r.length; j++) {
                    w[i * r.length + j] = scale * next[i] * r[j];
                }
            }
            NDArray v = Module.create64(d.weight().value().getManager(), w, new Shape(out, r.length))
                    .toType(d.weight().value().getDataType(), false);
            d.weight().set(v);
            r = next;
        }
    }

    static double[] unit(double[] v) {
        double n = 0;
        for (double x : v) {
            n += x * x;
        }
        n = Math.sqrt(n);
        if (n == 0) {
            throw new UserException("aligned balanced init: the direction is the zero vector");
        }
        double[] u = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            u[i] = v[i] / n;
        }
        return u;
    }

    static double[] randomUnit(int n, Random rng) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = rng.nextGaussian();
        }
        return unit(v);
    }
}
