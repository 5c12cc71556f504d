package org.ntk4j.metrics;

/**
 * Kernel–target alignment (Cristianini et al. 2002; Seleznova, NTK thesis eq. (2.63)):
 * <pre>A(K, Y) = ⟨K, YYᵀ⟩_F / (‖K‖_F · ‖YYᵀ‖_F)</pre>
 * and its centred form (Cortes et al. 2012) A(HKH, HYYᵀH) with H = I − 11ᵀ/n, which removes the
 * constant mode that dominates kernels of networks with biases. Y is n × O (e.g. one-hot rows).
 *
 * <p>The centred form on a traced n×n kernel is the <b>traced-centred alignment</b>: it is not the layer
 * CKA of Lou, Mingard and Hayou (Eq. 5 of "The Equilibrium Hypothesis"), which is defined on the full
 * (n·O)×(n·O) kernel of training points with one global centring; that one is {@link LayerCka}.
 */
public final class Alignment {
    private Alignment() {}

    /** Uncentred alignment of the n×n kernel K with targets Y (n rows of O values, row-major). */
    public static double alignment(double[][] k, float[] y, int outputs) {
        // YYᵀ entry by entry, not as an n×n copy (issue #11: the kernel job's memory)
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

    /** Centred alignment: both K and YYᵀ are centred by H = I − 11ᵀ/n first. */
    public static double centeredAlignment(double[][] k, float[] y, int outputs) {
        // the same sums as align(center(k), center(gram(y))) without the three n×n copies
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

    static double[][] gram(float[] y, int n, int o) {
        double[][] g = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                g[i][j] = gramEntry(y, i, j, o);
            }
        }
        return g;
    }

    /** HKH with H = I − 11ᵀ/n: subtract row and column means, add back the grand mean. */
    public static double[][] center(double[][] k) {
        int n = k.length;
        double[] row = new double[n];
        double[] col = new double[n];
        double all = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                row[i] += k[i][j] / n;
                col[j] += k[i][j] / n;
                all += k[i][j] / ((double) n * n);
            }
        }
        double[][] c = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                c[i][j] = k[i][j] - row[i] - col[j] + all;
            }
        }
        return c;
    }

    static double align(double[][] a, double[][] b) {
        double ab = 0;
        double aa = 0;
        double bb = 0;
        for (int i = 0; i < a.length; i++) {
            for (int j = 0; j < a.length; j++) {
                ab += a[i][j] * b[i][j];
                aa += a[i][j] * a[i][j];
                bb += b[i][j] * b[i][j];
            }
        }
        return ab / Math.sqrt(aa * bb);
    }
}
