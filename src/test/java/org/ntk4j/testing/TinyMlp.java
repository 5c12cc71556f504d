package org.ntk4j.testing;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;

/**
 * A small float64 MLP on inputs of shape (2, 3), two hidden layers, for the kernel tests that check a path against
 * another or against finite differences: small enough for exact Jacobians, large enough that a dropped factor shows.
 *
 * @param width1 first hidden width
 * @param width2 second hidden width
 * @param outputs outputs O
 * @param activation the model spec's activation (tanh, relu, ...)
 * @param parameterization "ntk" or "standard"
 * @param sigmaW weight scale σ_w
 * @param sigmaB bias scale σ_b
 * @param bias whether the layers have biases
 */
public record TinyMlp(
        int width1,
        int width2,
        int outputs,
        String activation,
        String parameterization,
        double sigmaW,
        double sigmaB,
        boolean bias) {
    /** tanh, NTK parameterisation, widths 16 and 16, 3 outputs, σ_w 1.3, σ_b 0.5, biases. */
    public static final TinyMlp TANH_16 = new TinyMlp(16, 16, 3, "tanh", "ntk", 1.3, 0.5, true);

    /** The network with this architecture, initialised from {@code seed}, in float64 on {@code manager}. */
    public Network build(NDManager manager, long seed) {
        ModelSpec s = ModelSpec.parse(
                "{\"arch\":\"mlp\",\"input\":[2,3],\"widths\":[" + width1 + "," + width2 + "],\"outputs\":" + outputs
                        + ",\"activation\":\"" + activation + "\",\"parameterization\":\"" + parameterization
                        + "\",\"sigmaW\":" + sigmaW + ",\"sigmaB\":" + sigmaB + ",\"bias\":" + bias + "}",
                "test");
        return Network.build(s, seed, manager, DataType.FLOAT64);
    }

    /**
     * n inputs (n, 2, 3) of i.i.d. standard Gaussian entries drawn from {@code seed}, float64, in native memory of
     * {@code manager} (not a Java buffer).
     */
    public static NDArray inputs(NDManager manager, int n, long seed) {
        Random r = new Random(seed);
        double[] v = new double[n * 6];
        for (int i = 0; i < v.length; i++) {
            v[i] = r.nextGaussian();
        }
        try (NDArray host = manager.create(v, new Shape(n, 2, 3))) {
            return host.duplicate();
        }
    }
}
