package org.ntk4j.metrics;

import org.ntk4j.kernel.KernelMatrix;

/**
 * The host implementations the engine reductions replaced, kept verbatim as the reference they are tested against:
 * Java loops over a double[][] traced kernel (and, for the block structure, over every entry of a full kernel).
 */
final class LegacyMetrics {
    private LegacyMetrics() {}

    static double alignment(double[][] k, float[] y, int outputs) {
        int n = k.length;
        double ab = 0;
        double aa = 0;
        double bb = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double a = k[i][j];
                double b = gramEntry(y, i, j, outputs);
                ab += a * b;
                aa += a * a;
                bb += b * b;
            }
        }
        return ab / Math.sqrt(aa * bb);
    }

    static double centeredAlignment(double[][] k, float[] y, int outputs) {
        int n = k.length;
        double[] rowK = new double[n];
        double[] colK = new double[n];
        double[] rowG = new double[n];
        double[] colG = new double[n];
        double allK = 0;
        double allG = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double kv = k[i][j];
                double gv = gramEntry(y, i, j, outputs);
                rowK[i] += kv / n;
                colK[j] += kv / n;
                allK += kv / ((double) n * n);
                rowG[i] += gv / n;
                colG[j] += gv / n;
                allG += gv / ((double) n * n);
            }
        }
        double ab = 0;
        double aa = 0;
        double bb = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double a = k[i][j] - rowK[i] - colK[j] + allK;
                double b = gramEntry(y, i, j, outputs) - rowG[i] - colG[j] + allG;
                ab += a * b;
                aa += a * a;
                bb += b * b;
            }
        }
        return ab / Math.sqrt(aa * bb);
    }

    private static double gramEntry(float[] y, int i, int j, int o) {
        double s = 0;
        for (int a = 0; a < o; a++) {
            s += (double) y[i * o + a] * y[j * o + a];
        }
        return s;
    }

    /** Θ̄_d, Θ̄_c, Θ̄_n of Seleznova &amp; Kutyniok eq. (23). */
    static double[] labelAwareness(double[][] kernel, int[] labels) {
        int n = kernel.length;
        ClassPartition classes = ClassPartition.of(labels, n);
        double diagonal = 0;
        for (int i = 0; i < n; i++) {
            diagonal += kernel[i][i];
        }
        int count = classes.classes();
        double within = 0;
        double between = 0;
        for (int k = 0; k < count; k++) {
            double same = 0;
            double other = 0;
            for (int i : classes.members(k)) {
                for (int j = 0; j < n; j++) {
                    if (classes.classOf(j) != k) {
                        other += kernel[i][j];
                    } else if (j != i) {
                        same += kernel[i][j];
                    }
                }
            }
            double size = classes.size(k);
            within += same / (size * (size - 1));
            between += other / (size * (n - size));
        }
        return new double[] {diagonal / n, within / count, between / count};
    }

    /** γ_d, γ_c, γ_n, off-diagonal mean of a full kernel (Seleznova et al., Def. 3.1), entry by entry. */
    static double[] blockStructure(KernelMatrix kernel, int[] labels) {
        int n = kernel.rows();
        int o = kernel.outputs();
        ClassPartition classes = ClassPartition.of(labels, n);
        double diagonal = 0;
        double same = 0;
        double other = 0;
        double off = 0;
        long samePairs = 0;
        long otherPairs = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double trace = 0;
                for (int k = 0; k < o; k++) {
                    for (int s = 0; s < o; s++) {
                        if (k == s) {
                            trace += kernel.get(i, j, k * o + k);
                        } else {
                            off += Math.abs(kernel.get(i, j, k * o + s));
                        }
                    }
                }
                if (i == j) {
                    diagonal += trace;
                } else if (classes.classOf(i) == classes.classOf(j)) {
                    same += trace;
                    samePairs++;
                } else {
                    other += trace;
                    otherPairs++;
                }
            }
        }
        double offMean = o == 1 ? Double.NaN : off / ((double) n * n * o * (o - 1));
        return new double[] {
            diagonal / ((double) n * o), same / ((double) samePairs * o), other / ((double) otherPairs * o), offMean
        };
    }

    /** ‖K_t − K_0‖_F / ‖K_0‖_F and 1 − cos∠(K_1, K_2). */
    static double[] change(double[][] kt, double[][] k0) {
        double d = 0;
        double ab = 0;
        double aa = 0;
        double bb = 0;
        for (int i = 0; i < k0.length; i++) {
            for (int j = 0; j < k0[i].length; j++) {
                double e = kt[i][j] - k0[i][j];
                d += e * e;
                ab += kt[i][j] * k0[i][j];
                aa += kt[i][j] * kt[i][j];
                bb += k0[i][j] * k0[i][j];
            }
        }
        return new double[] {Math.sqrt(d / bb), 1 - ab / Math.sqrt(aa * bb)};
    }
}
