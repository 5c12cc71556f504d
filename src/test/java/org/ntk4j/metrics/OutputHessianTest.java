package org.ntk4j.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;
import org.junit.jupiter.api.Test;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;

/**
 * The output-weighted Hessian H_v of "The Equilibrium Hypothesis" (§4): the central-difference products
 * against the exact Hessian of a two-layer bias-free ReLU net written out by hand
 * (∂²s/∂W₂[a,j]∂W₁[j,k] = Σ_x v_{x,a} 1[z_j(x) > 0] x_k, all other blocks 0), Lanczos against a dense
 * eigen-decomposition of that matrix, and Thm 6's identity H_v θ = (L−1)∇_θ(v·F) at depth 4.
 */
class OutputHessianTest {
    private static Network net(NDManager m, int depth, int width) {
        StringBuilder w = new StringBuilder();
        for (int l = 1; l < depth; l++) {
            w.append(l > 1 ? ", " : "").append(width);
        }
        return Network.build(
                ModelSpec.parse(
                        "{\"name\": \"t\", \"arch\": \"mlp\", \"input\": [3], \"widths\": [" + w + "], \"outputs\": 2,"
                                + " \"activation\": \"relu\", \"bias\": false, \"initializer\": \"gaussian\", \"sigmaW\": 1.4142}",
                        "test"),
                5,
                m,
                DataType.FLOAT64);
    }

    private static double[] random(int n, long seed) {
        Random r = new Random(seed);
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextGaussian();
        }
        return a;
    }

    @Test
    void productsMatchTheExactHessianOfATwoLayerNet() {
        int n = 5;
        int d = 3;
        int h = 4;
        int o = 2;
        try (NDManager m = NDManager.newBaseManager();
                Network net = net(m, 2, h)) {
            double[] xs = random(n * d, 1);
            double[] v = random(n * o, 2);
            NDArray x = m.create(xs, new Shape(n, d));
            OutputHessian hv = new OutputHessian(net, x, v, 1e-6);
            double[] theta = OutputHessian.parameters(net);
            assertEquals(h * d + o * h, theta.length);
            // exact Hessian, θ = (W1 row-major [j][k], W2 row-major [a][j])
            int p = theta.length;
            double[][] hess = new double[p][p];
            for (int a = 0; a < o; a++) {
                for (int j = 0; j < h; j++) {
                    for (int k = 0; k < d; k++) {
                        double s = 0;
                        for (int i = 0; i < n; i++) {
                            double z = 0;
                            for (int kk = 0; kk < d; kk++) {
                                z += theta[j * d + kk] * xs[i * d + kk];
                            }
                            s += z > 0 ? v[i * o + a] * xs[i * d + k] : 0;
                        }
                        int w2 = h * d + a * h + j;
                        int w1 = j * d + k;
                        hess[w2][w1] = s;
                        hess[w1][w2] = s;
                    }
                }
            }
            double[] u = random(p, 3);
            double[] got = hv.times(u);
            for (int r = 0; r < p; r++) {
                double want = 0;
                for (int c = 0; c < p; c++) {
                    want += hess[r][c] * u[c];
                }
                assertEquals(want, got[r], 1e-6, "H u, row " + r);
            }
            assertEquals(0.0, maxDiff(theta, OutputHessian.parameters(net)), "θ restored");
            double[] exact = hv.timesExact(u);
            double[] exact2 = hv.timesExact(u);
            for (int r = 0; r < p; r++) {
                double want = 0;
                for (int c = 0; c < p; c++) {
                    want += hess[r][c] * u[c];
                }
                assertEquals(want, exact[r], 1e-10, "double backward H u, row " + r);
                assertEquals(exact[r], exact2[r], 0.0, "repeatable (gradients zeroed between products)");
            }
            // Lanczos with as many steps as parameters: the exact spectrum
            DMatrixRMaj hm = new DMatrixRMaj(hess);
            EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(p, true, true);
            eig.decompose(hm);
            double[] ev = new double[p];
            for (int i = 0; i < p; i++) {
                ev[i] = eig.getEigenvalue(i).getReal();
            }
            java.util.Arrays.sort(ev);
            double top = Math.max(Math.abs(ev[0]), Math.abs(ev[p - 1]));
            OutputHessian.Eigen e = hv.top(3, p, 7);
            assertEquals(top, Math.abs(e.values()[0]), 1e-6);
            // the eigenvector: H q = λ q
            double[] hq = hv.times(e.vectors()[0]);
            for (int i = 0; i < p; i++) {
                assertEquals(e.values()[0] * e.vectors()[0][i], hq[i], 1e-5);
            }
            OutputHessian.Eigen ex = hv.exact(true).top(3, p, 7);
            assertEquals(top, Math.abs(ex.values()[0]), 1e-9, "Lanczos on double-backward products");
            double[] energy = OutputHessian.layerEnergy(net, e.vectors()[0]);
            assertEquals(1.0, energy[0] + energy[1], 1e-9);
        }
    }

    @Test
    void theorem6IdentityAtDepthFour() {
        try (NDManager m = NDManager.newBaseManager();
                Network net = net(m, 4, 6)) {
            NDArray x = m.create(random(7 * 3, 4), new Shape(7, 3));
            OutputHessian hv = new OutputHessian(net, x, random(7 * 2, 5), 1e-5);
            double[] theta = OutputHessian.parameters(net);
            double[] ht = hv.times(theta);
            double[] g = hv.gradient();
            for (int i = 0; i < theta.length; i++) {
                assertEquals(3 * g[i], ht[i], 1e-6 * (1 + Math.abs(g[i])), "H θ = (L−1)∇(v·F), coordinate " + i);
            }
        }
    }

    private static double maxDiff(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s = Math.max(s, Math.abs(a[i] - b[i]));
        }
        return s;
    }
}
