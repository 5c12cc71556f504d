package org.ntk4j.data;

/**
 * A regression set with real-valued targets, for synthetic tasks (teachers, polynomials) where
 * {@link LabelledSet}'s integer class labels do not fit: inputs {@code x} (n×d, row-major) and targets
 * {@code y} (n×outputs, row-major), both float32. Immutable by convention (do not modify the arrays).
 */
public record RegressionData(String name, float[] x, int n, int d, float[] y, int outputs) {
    public RegressionData {
        if (n < 0 || d < 1 || outputs < 1) {
            throw new IllegalArgumentException(name + ": invalid sizes n=" + n + ", d=" + d + ", outputs=" + outputs);
        }
        if ((long) n * d != x.length) {
            throw new IllegalArgumentException(
                    name + ": x has " + x.length + " values, expected n·d = " + (long) n * d);
        }
        if ((long) n * outputs != y.length) {
            throw new IllegalArgumentException(
                    name + ": y has " + y.length + " values, expected n·outputs = " + (long) n * outputs);
        }
    }

    /** Input row i (a copy). */
    public float[] input(int i) {
        float[] r = new float[d];
        System.arraycopy(x, i * d, r, 0, d);
        return r;
    }

    /** Rows [from, to) as a new set (e.g. to split generated points into train and test). */
    public RegressionData rows(int from, int to) {
        if (from < 0 || to > n || from > to) {
            throw new IndexOutOfBoundsException("rows [" + from + ", " + to + ") outside [0, " + n + ")");
        }
        float[] xs = java.util.Arrays.copyOfRange(x, from * d, to * d);
        float[] ys = java.util.Arrays.copyOfRange(y, from * outputs, to * outputs);
        return new RegressionData(name, xs, to - from, d, ys, outputs);
    }

    /** Same targets, new inputs (e.g. after whitening), possibly of a new dimension. */
    public RegressionData withInputs(float[] newX, int newD) {
        return new RegressionData(name, newX, n, newD, y, outputs);
    }
}
