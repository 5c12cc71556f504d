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
        return align(k, gram(y, k.length, outputs));
    }

    /** Centred alignment: both K and YYᵀ are centred by H = I − 11ᵀ/n first. */
    public static double centeredAlignment(double[][] k, float[] y, int outputs) {
        return align(center(k), center(gram(y, k.length, outputs)));
    }

    static double[][] gram(float[] y, int n, int o) {
        double[][] g = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int a = 0; a < o; a++) {
                    s += (double) y[i * o + a] * y[j * o + a];
                }
                g[i][j] = s;
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
