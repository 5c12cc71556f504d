package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;

/** The Gram contractions every kernel path ends in (public so benchmarks can time them alone). */
public final class Grams {
    private Grams() {}

    /**
     * The output-gradient Gram Σ_k D1[i,o,k] D2[j,p,k] of row-factors D (n, O, k), reduced per
     * {@code mode}: TRACE (n1, n2), DIAGONAL (n1, n2, O), FULL (n1, n2, O, O). For per-sample
     * Jacobians J (n, O, P) this is the layer's kernel J1 J2ᵀ itself.
     */
    public static NDArray outputGram(NDArray d1, NDArray d2, Mode mode) {
        long n1 = d1.getShape().get(0);
        long n2 = d2.getShape().get(0);
        long o = d1.getShape().get(1);
        long k = d1.getShape().get(2);
        switch (mode) {
            case TRACE:
                return d1.reshape(n1, o * k).matMul(d2.reshape(n2, o * k).transpose());
            case DIAGONAL:
                return d1.transpose(1, 0, 2).batchMatMul(d2.transpose(1, 2, 0)).transpose(1, 2, 0);
            case FULL:
                return d1.reshape(n1 * o, k).matMul(d2.reshape(n2 * o, k).transpose())
                        .reshape(n1, o, n2, o).transpose(0, 2, 1, 3);
            default:
                throw new IllegalStateException(mode.toString());
        }
    }

    /** Broadcasts an (n1, n2) Gram to multiply a block of the given mode. */
    public static NDArray broadcastPairs(NDArray g, Mode mode) {
        switch (mode) {
            case TRACE: return g;
            case DIAGONAL: return g.expandDims(2);
            default: return g.expandDims(2).expandDims(3);
        }
    }
}
