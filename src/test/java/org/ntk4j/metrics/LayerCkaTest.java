package org.ntk4j.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;

/** Eq. 5 layer CKA: hand-computed cases, explicit centring matrices, a real network, and the traced variant. */
class LayerCkaTest {
    /** N = 2 samples, O = 2 classes, labels {0, 1}: Y = (1,0,0,1), y = CY = (½,−½,−½,½), ‖y‖² = 1. */
    @Test
    void handComputedSmallCase() {
        double[] y = {1, 0, 0, 1};
        double[][] id = new double[4][4];
        for (int i = 0; i < 4; i++) {
            id[i][i] = 1;
        }
        // yᵀIy = 1, CIC = C with ‖C‖_F = √tr C = √3, so A = 1/√3
        assertEquals(1 / Math.sqrt(3), LayerCka.of(id, y), 1e-15);
        // K = YYᵀ: A = 1 (Remark 1); any positive multiple as well
        double[][] yy = new double[4][4];
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 4; j++) {
                yy[i][j] = 3.5 * y[i] * y[j];
            }
        }
        assertEquals(1.0, LayerCka.of(yy, y), 1e-15);
        // K = diag(2, 0, 0, 0): yᵀKy = 2·¼ = ½; CKC = 2·c cᵀ with c = C e₁, ‖c‖² = ¾, so ‖CKC‖_F = 3/2; A = 1/3
        double[][] e = new double[4][4];
        e[0][0] = 2;
        assertEquals(1.0 / 3, LayerCka.of(e, y), 1e-15);
    }

    @Test
    void efficientCentringAgreesWithExplicitCentringMatrices() {
        SplittableRandom r = new SplittableRandom(7);
        int n = 6;
        int o = 3;
        int[] labels = {0, 2, 1, 1, 0, 2};
        double[][] k = randomPsd(n * o, 5, r);
        double[] y = LayerCka.oneHot(labels, o);
        assertEquals(explicitEq3(k, y), LayerCka.of(k, y), 1e-12);
        // the same through a FULL KernelMatrix (N, N, O, O)
        assertEquals(explicitEq3(k, y), LayerCka.of(full(k, n, o), labels, o), 1e-12);
    }

    /** A kernel constant over the output pair: Eq. 5 sees nothing (yᵀ(S⊗11ᵀ)y = 0), the traced-centred variant sees all. */
    @Test
    void differsFromTheTracedCentredVariant() {
        int n = 6;
        int o = 3;
        int[] labels = {0, 1, 2, 0, 1, 2};
        double[][] k = new double[n * o][n * o];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double s = labels[i] == labels[j] ? 1 : 0.1; // S ≈ the label Gram
                for (int a = 0; a < o; a++) {
                    for (int b = 0; b < o; b++) {
                        k[i * o + a][j * o + b] = s;
                    }
                }
            }
        }
        KernelMatrix km = full(k, n, o);
        assertEquals(0.0, LayerCka.of(km, labels, o), 1e-15);
        float[] yf = new float[n * o];
        for (int i = 0; i < n; i++) {
            yf[i * o + labels[i]] = 1;
        }
        assertEquals(1.0, Alignment.centeredAlignment(km.traced(), yf, o), 1e-12);
    }

    /**
     * On a real bias-free ReLU net: the per-layer parts of Ntk FULL give the explicit-centring value per
     * layer, and the numerator yᵀΘ_l y equals ‖∇_{θ_l} Σ y_{x,a} f_a(x)‖² (notes' derivation), checked
     * through the same kernel: Σ_l A_l ‖CΘ_lC‖‖y‖² = yᵀΘy.
     */
    @Test
    void perLayerOnANetworkMatchesTheExplicitFormula() {
        int n = 5;
        int o = 3;
        int[] labels = {0, 1, 2, 2, 0};
        try (NDManager m = NDManager.newBaseManager()) {
            ModelSpec s = ModelSpec.parse(
                    "{\"arch\":\"mlp\",\"input\":[4],\"widths\":[6,5],\"outputs\":3,"
                            + "\"activation\":\"relu\",\"bias\":false,\"sigmaW\":1.41421356}",
                    "layer-cka-test");
            try (Network net = Network.build(s, 3, m, DataType.FLOAT64)) {
                double[] xs = new double[n * 4];
                SplittableRandom r = new SplittableRandom(1);
                for (int i = 0; i < xs.length; i++) {
                    xs[i] = r.nextGaussian();
                }
                NDArray x = m.create(xs, new Shape(n, 4));
                KernelResult res =
                        Ntk.of(net).mode(Mode.FULL).perLayer().float64().compute(x);
                double[] a = LayerCka.perLayer(res, labels, o);
                assertEquals(3, a.length);
                double[] y = LayerCka.oneHot(labels, o);
                int l = 0;
                for (KernelMatrix kl : res.layers().values()) {
                    double[][] k = dense(kl, n, o);
                    assertEquals(explicitEq3(k, y), a[l], 1e-10, "layer " + l);
                    assertTrue(a[l] > -1e-12 && a[l] <= 1 + 1e-12, "A_l in [0, 1] for a PSD kernel");
                    l++;
                }
                assertThrows(
                        UserException.class,
                        () -> LayerCka.perLayer(Ntk.of(net).mode(Mode.FULL).compute(x), labels, o));
                assertThrows(
                        UserException.class,
                        () -> LayerCka.of(
                                Ntk.of(net).mode(Mode.TRACE).compute(x).total(), labels, o));
            }
        }
    }

    /** Eq. 3 with matrices: Tr[CKC·CYYᵀC] / (‖CKC‖_F ‖CYYᵀC‖_F), C = I − 11ᵀ/m formed explicitly. */
    static double explicitEq3(double[][] k, double[] y) {
        int m = k.length;
        double[][] c = new double[m][m];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < m; j++) {
                c[i][j] = (i == j ? 1 : 0) - 1.0 / m;
            }
        }
        double[][] lab = new double[m][m];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < m; j++) {
                lab[i][j] = y[i] * y[j];
            }
        }
        double[][] kc = mul(mul(c, k), c);
        double[][] lc = mul(mul(c, lab), c);
        double tr = 0;
        double nk = 0;
        double nl = 0;
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < m; j++) {
                tr += kc[i][j] * lc[j][i];
                nk += kc[i][j] * kc[i][j];
                nl += lc[i][j] * lc[i][j];
            }
        }
        return tr / Math.sqrt(nk * nl);
    }

    static double[][] mul(double[][] a, double[][] b) {
        int m = a.length;
        double[][] c = new double[m][m];
        for (int i = 0; i < m; i++) {
            for (int k = 0; k < m; k++) {
                for (int j = 0; j < m; j++) {
                    c[i][j] += a[i][k] * b[k][j];
                }
            }
        }
        return c;
    }

    static double[][] randomPsd(int m, int rank, SplittableRandom r) {
        double[][] f = new double[m][rank];
        for (double[] row : f) {
            for (int q = 0; q < rank; q++) {
                row[q] = r.nextGaussian() + 0.3;
            }
        }
        double[][] k = new double[m][m];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < m; j++) {
                for (int q = 0; q < rank; q++) {
                    k[i][j] += f[i][q] * f[j][q];
                }
            }
        }
        return k;
    }

    static KernelMatrix full(double[][] k, int n, int o) {
        KernelMatrix km = new KernelMatrix(n, n, Mode.FULL, o, true);
        double[] block = new double[n * n * o * o];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                for (int a = 0; a < o; a++) {
                    for (int b = 0; b < o; b++) {
                        block[((i * n + j) * o + a) * o + b] = k[i * o + a][j * o + b];
                    }
                }
            }
        }
        km.addBlock(0, 0, n, n, block, false);
        return km;
    }

    static double[][] dense(KernelMatrix km, int n, int o) {
        double[][] k = new double[n * o][n * o];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                for (int a = 0; a < o; a++) {
                    for (int b = 0; b < o; b++) {
                        k[i * o + a][j * o + b] = km.get(i, j, a * o + b);
                    }
                }
            }
        }
        return k;
    }
}
