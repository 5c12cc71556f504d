package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;

/**
 * The normalised sum of a vector's entries, (N, O) → (N, 1): g = (1/√O) Σ_o f_o. Its NTK is the pseudo-NTK
 * (1/O) J_Σ J_Σᵀ of Mohamadi, Bae &amp; Sutherland ("A Fast, Well-Founded Approximation to the Empirical Neural
 * Tangent Kernel", ICML 2023, arXiv 2206.12543); no parameters.
 */
public final class SummedOutputs extends Module {
    private final int outputs;

    public SummedOutputs(String name, int outputs) {
        super(name);
        this.outputs = outputs;
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        return new Shape(1);
    }

    @Override
    public Shape plan(Shape in, ParameterCount count) {
        return new Shape(1);
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        NDArray s = x.sum(new int[] {1}, true);
        return s.mul(ctx.scalar(1 / Math.sqrt(outputs), s));
    }
}
