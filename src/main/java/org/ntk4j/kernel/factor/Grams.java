package org.ntk4j.kernel.factor;

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
                return d1.reshape(n1 * o, k)
                        .matMul(d2.reshape(n2 * o, k).transpose())
                        .reshape(n1, o, n2, o)
                        .transpose(0, 2, 1, 3);
            default:
                throw new IllegalStateException(mode.toString());
        }
    }

    /**
     * The same Gram for row factors held per output, r[o] = D[:, o, :] (n, k): TRACE Σ_o r1[o] r2[o]ᵀ,
     * DIAGONAL stacked per o, FULL from the stacked (n, O, k) factors. Holding the O blocks apart lets a
     * builder keep each output's rows as computed, with no copy into a shared buffer.
     */
    public static NDArray outputGram(NDArray[] r1, NDArray[] r2, Mode mode) {
        switch (mode) {
            case TRACE: {
                NDArray sum = r1[0].matMul(r2[0].transpose());
                for (int o = 1; o < r1.length; o++) {
                    sum.addi(r1[o].matMul(r2[o].transpose()));
                }
                return sum;
            }
            case DIAGONAL: {
                ai.djl.ndarray.NDList blocks = new ai.djl.ndarray.NDList();
                for (int o = 0; o < r1.length; o++) {
                    blocks.add(r1[o].matMul(r2[o].transpose()));
                }
                return ai.djl.ndarray.NDArrays.stack(blocks, 2);
            }
            default:
                return outputGram(
                        ai.djl.ndarray.NDArrays.stack(new ai.djl.ndarray.NDList(r1), 1),
                        ai.djl.ndarray.NDArrays.stack(new ai.djl.ndarray.NDList(r2), 1),
                        mode);
        }
    }

    /** Broadcasts an (n1, n2) Gram to multiply a block of the given mode. */
    public static NDArray broadcastPairs(NDArray g, Mode mode) {
        switch (mode) {
            case TRACE:
                return g;
            case DIAGONAL:
                return g.expandDims(2);
            default:
                return g.expandDims(2).expandDims(3);
        }
    }
}
