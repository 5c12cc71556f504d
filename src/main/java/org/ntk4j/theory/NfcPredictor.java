package org.ntk4j.theory;

import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;

/**
 * Free-probability prediction of the initial centred neural feature correlation (C-NFC) of a one-hidden-
 * layer quadratic network f(x) = aᵀ(Wx)² (Feature Learning as Alignment (anon.), §4.2 and App. E,
 * eqs. (6), (18), (20), (26)).
 *
 * <p>The prediction is ρ(Ẇ_0ᵀẆ_0, Ẇ_0ᵀKẆ_0) = N/√(D₁D₂) of eq. (6), with data matrices A = (XᵀYX)²,
 * B = XᵀX (Y = diag(y)), the network's F_a = Wᵀdiag(a²)W and its normalised moments m_j = tr[F_a^j]
 * (tr = trace/dimension), a = tr A, b = tr B, Ā = A − aI, B̄ = B − bI:
 * <pre>
 *   N  = a²b m₃ + 2a m₂m₁ tr(ĀB̄) + b m₁m₂ tr(Ā²) + m₁³ tr(Ā²B̄)                                   (eq. 18)
 *   D₁ = tr(A²) m₁² + a² m₂ − a² m₁²                                                              (eq. 20)
 *   D₂ = m₁⁴ tr((ĀB̄)²) + 2m₁²(m₂ − m₁²)(tr ĀB̄)² + 2m₁²m₂(b tr(Ā²B̄) + a tr(ĀB̄²))
 *        + 4ab m₃m₁ tr(ĀB̄) + a²b² m₄ + a² tr(B̄²) m₂² + <b>b² tr(Ā²) m₂²</b>                       (eq. 26, corrected)
 * </pre>
 * <b>Erratum:</b> the paper prints the last term of eq. (26) as tr[Ā]² tr[B²] tr[R²]², which vanishes
 * identically (tr Ā = 0); the corrected term b² tr(Ā²) m₂² is our re-derivation (expanding all 16 terms),
 * and only it matches observed correlations. Isotropic data (B = I): ρ = (a²m₃ + v m₁m₂)/√((v m₁² + a²m₂)(v m₂² +
 * a²m₄)), v = tr(Ā²). For a ~ N(0, I), W ~ N(0, 1/k), d = k → ∞ the moments are (1, 4, 25, 202).
 */
public final class NfcPredictor {
    /** Limit moments m₁..m₄ of F_a for a ~ N(0,1), W ~ N(0,1/k), d = k → ∞. */
    public static final double[] LIMIT_MOMENTS = {1, 4, 25, 202};

    private NfcPredictor() {}

    /** ρ(A, B) = tr(AᵀB)/√(tr(AᵀA) tr(BᵀB)) (Feature Learning as Alignment (anon.), eq. "NFC"). */
    public static double correlation(DMatrixRMaj a, DMatrixRMaj b) {
        return inner(a, b) / Math.sqrt(inner(a, a) * inner(b, b));
    }

    /** F_a = Wᵀ diag(a²) W for W (k × d). */
    public static DMatrixRMaj featureMatrix(DMatrixRMaj w, double[] a) {
        DMatrixRMaj scaled = w.copy();
        for (int i = 0; i < w.numRows; i++) {
            for (int j = 0; j < w.numCols; j++) {
                scaled.set(i, j, w.get(i, j) * a[i] * a[i]);
            }
        }
        DMatrixRMaj f = new DMatrixRMaj(w.numCols, w.numCols);
        CommonOps_DDRM.multTransA(w, scaled, f);
        return f;
    }

    /** Normalised moments m_j = tr[F^j]/d, j = 1..4. */
    public static double[] moments(DMatrixRMaj f) {
        int d = f.numRows;
        DMatrixRMaj f2 = new DMatrixRMaj(d, d);
        CommonOps_DDRM.mult(f, f, f2);
        return new double[] {
            CommonOps_DDRM.trace(f) / d,
            CommonOps_DDRM.trace(f2) / d,
            inner(f2, f) / d, // tr(F²F) with F symmetric
            inner(f2, f2) / d
        };
    }

    /** A = (Xᵀ diag(y) X)² and B = XᵀX for X (n × d). */
    public static DMatrixRMaj[] dataMatrices(DMatrixRMaj x, double[] y) {
        int d = x.numCols;
        DMatrixRMaj xy = x.copy();
        for (int i = 0; i < x.numRows; i++) {
            for (int j = 0; j < d; j++) {
                xy.set(i, j, x.get(i, j) * y[i]);
            }
        }
        DMatrixRMaj p = new DMatrixRMaj(d, d);
        CommonOps_DDRM.multTransA(x, xy, p);
        DMatrixRMaj a = new DMatrixRMaj(d, d);
        CommonOps_DDRM.mult(p, p, a);
        DMatrixRMaj b = new DMatrixRMaj(d, d);
        CommonOps_DDRM.multTransA(x, x, b);
        return new DMatrixRMaj[] {a, b, p};
    }

    /** Frobenius inner product Σ_ij A_ij B_ij. */
    public static double inner(DMatrixRMaj a, DMatrixRMaj b) {
        double s = 0;
        for (int i = 0; i < a.getNumElements(); i++) {
            s += a.data[i] * b.data[i];
        }
        return s;
    }

    private static double ntr(DMatrixRMaj m) {
        return CommonOps_DDRM.trace(m) / m.numRows;
    }

    private static DMatrixRMaj mul(DMatrixRMaj a, DMatrixRMaj b) {
        DMatrixRMaj c = new DMatrixRMaj(a.numRows, b.numCols);
        CommonOps_DDRM.mult(a, b, c);
        return c;
    }

    /** Predicted initial C-NFC N/√(D₁D₂) with the corrected eq. (26). */
    public static double predict(DMatrixRMaj bigA, DMatrixRMaj bigB, double[] m) {
        return predict(bigA, bigB, m, true);
    }

    /** {@code corrected = false} evaluates eq. (26) as printed (for comparison only). */
    public static double predict(DMatrixRMaj bigA, DMatrixRMaj bigB, double[] m, boolean corrected) {
        int d = bigA.numRows;
        double a = ntr(bigA);
        double b = ntr(bigB);
        DMatrixRMaj ab = bigA.copy();
        DMatrixRMaj bb = bigB.copy();
        for (int i = 0; i < d; i++) {
            ab.add(i, i, -a);
            bb.add(i, i, -b);
        }
        DMatrixRMaj aa = mul(ab, ab);
        DMatrixRMaj abB = mul(ab, bb);
        double trAB = ntr(abB);
        double trA2 = ntr(aa);
        double trA2B = ntr(mul(aa, bb));
        double trAB2 = ntr(mul(abB, bb));
        double trABAB = ntr(mul(abB, abB));
        double trB2 = ntr(mul(bb, bb));
        double trBigA2 = ntr(mul(bigA, bigA));
        double m1 = m[0];
        double m2 = m[1];
        double m3 = m[2];
        double m4 = m[3];
        double num = a * a * b * m3 + 2 * a * m2 * m1 * trAB + b * m1 * m2 * trA2 + m1 * m1 * m1 * trA2B;
        double d1 = trBigA2 * m1 * m1 + a * a * m2 - a * a * m1 * m1;
        double d2 = Math.pow(m1, 4) * trABAB
                + 2 * m1 * m1 * (m2 - m1 * m1) * trAB * trAB
                + 2 * m1 * m1 * m2 * (b * trA2B + a * trAB2)
                + 4 * a * b * m3 * m1 * trAB
                + a * a * b * b * m4
                + a * a * trB2 * m2 * m2;
        if (corrected) {
            d2 += b * b * trA2 * m2 * m2;
        }
        // as printed the last term is tr[Ā]² tr[B²] tr[R²]² = 0
        return num / Math.sqrt(d1 * d2);
    }

    /** Isotropic data (B = I): ρ = (a²m₃ + v m₁m₂)/√((v m₁² + a²m₂)(v m₂² + a²m₄)). */
    public static double predictIsotropic(double a, double v, double[] m) {
        return (a * a * m[2] + v * m[0] * m[1])
                / Math.sqrt((v * m[0] * m[0] + a * a * m[1]) * (v * m[1] * m[1] + a * a * m[3]));
    }

    /**
     * Observed correlation of one network: ρ(P F P, P F B F P), P = Xᵀdiag(y)X (= eq. (6) with L̇ = diag(y), the
     * derivative correlation at a zero-output initialisation).
     */
    public static double observed(DMatrixRMaj p, DMatrixRMaj bigB, DMatrixRMaj f) {
        DMatrixRMaj pf = mul(p, f);
        DMatrixRMaj pfp = mul(pf, p);
        DMatrixRMaj pfbfp = mul(mul(pf, bigB), mul(f, p));
        return correlation(pfp, pfbfp);
    }
}
