package org.ntk4j.kernel.factor;

import ai.djl.ndarray.NDArray;

/**
 * Row factors D (n, O, k) of one tile with the views their Gram {@link Grams#outputGram(NDArray, NDArray, Mode)}
 * reads, made on first use and kept for every later tile pair (each view made per pair is one more engine call).
 * The Gram is the same sequence of products as {@link Grams#outputGram(NDArray, NDArray, Mode)}, so the same values
 * bit for bit.
 */
public final class RowViews {
    private final NDArray d;
    private final long n;
    private final long o;
    private final long k;
    private NDArray flat;
    private NDArray flatT;
    private NDArray stacked;
    private NDArray stackedT;
    private NDArray byOutput;
    private NDArray byOutputT;

    /** @param d row factors (n, O, k), contiguous, in the tile's manager */
    public RowViews(NDArray d) {
        this.d = d;
        this.n = d.getShape().get(0);
        this.o = d.getShape().get(1);
        this.k = d.getShape().get(2);
    }

    /** The factors (n, O, k). */
    public NDArray rows() {
        return d;
    }

    /**
     * Σ_k D1[i,o,k] D2[j,p,k] reduced per {@code mode}: TRACE (n1, n2), DIAGONAL (n1, n2, O), FULL (n1, n2, O, O) —
     * DIAGONAL and FULL as views of a new product (the only array made).
     */
    public NDArray gram(RowViews other, Mode mode) {
        switch (mode) {
            case TRACE:
                return flat().matMul(other.flatT());
            case DIAGONAL:
                return byOutput().batchMatMul(other.byOutputT()).transpose(1, 2, 0);
            case FULL:
                return stacked()
                        .matMul(other.stackedT())
                        .reshape(n, o, other.n, o)
                        .transpose(0, 2, 1, 3);
            default:
                throw new IllegalStateException(mode.toString());
        }
    }

    private NDArray flat() {
        if (flat == null) {
            flat = EngineOps.keep(d.reshape(n, o * k));
        }
        return flat;
    }

    private NDArray flatT() {
        if (flatT == null) {
            flatT = EngineOps.keep(flat().transpose());
        }
        return flatT;
    }

    private NDArray stacked() {
        if (stacked == null) {
            stacked = EngineOps.keep(d.reshape(n * o, k));
        }
        return stacked;
    }

    private NDArray stackedT() {
        if (stackedT == null) {
            stackedT = EngineOps.keep(stacked().transpose());
        }
        return stackedT;
    }

    private NDArray byOutput() {
        if (byOutput == null) {
            byOutput = EngineOps.keep(d.transpose(1, 0, 2));
        }
        return byOutput;
    }

    private NDArray byOutputT() {
        if (byOutputT == null) {
            byOutputT = EngineOps.keep(d.transpose(1, 2, 0));
        }
        return byOutputT;
    }
}
