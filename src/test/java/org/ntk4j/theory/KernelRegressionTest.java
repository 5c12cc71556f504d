package org.ntk4j.theory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.junit.jupiter.api.Test;

/** Closed-form infinite-width gradient flow vs RK4 integration of the ODE and vs a direct linear solve. */
class KernelRegressionTest {

    static double[][] points(int n, int d, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[][] x = new double[n][d];
        for (double[] row : x) {
            for (int i = 0; i < d; i++) {
                row[i] = r.nextGaussian();
            }
        }
        return x;
    }

    static DMatrixRMaj random(int r, int c, long seed) {
        SplittableRandom g = new SplittableRandom(seed);
        DMatrixRMaj m = new DMatrixRMaj(r, c);
        for (int i = 0; i < m.getNumElements(); i++) {
            m.data[i] = g.nextGaussian();
        }
        return m;
    }

    /** Integrates ḟ_train = −ηΘ(f_train − Y), ḟ_test = −ηΘ*(f_train − Y) jointly. */
    static double[] integrate(
            DMatrixRMaj th,
            DMatrixRMaj ts,
            DMatrixRMaj y,
            DMatrixRMaj f0,
            DMatrixRMaj f0s,
            double eta,
            double t,
            int steps) {
        int n = th.numRows;
        int m = ts.numRows;
        int k = y.numCols;
        double[] state = new double[(n + m) * k];
        System.arraycopy(f0.data, 0, state, 0, n * k);
        System.arraycopy(f0s.data, 0, state, n * k, m * k);
        return Rk4.integrate(
                (tt, s, ds) -> {
                    for (int i = 0; i < n + m; i++) {
                        for (int c = 0; c < k; c++) {
                            double acc = 0;
                            for (int j = 0; j < n; j++) {
                                double kij = i < n ? th.get(i, j) : ts.get(i - n, j);
                                acc += kij * (s[j * k + c] - y.get(j, c));
                            }
                            ds[i * k + c] = -eta * acc;
                        }
                    }
                },
                state,
                0,
                t,
                steps);
    }

    @Test
    void finiteTimeSolutionMatchesRk4() {
        double[][] x = points(10, 4, 1);
        double[][] xs = points(6, 4, 2);
        MlpKernel k =
                MlpKernel.builder().depth(3).sigmaW(Math.sqrt(2)).sigmaB(0.1).build();
        DMatrixRMaj th = k.kernels(x).ntk();
        DMatrixRMaj ts = k.kernels(xs, x).ntk();
        DMatrixRMaj y = random(10, 2, 3);
        DMatrixRMaj f0 = random(10, 2, 4);
        DMatrixRMaj f0s = random(6, 2, 5);
        double eta = 0.3;
        double t = 2.5;
        KernelRegression kr = new KernelRegression(th);
        DMatrixRMaj ftr = kr.trainPrediction(y, f0, eta, t);
        DMatrixRMaj fte = kr.testPrediction(ts, y, f0, f0s, eta, t);
        // RK4 global error is O(h⁴); estimate it by Richardson from steps N and 2N: err(2N) ≈ |y_N − y_2N|/15.
        // The tolerance is 10× that estimate plus rounding (1e-12).
        double[] a = integrate(th, ts, y, f0, f0s, eta, t, 400);
        double[] b = integrate(th, ts, y, f0, f0s, eta, t, 800);
        double richardson = 0;
        for (int i = 0; i < a.length; i++) {
            richardson = Math.max(richardson, Math.abs(a[i] - b[i]) / 15);
        }
        double tol = 10 * richardson + 1e-12;
        assertTrue(richardson < 1e-6, "RK4 step too coarse: " + richardson);
        int n = 10 * 2;
        for (int i = 0; i < n; i++) {
            assertEquals(b[i], ftr.data[i], tol, "train " + i);
        }
        for (int i = 0; i < 12; i++) {
            assertEquals(b[n + i], fte.data[i], tol, "test " + i);
        }
    }

    @Test
    void infiniteTimeInterpolatesAndEqualsLinearSolve() {
        double[][] x = points(8, 3, 11);
        double[][] xs = points(5, 3, 12);
        MlpKernel k = MlpKernel.builder()
                .activation(Activation.ERF)
                .depth(2)
                .sigmaW(1.2)
                .sigmaB(0.3)
                .build();
        DMatrixRMaj th = k.kernels(x).ntk();
        DMatrixRMaj ts = k.kernels(xs, x).ntk();
        DMatrixRMaj y = random(8, 1, 13);
        KernelRegression kr = new KernelRegression(th);
        DMatrixRMaj ftr = kr.trainPrediction(y, null, 1.0, Double.POSITIVE_INFINITY);
        DMatrixRMaj fte = kr.testPrediction(ts, y, null, null, 1.0, Double.POSITIVE_INFINITY);
        DMatrixRMaj alpha = new DMatrixRMaj(8, 1);
        CommonOps_DDRM.solve(th, y, alpha);
        DMatrixRMaj direct = new DMatrixRMaj(5, 1);
        CommonOps_DDRM.mult(ts, alpha, direct);
        // both routes are backward stable; the kernel's condition number here is < 1e4, so 1e-9 is generous
        for (int i = 0; i < 8; i++) {
            assertEquals(y.get(i), ftr.get(i), 1e-9);
        }
        for (int i = 0; i < 5; i++) {
            assertEquals(direct.get(i), fte.get(i), 1e-9);
        }
    }
}
