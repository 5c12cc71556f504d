package org.ntk4j.theory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.NormOps_DDRM;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;
import org.junit.jupiter.api.Test;

/** Block NTK: Table 1 vs a numerical eigensolver, residual dynamics vs RK4, eq. (25) vs eq. (19), invariant. */
class BlockNtkTest {

    @Test
    void table1EigenvaluesMatchEigensolver() {
        BlockNtk b = new BlockNtk(3, 4, 1.0, 0.6, 0.1);
        assertEquals(0.4, b.lambdaSingle(), 1e-15);
        assertEquals(2.4, b.lambdaClass(), 1e-14);
        assertEquals(3.6, b.lambdaGlobal(), 1e-14);
        EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(12, false, true);
        eig.decompose(b.matrix());
        int[] count = new int[3];
        double[] lam = {b.lambdaSingle(), b.lambdaClass(), b.lambdaGlobal()};
        for (int i = 0; i < 12; i++) {
            double v = eig.getEigenvalue(i).getReal();
            for (int k = 0; k < 3; k++) {
                if (Math.abs(v - lam[k]) < 1e-12) {
                    count[k]++;
                }
            }
        }
        assertEquals(b.multiplicities()[0], count[0]);
        assertEquals(b.multiplicities()[1], count[1]);
        assertEquals(b.multiplicities()[2], count[2]);
    }

    @Test
    void residualClosedFormMatchesRk4AndGdSteps() {
        BlockNtk b = new BlockNtk(3, 4, 1.0, 0.6, 0.1);
        DMatrixRMaj k = b.matrix();
        SplittableRandom r = new SplittableRandom(2);
        double[][] r0 = new double[2][12];
        for (double[] row : r0) {
            for (int i = 0; i < 12; i++) {
                row[i] = r.nextGaussian();
            }
        }
        double t = 1.7;
        double[] flat = new double[24];
        for (int o = 0; o < 2; o++) {
            System.arraycopy(r0[o], 0, flat, o * 12, 12);
        }
        Rk4.System f = (tt, y, dy) -> {
            for (int o = 0; o < 2; o++) {
                for (int j = 0; j < 12; j++) {
                    double acc = 0;
                    for (int i = 0; i < 12; i++) {
                        acc += y[o * 12 + i] * k.get(i, j);
                    }
                    dy[o * 12 + j] = -acc;
                }
            }
        };
        double[] a = Rk4.integrate(f, flat, 0, t, 500);
        double[] c = Rk4.integrate(f, flat, 0, t, 1000);
        double tol = 0;
        for (int i = 0; i < 24; i++) {
            tol = Math.max(tol, 10 * Math.abs(a[i] - c[i]) / 15);
        }
        tol += 1e-13;
        double[][] closed = b.residual(r0, t, 0);
        for (int o = 0; o < 2; o++) {
            for (int i = 0; i < 12; i++) {
                assertEquals(c[o * 12 + i], closed[o][i], tol);
            }
        }
        // GD: R ← R(I − ηK), exact in finitely many steps
        double eta = 0.2;
        double[][] gd = new double[2][];
        gd[0] = r0[0].clone();
        gd[1] = r0[1].clone();
        for (int step = 0; step < 7; step++) {
            for (int o = 0; o < 2; o++) {
                double[] nr = new double[12];
                for (int j = 0; j < 12; j++) {
                    double acc = gd[o][j];
                    for (int i = 0; i < 12; i++) {
                        acc -= eta * gd[o][i] * k.get(i, j);
                    }
                    nr[j] = acc;
                }
                gd[o] = nr;
            }
        }
        double[][] closedGd = b.residual(r0, 7, eta);
        for (int o = 0; o < 2; o++) {
            for (int i = 0; i < 12; i++) {
                assertEquals(gd[o][i], closedGd[o][i], 1e-13);
            }
        }
    }

    static DMatrixRMaj randn(int r, int c, SplittableRandom g, double s) {
        DMatrixRMaj m = new DMatrixRMaj(r, c);
        for (int i = 0; i < m.getNumElements(); i++) {
            m.data[i] = s * g.nextGaussian();
        }
        return m;
    }

    static double[] pack(BlockNtk.State s) {
        DMatrixRMaj[] parts = {s.w(), s.h1(), s.h2(), s.b()};
        int size = 0;
        for (DMatrixRMaj p : parts) {
            size += p.getNumElements();
        }
        double[] v = new double[size];
        int o = 0;
        for (DMatrixRMaj p : parts) {
            System.arraycopy(p.data, 0, v, o, p.getNumElements());
            o += p.getNumElements();
        }
        return v;
    }

    static BlockNtk.State unpack(double[] v, int c, int n, int m) {
        DMatrixRMaj w = new DMatrixRMaj(c, n);
        DMatrixRMaj h1 = new DMatrixRMaj(n, c);
        DMatrixRMaj h2 = new DMatrixRMaj(n, c * (m - 1));
        DMatrixRMaj b = new DMatrixRMaj(c, 1);
        int o = 0;
        for (DMatrixRMaj p : new DMatrixRMaj[] {w, h1, h2, b}) {
            System.arraycopy(v, o, p.data, 0, p.getNumElements());
            o += p.getNumElements();
        }
        return new BlockNtk.State(w, h1, h2, b);
    }

    @Test
    void reducedDynamicsAgreeWithFullDynamicsAndConserveInvariant() {
        // eq. (19) on the full features H (n × N): Ḣ = −Wᵀ R Kʰ, Ẇ = −R Hᵀ, ḃ = −R1, R = WH + b1ᵀ − Y.
        // Its projections H₁ (class means) and H₂ must follow eq. (25), and E (eq. 26) must stay constant.
        // Both are integrated by RK4 at dt = 1e-3 and 5e-4; tolerance = 10 × Richardson estimate + 1e-12.
        int c = 3;
        int m = 4;
        int n = 6;
        int bigN = c * m;
        double kd = 1.0;
        double kc = 0.6;
        double kn = 0.1;
        SplittableRandom g = new SplittableRandom(5);
        DMatrixRMaj w0 = randn(c, n, g, 0.5);
        DMatrixRMaj h0 = randn(n, bigN, g, 0.5);
        DMatrixRMaj b0 = randn(c, 1, g, 0.1);
        DMatrixRMaj kh = new BlockNtk(c, m, kd, kc, kn).matrix();
        int sizeFull = c * n + n * bigN + c;
        double[] full0 = new double[sizeFull];
        System.arraycopy(w0.data, 0, full0, 0, c * n);
        System.arraycopy(h0.data, 0, full0, c * n, n * bigN);
        System.arraycopy(b0.data, 0, full0, c * n + n * bigN, c);
        Rk4.System fullFlow = (t, y, dy) -> {
            DMatrixRMaj w = new DMatrixRMaj(c, n);
            DMatrixRMaj h = new DMatrixRMaj(n, bigN);
            System.arraycopy(y, 0, w.data, 0, c * n);
            System.arraycopy(y, c * n, h.data, 0, n * bigN);
            DMatrixRMaj res = new DMatrixRMaj(c, bigN);
            CommonOps_DDRM.mult(w, h, res);
            for (int i = 0; i < c; i++) {
                for (int j = 0; j < bigN; j++) {
                    res.add(i, j, y[c * n + n * bigN + i] - (j / m == i ? 1 : 0));
                }
            }
            DMatrixRMaj rk = new DMatrixRMaj(c, bigN);
            CommonOps_DDRM.mult(res, kh, rk);
            DMatrixRMaj dh = new DMatrixRMaj(n, bigN);
            CommonOps_DDRM.multTransA(-1, w, rk, dh);
            DMatrixRMaj dw = new DMatrixRMaj(c, n);
            CommonOps_DDRM.multTransB(-1, res, h, dw);
            System.arraycopy(dw.data, 0, dy, 0, c * n);
            System.arraycopy(dh.data, 0, dy, c * n, n * bigN);
            for (int i = 0; i < c; i++) {
                double s = 0;
                for (int j = 0; j < bigN; j++) {
                    s += res.get(i, j);
                }
                dy[c * n + n * bigN + i] = -s;
            }
        };
        DMatrixRMaj[] dec = BlockNtk.decomposeFeatures(h0, c, m);
        BlockNtk.State s0 = new BlockNtk.State(w0, dec[0], dec[1], b0);
        Rk4.System reduced = (t, y, dy) -> {
            BlockNtk.State d = BlockNtk.dynamics(unpack(y, c, n, m), kd, kc, kn, m);
            double[] v = pack(d);
            System.arraycopy(v, 0, dy, 0, v.length);
        };
        double t = 3.0;
        double[] fa = Rk4.integrate(fullFlow, full0, 0, t, 3000);
        double[] fb = Rk4.integrate(fullFlow, full0, 0, t, 6000);
        double[] ra = Rk4.integrate(reduced, pack(s0), 0, t, 3000);
        double[] rb = Rk4.integrate(reduced, pack(s0), 0, t, 6000);
        double tol = 1e-12;
        for (int i = 0; i < fa.length; i++) {
            tol = Math.max(tol, 10 * Math.abs(fa[i] - fb[i]) / 15);
        }
        for (int i = 0; i < ra.length; i++) {
            tol = Math.max(tol, 10 * Math.abs(ra[i] - rb[i]) / 15);
        }
        tol += 1e-12;
        BlockNtk.State sr = unpack(rb, c, n, m);
        DMatrixRMaj wFull = new DMatrixRMaj(c, n);
        DMatrixRMaj hFull = new DMatrixRMaj(n, bigN);
        System.arraycopy(fb, 0, wFull.data, 0, c * n);
        System.arraycopy(fb, c * n, hFull.data, 0, n * bigN);
        DMatrixRMaj[] decT = BlockNtk.decomposeFeatures(hFull, c, m);
        assertTrue(maxDiff(wFull, sr.w()) < tol, "W " + maxDiff(wFull, sr.w()) + " tol " + tol);
        assertTrue(maxDiff(decT[0], sr.h1()) < tol, "H1");
        assertTrue(maxDiff(decT[1], sr.h2()) < tol, "H2");
        for (int i = 0; i < c; i++) {
            assertEquals(fb[c * n + n * bigN + i], sr.b().get(i), tol);
        }
        DMatrixRMaj e0 = BlockNtk.invariant(s0, kd, kc, kn, m);
        DMatrixRMaj e1 = BlockNtk.invariant(sr, kd, kc, kn, m);
        DMatrixRMaj diff = e1.copy();
        CommonOps_DDRM.subtractEquals(diff, e0);
        // E is conserved exactly by the flow, so its drift is the RK4 error of E: bound it by Richardson on E
        DMatrixRMaj ea = BlockNtk.invariant(unpack(ra, c, n, m), kd, kc, kn, m);
        CommonOps_DDRM.subtractEquals(ea, e1);
        double tolE = 10 * NormOps_DDRM.normF(ea) / 15 + 1e-12;
        assertTrue(NormOps_DDRM.normF(diff) < tolE, "invariant drift " + NormOps_DDRM.normF(diff) + " tol " + tolE);
        assertTrue(NormOps_DDRM.normF(e0) > 0.1);
    }

    static double maxDiff(DMatrixRMaj a, DMatrixRMaj b) {
        double m = 0;
        for (int i = 0; i < a.getNumElements(); i++) {
            m = Math.max(m, Math.abs(a.data[i] - b.data[i]));
        }
        return m;
    }
}
