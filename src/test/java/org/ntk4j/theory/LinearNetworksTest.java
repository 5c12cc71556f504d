package org.ntk4j.theory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;
import org.junit.jupiter.api.Test;

/**
 * Atanasov, Bordelon &amp; Pehlevan, Silent Alignment: closed forms (with the errata corrected) vs RK4 gradient flow of
 * the actual linear networks.
 */
class LinearNetworksTest {

    static double[] unit(int d, long seed) {
        double[] b = MlpKernelTest.input(d, seed);
        double nb = Math.sqrt(MlpKernel.dot(b, b));
        for (int i = 0; i < d; i++) {
            b[i] /= nb;
        }
        return b;
    }

    static double[] eigenvalues(double[][] m) {
        DMatrixRMaj a = new DMatrixRMaj(m);
        EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(m.length, false, true);
        eig.decompose(a);
        double[] ev = new double[m.length];
        for (int i = 0; i < m.length; i++) {
            ev[i] = eig.getEigenvalue(i).getReal();
        }
        java.util.Arrays.sort(ev);
        return ev;
    }

    @Test
    void twoLayerOrderParametersAndHalfLossTime() {
        // D = 25, N = 10, s = 1, σ = 1e-3 (the paper's Fig. B.1a setting). Eqs. 27–28 are exact only up to O(σ²) and
        // the initial r₀/q₀ and off-β components; an independent run measured max|r − r_th| = 0.019 s here, so the
        // approximation tolerance is 0.05 s. RK4 at dt = 0.01 contributes < 1e-8. t½ tolerance 0.1.
        int d = 25;
        int n = 10;
        double s = 1;
        double[] beta = unit(d, 1);
        DeepLinearFlow net = new DeepLinearFlow(new int[] {d, n, 1}, new double[] {1, 1}, beta, s);
        double[] th = net.randomInit(1e-3, 2);
        double q0 = q(net, th, beta);
        double maxErr = 0;
        double l0 = net.loss(th);
        double tHalf = Double.NaN;
        double dt = 0.01;
        for (int k = 1; k <= 1500; k++) {
            double[] prev = th;
            th = net.flow(th, dt, 1);
            double t = k * dt;
            double[] qr = LinearNetworks.twoLayerOrderParameters(t, s, q0);
            maxErr = Math.max(maxErr, Math.abs(r(net, th, beta) - qr[1]));
            maxErr = Math.max(maxErr, Math.abs(q(net, th, beta) - qr[0]));
            if (Double.isNaN(tHalf) && net.loss(th) <= l0 / 2) {
                // linear interpolation inside the step
                double lp = net.loss(prev);
                double ln = net.loss(th);
                tHalf = t - dt + dt * (lp - l0 / 2) / (lp - ln);
            }
        }
        assertTrue(maxErr < 0.05 * s, "max |q,r − theory| = " + maxErr);
        assertEquals(tHalf, LinearNetworks.halfLossTime(s, q0 / 2), 0.1);
        // trained two-layer NTK: M = WᵀW + ‖a‖² I → s(ββᵀ + I); error O(σ²/s)
        double[][] m = net.ntkMatrix(th);
        for (int i = 0; i < d; i++) {
            for (int j = 0; j < d; j++) {
                assertEquals(s * (beta[i] * beta[j] + (i == j ? 1 : 0)), m[i][j], 1e-4);
            }
        }
        // final alignment on whitened data of rank D: 2/√(D + 3)
        double[][] x = whitenedData(d, 60, 3);
        double align = LinearNetworks.alignment(gram(x, m), targets(x, beta, s));
        assertEquals(2 / Math.sqrt(d + 3), align, 1e-4);
        assertEquals(LinearNetworks.finalAlignment(2, d), align, 1e-4);
    }

    static double q(DeepLinearFlow net, double[] th, double[] beta) {
        // q = ½(‖a‖² + ‖Wβ‖²)
        int d = net.n[0];
        int n = net.n[1];
        double a2 = 0;
        int o = net.offset(2);
        for (int i = 0; i < n; i++) {
            a2 += th[o + i] * th[o + i];
        }
        double[] wb = net.forward(th, 1, beta);
        return 0.5 * (a2 + MlpKernel.dot(wb, wb));
    }

    static double r(DeepLinearFlow net, double[] th, double[] beta) {
        return MlpKernel.dot(net.effective(th), beta);
    }

    /** P = 60 points in D dims with X Xᵀ/P = I (rows of an orthonormal frame scaled by √P). */
    static double[][] whitenedData(int d, int p, long seed) {
        DMatrixRMaj g = new DMatrixRMaj(p, d);
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
        for (int i = 0; i < g.getNumElements(); i++) {
            g.data[i] = r.nextGaussian();
        }
        var qr = DecompositionFactory_DDRM.qr(p, d);
        qr.decompose(g);
        DMatrixRMaj q = qr.getQ(null, true);
        double[][] x = new double[p][d];
        for (int i = 0; i < p; i++) {
            for (int j = 0; j < d; j++) {
                x[i][j] = Math.sqrt(p) * q.get(i, j);
            }
        }
        return x;
    }

    static DMatrixRMaj gram(double[][] x, double[][] m) {
        int p = x.length;
        DMatrixRMaj k = new DMatrixRMaj(p, p);
        DMatrixRMaj mm = new DMatrixRMaj(m);
        DMatrixRMaj xx = new DMatrixRMaj(x);
        DMatrixRMaj tmp = new DMatrixRMaj(p, m.length);
        CommonOps_DDRM.mult(xx, mm, tmp);
        CommonOps_DDRM.multTransB(tmp, xx, k);
        return k;
    }

    static double[] targets(double[][] x, double[] beta, double s) {
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = s * MlpKernel.dot(x[i], beta);
        }
        return y;
    }

    /** Balanced, aligned init W^l = u₀ r_{l+1} r_lᵀ with r_1 = β (the balanced init of the paper's App. D.1). */
    static double[] balancedInit(DeepLinearFlow net, double u0) {
        double[] th = new double[net.size()];
        int depth = net.depth();
        double[][] r = new double[depth + 1][];
        r[0] = net.beta;
        for (int l = 1; l < depth; l++) {
            r[l] = unit(net.n[l], 100 + l);
        }
        r[depth] = new double[] {1};
        for (int l = 1; l <= depth; l++) {
            int o = net.offset(l);
            for (int i = 0; i < net.n[l]; i++) {
                for (int j = 0; j < net.n[l - 1]; j++) {
                    th[o + i * net.n[l - 1] + j] = u0 * r[l][i] * r[l - 1][j];
                }
            }
        }
        return th;
    }

    @Test
    void deepScaleOdeWithFactorLMatchesBalancedNetwork() {
        // Exactly balanced, aligned init: the network's c(t) = β·w_eff solves the scalar ODE exactly, so the
        // only errors are the two RK4 discretisations (dt = 0.01 on the network, dt = 5e-4 on the scalar ODE;
        // O(h⁴) ≈ 1e-8). Tolerance 1e-6. The uncorrected ODE (no factor L) must miss by > 0.3.
        int d = 6;
        for (int depth : new int[] {3, 4}) {
            int[] widths = new int[depth + 1];
            widths[0] = d;
            for (int l = 1; l < depth; l++) {
                widths[l] = 5;
            }
            widths[depth] = 1;
            double s = 1.0;
            double[] beta = unit(d, 7);
            DeepLinearFlow net = new DeepLinearFlow(widths, fill(depth, 1), beta, s);
            double u0 = 0.3;
            double[] th = balancedInit(net, u0);
            double c0 = Math.pow(u0, depth);
            double maxWrongGap = 0;
            double[] cur = th;
            for (int k = 1; k <= 20; k++) {
                double t = 0.5 * k;
                cur = net.flow(cur, 0.5, 50);
                double cNet = MlpKernel.dot(net.effective(cur), beta);
                assertEquals(cNet, LinearNetworks.deepScale(t, s, c0, depth, 1000 * k), 1e-6, "L=" + depth + " t=" + t);
                double[] wrong = Rk4.integrate(
                        (tt, y, dy) -> dy[0] = Math.pow(y[0], 2 - 2.0 / depth) * (s - y[0]),
                        new double[] {c0},
                        0,
                        t,
                        1000 * k);
                maxWrongGap = Math.max(maxWrongGap, Math.abs(wrong[0] - cNet));
            }
            assertTrue(maxWrongGap > 0.3, "uncorrected eq. 39 should not match: " + maxWrongGap);
        }
    }

    @Test
    void deepHalfLossTimeAgreesWithTheLogisticAndTheOde() {
        // L = 2: the quadrature equals the closed form ln(c½(s/c₀ − 1)/(s − c½))/(2s) of the logistic c(t)
        // (Simpson error O(n⁻⁴) on a smooth integrand: < 1e-9 at 4000 intervals).
        for (double c0 : new double[] {1e-2, 1e-4, 1e-8}) {
            double s = 1.5;
            double half = s - (s - c0) / Math.sqrt(2);
            double closed = Math.log(half * (s / c0 - 1) / (s - half)) / (2 * s);
            assertEquals(closed, LinearNetworks.deepHalfLossTime(s, c0, 2, 4000), 1e-9, "c0 " + c0);
        }
        // L = 3, 4: c(t½) from the RK4 ODE solution lands on c½ (to RK4 error ≈ 1e-9), and t½ approaches
        // the corrected blow-up time t* = c₀^{−(L−2)/L}/((L−2)s) from below as c₀ → 0 (t* − t½ tends to a constant:
        // 1.25, 0.62 for L = 3, 4 by scipy quad).
        for (int depth : new int[] {3, 4}) {
            double s = 1.0;
            for (double c0 : new double[] {1e-3, 1e-6}) {
                double th = LinearNetworks.deepHalfLossTime(s, c0, depth, 4000);
                double half = s - (s - c0) / Math.sqrt(2);
                assertEquals(half, LinearNetworks.deepScale(th, s, c0, depth, 200_000), 1e-6, "L=" + depth);
                double tStar = LinearNetworks.deepBlowUpTime(c0, s, depth);
                assertTrue(th < tStar && tStar - th < 1.5, "L=" + depth + " t½ " + th + " t* " + tStar);
            }
        }
    }

    @Test
    void tracedMultiOutputFinalNtkReducesToTheScalarFormAndADiagonalCase() {
        // C = 1: s^{2(L−1)/L}[(L−1)ββᵀ + I] exactly (1e-12).
        double[] beta = unit(5, 3);
        double s = 1.7;
        double[] sb = java.util.Arrays.stream(beta).map(v -> s * v).toArray();
        for (int depth = 2; depth <= 4; depth++) {
            DMatrixRMaj m = LinearNetworks.tracedMultiOutputFinalNtk(sb, 1, depth);
            DMatrixRMaj ref = LinearNetworks.finalNtkMatrix(beta, s, fill(depth, 1));
            for (int i = 0; i < 25; i++) {
                assertEquals(ref.get(i), m.get(i), 1e-12, "L=" + depth);
            }
        }
        // C = 2, L = 2, β with orthogonal rows of norms 2 and 1 along e₁, e₂: G = diag(4, 1, 0, ...),
        // M_tr = 2·G^{1/2} + tr(G^{1/2})·I = diag(4 + 3, 2 + 3, 3, 3, 3).
        double[] b2 = new double[10];
        b2[0] = 2;
        b2[5 + 1] = 1;
        DMatrixRMaj m = LinearNetworks.tracedMultiOutputFinalNtk(b2, 2, 2);
        double[] diag = {7, 5, 3, 3, 3};
        for (int i = 0; i < 5; i++) {
            assertEquals(diag[i], m.get(i, i), 1e-12);
        }
        assertEquals(0, m.get(0, 1), 1e-12);
    }

    static double[] fill(int n, double v) {
        double[] a = new double[n];
        java.util.Arrays.fill(a, v);
        return a;
    }

    @Test
    void finalNtkWithLayerwiseRatesAndPrefactor() {
        // L = 3, small random init σ = 0.02 trained to convergence; final NTK vs u*^{2L−2}(Aββᵀ + B I).
        // Residual O(σ²) terms (≈ 4e-4 relative) and incomplete convergence: tolerance 1% (an independent run
        // measured ≤ 0.5% at σ = 0.05).
        int d = 6;
        double s = 2.0;
        double[] beta = unit(d, 11);
        for (double[] etas : new double[][] {{1, 1, 1}, {2, 1, 1}, {1, 1, 2}}) {
            DeepLinearFlow net = new DeepLinearFlow(new int[] {d, 8, 8, 1}, etas, beta, s);
            double[] th = net.randomInit(0.02, 12);
            th = net.flow(th, 120, 6000);
            assertTrue(net.loss(th) < 1e-10, "not converged: " + net.loss(th));
            double[] ev = eigenvalues(net.ntkMatrix(th));
            double[] ab = LinearNetworks.finalNtkCoefficients(etas);
            double scale = LinearNetworks.finalScale(s, etas);
            assertEquals(
                    scale * ab[1], ev[0], 0.01 * scale * ab[1], "min eigenvalue η=" + java.util.Arrays.toString(etas));
            assertEquals(scale * (ab[0] + ab[1]), ev[d - 1], 0.01 * scale * (ab[0] + ab[1]), "max eigenvalue");
            if (etas[0] == 1 && etas[2] == 1 && etas[1] == 1) {
                assertEquals(Math.pow(s, 4.0 / 3), scale, 1e-12);
                double[][] x = whitenedData(d, 30, 4);
                double align = LinearNetworks.alignment(gram(x, net.ntkMatrix(th)), targets(x, beta, s));
                assertEquals(LinearNetworks.finalAlignment(3, d), align, 0.01);
            }
        }
    }

    @Test
    void closedFormsAgreeWithTheirOwnOdes() {
        // c(t) solves ċ = 2c(s − c) and the deep blow-up time of the small-c ODE ċ = L c^{2−2/L} s.
        // RK4 at h = 1e-3 (3000 steps) and h = 1.5e-4 (20000 steps): global error O(h⁴·max|c⁽⁵⁾|) < 1e-10 on these
        // O(1) trajectories; tolerances 1e-9 absolute and 1e-8 relative.
        double s = 1.5;
        double c0 = 1e-3;
        double[] c = Rk4.integrate(
                (t, y, dy) -> dy[0] = LinearNetworks.deepScaleRate(y[0], s, 2), new double[] {c0}, 0, 3, 3000);
        assertEquals(c[0], LinearNetworks.twoLayerScale(3, s, c0), 1e-9);
        // small-c ODE for L = 4: c^{-1/2} decreases linearly at rate (L−2)/L·L s /… → exact solution
        int depth = 4;
        double tStar = LinearNetworks.deepBlowUpTime(c0, s, depth);
        double t = 0.5 * tStar;
        double[] cs = Rk4.integrate(
                (tt, y, dy) -> dy[0] = depth * Math.pow(y[0], 2 - 2.0 / depth) * s, new double[] {c0}, 0, t, 20000);
        double exact =
                Math.pow(Math.pow(c0, -(depth - 2.0) / depth) - (depth - 2.0) * s * t, -(double) depth / (depth - 2));
        assertEquals(exact, cs[0], 1e-8 * exact);
    }
}
