package org.ntk4j.theory;

import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;

/**
 * Block-structured NTK of Seleznova et al., Neural (Tangent Kernel) Collapse (Def. 3.1, Table 1,
 * eqs. (8)–(15), (19), (25), (26)). C balanced classes of m samples, N = Cm, samples
 * ordered by class:
 * <pre>
 *   K = γ_d I + γ_c (YᵀY − I) + γ_n (11ᵀ − YᵀY)
 *   λ_single = γ_d − γ_c            (within-class zero-sum vectors, multiplicity N − C)
 *   λ_class  = λ_single + m(γ_c − γ_n)  (class-constant, globally zero-sum, multiplicity C − 1)
 *   λ_global = λ_class + Nγ_n        (the constant vector, multiplicity 1)
 * </pre>
 * Gradient flow of the residual per output with a fixed kernel, Ṙ = −R K (loss ½‖f(X) − Y‖²_F), solves in
 * closed form: the global mean decays as e^{−λ_global t}, class-mean deviations as e^{−λ_class t}, within-class
 * deviations as e^{−λ_single t} (GD with step η: powers of (1 − ηλ)).
 *
 * <p>Feature dynamics under Assumption 3.2 with the features kernel (κ_d, κ_c, κ_n), eq. (25):
 * <pre>
 *   R₁ = W H₁ + b1ᵀ − I_C
 *   Ḣ₁ = −Wᵀ R₁ (μ_class I + κ_n m 11ᵀ),  Ḣ₂ = −μ_single WᵀW H₂,  Ẇ = −m(R₁H₁ᵀ + W H₂H₂ᵀ),  ḃ = −m R₁ 1
 *   μ_single = κ_d − κ_c,  μ_class = μ_single + m(κ_c − κ_n),  α = κ_n m/(μ_class + Cκ_n m)
 * </pre>
 * with "+" inside Ẇ as in eq. (25) (the appendix's eq. (40) prints "−"; (25) conserves E), and the invariant
 * (eq. (26)) E = (1/m)WᵀW − (1/μ_class) H₁(I − α11ᵀ)H₁ᵀ − (1/μ_single) H₂H₂ᵀ, Ė = 0.
 */
public final class BlockNtk {
    private final int classes;
    private final int perClass;
    private final double gammaD;
    private final double gammaC;
    private final double gammaN;

    public BlockNtk(int classes, int perClass, double gammaD, double gammaC, double gammaN) {
        if (classes < 1 || perClass < 1) {
            throw new org.ntk4j.UserException("need >= 1 class and >= 1 sample per class");
        }
        this.classes = classes;
        this.perClass = perClass;
        this.gammaD = gammaD;
        this.gammaC = gammaC;
        this.gammaN = gammaN;
    }

    public int size() {
        return classes * perClass;
    }

    public double lambdaSingle() {
        return gammaD - gammaC;
    }

    public double lambdaClass() {
        return lambdaSingle() + perClass * (gammaC - gammaN);
    }

    public double lambdaGlobal() {
        return lambdaClass() + size() * gammaN;
    }

    /** Multiplicities {N − C, C − 1, 1} of λ_single, λ_class, λ_global. */
    public int[] multiplicities() {
        return new int[] {size() - classes, classes - 1, 1};
    }

    /** The N × N kernel (samples ordered by class). */
    public DMatrixRMaj matrix() {
        int n = size();
        DMatrixRMaj k = new DMatrixRMaj(n, n);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double v = i == j ? gammaD : (i / perClass == j / perClass ? gammaC : gammaN);
                k.set(i, j, v);
            }
        }
        return k;
    }

    /**
     * Residual R(t) (rows: outputs, columns: samples ordered by class) under Ṙ = −RK from R(0), or after
     * t GD steps of size η when {@code eta} &gt; 0 (then t is the step count).
     */
    public double[][] residual(double[][] r0, double t, double eta) {
        double gs = decay(lambdaSingle(), t, eta);
        double gc = decay(lambdaClass(), t, eta);
        double gg = decay(lambdaGlobal(), t, eta);
        int n = size();
        double[][] out = new double[r0.length][n];
        for (int o = 0; o < r0.length; o++) {
            double[] r = r0[o];
            double mean = 0;
            for (double v : r) {
                mean += v / n;
            }
            double[] classMean = new double[classes];
            for (int i = 0; i < n; i++) {
                classMean[i / perClass] += r[i] / perClass;
            }
            for (int i = 0; i < n; i++) {
                double cm = classMean[i / perClass];
                out[o][i] = gg * mean + gc * (cm - mean) + gs * (r[i] - cm);
            }
        }
        return out;
    }

    private static double decay(double lambda, double t, double eta) {
        return eta > 0 ? Math.pow(1 - eta * lambda, t) : Math.exp(-lambda * t);
    }

    // ------------------------------------------------------------------ feature dynamics, eq. (25)/(26)

    /** μ_single = κ_d − κ_c. */
    public static double muSingle(double kd, double kc) {
        return kd - kc;
    }

    /** μ_class = μ_single + m(κ_c − κ_n). */
    public static double muClass(double kd, double kc, double kn, int m) {
        return muSingle(kd, kc) + m * (kc - kn);
    }

    /** α = κ_n m/(μ_class + Cκ_n m). */
    public static double alpha(double kd, double kc, double kn, int m, int classes) {
        double mc = muClass(kd, kc, kn, m);
        return kn * m / (mc + classes * kn * m);
    }

    /** State of eq. (25): W (C × n), H₁ (n × C), H₂ (n × C(m−1)), b (C × 1). */
    public record State(DMatrixRMaj w, DMatrixRMaj h1, DMatrixRMaj h2, DMatrixRMaj b) {}

    /** Right-hand side of eq. (25). */
    public static State dynamics(State s, double kd, double kc, double kn, int m) {
        int c = s.w().numRows;
        DMatrixRMaj r1 = new DMatrixRMaj(c, c);
        CommonOps_DDRM.mult(s.w(), s.h1(), r1);
        for (int i = 0; i < c; i++) {
            for (int j = 0; j < c; j++) {
                r1.add(i, j, s.b().get(i) - (i == j ? 1 : 0));
            }
        }
        double ms = muSingle(kd, kc);
        double mc = muClass(kd, kc, kn, m);
        DMatrixRMaj mix = new DMatrixRMaj(c, c);
        for (int i = 0; i < c; i++) {
            for (int j = 0; j < c; j++) {
                mix.set(i, j, (i == j ? mc : 0) + kn * m);
            }
        }
        DMatrixRMaj wtr = new DMatrixRMaj(s.w().numCols, c);
        CommonOps_DDRM.multTransA(s.w(), r1, wtr);
        DMatrixRMaj dh1 = new DMatrixRMaj(s.h1().numRows, c);
        CommonOps_DDRM.mult(-1, wtr, mix, dh1);
        DMatrixRMaj wtw = new DMatrixRMaj(s.w().numCols, s.w().numCols);
        CommonOps_DDRM.multTransA(s.w(), s.w(), wtw);
        DMatrixRMaj dh2 = new DMatrixRMaj(s.h2().numRows, s.h2().numCols);
        CommonOps_DDRM.mult(-ms, wtw, s.h2(), dh2);
        DMatrixRMaj a = new DMatrixRMaj(c, s.w().numCols);
        CommonOps_DDRM.multTransB(r1, s.h1(), a);
        DMatrixRMaj h2h2 = new DMatrixRMaj(s.h2().numRows, s.h2().numRows);
        CommonOps_DDRM.multTransB(s.h2(), s.h2(), h2h2);
        DMatrixRMaj wh = new DMatrixRMaj(c, s.w().numCols);
        CommonOps_DDRM.mult(s.w(), h2h2, wh);
        CommonOps_DDRM.addEquals(a, wh);
        CommonOps_DDRM.scale(-m, a);
        DMatrixRMaj db = new DMatrixRMaj(c, 1);
        for (int i = 0; i < c; i++) {
            double sum = 0;
            for (int j = 0; j < c; j++) {
                sum += r1.get(i, j);
            }
            db.set(i, -m * sum);
        }
        return new State(a, dh1, dh2, db);
    }

    /** Invariant E of eq. (26) (n × n). */
    public static DMatrixRMaj invariant(State s, double kd, double kc, double kn, int m) {
        int c = s.w().numRows;
        double mc = muClass(kd, kc, kn, m);
        double ms = muSingle(kd, kc);
        double al = alpha(kd, kc, kn, m, c);
        int n = s.w().numCols;
        DMatrixRMaj e = new DMatrixRMaj(n, n);
        CommonOps_DDRM.multTransA(1.0 / m, s.w(), s.w(), e);
        DMatrixRMaj mid = new DMatrixRMaj(c, c);
        for (int i = 0; i < c; i++) {
            for (int j = 0; j < c; j++) {
                mid.set(i, j, (i == j ? 1 : 0) - al);
            }
        }
        DMatrixRMaj t = new DMatrixRMaj(n, c);
        CommonOps_DDRM.mult(s.h1(), mid, t);
        DMatrixRMaj term = new DMatrixRMaj(n, n);
        CommonOps_DDRM.multTransB(t, s.h1(), term);
        CommonOps_DDRM.addEquals(e, -1 / mc, term);
        DMatrixRMaj h2 = new DMatrixRMaj(n, n);
        CommonOps_DDRM.multTransB(s.h2(), s.h2(), h2);
        CommonOps_DDRM.addEquals(e, -1 / ms, h2);
        return e;
    }

    /**
     * Helmert-type Q̃₂ (m × (m−1)), orthonormal columns with 1ᵀQ̃₂ = 0, used for H₂ = (1/√m) H (I_C ⊗ Q̃₂).
     */
    public static DMatrixRMaj helmert(int m) {
        DMatrixRMaj q = new DMatrixRMaj(m, m - 1);
        for (int j = 1; j < m; j++) {
            double norm = Math.sqrt(j * (j + 1.0));
            for (int i = 0; i < j; i++) {
                q.set(i, j - 1, 1 / norm);
            }
            q.set(j, j - 1, -j / norm);
        }
        return q;
    }

    /** Class means H₁ (n × C) and H₂ = (1/√m) H (I_C ⊗ Q̃₂) from features H (n × Cm, ordered by class). */
    public static DMatrixRMaj[] decomposeFeatures(DMatrixRMaj h, int classes, int m) {
        int n = h.numRows;
        DMatrixRMaj h1 = new DMatrixRMaj(n, classes);
        DMatrixRMaj h2 = new DMatrixRMaj(n, classes * (m - 1));
        DMatrixRMaj q = helmert(m);
        for (int c = 0; c < classes; c++) {
            for (int r = 0; r < n; r++) {
                double mean = 0;
                for (int i = 0; i < m; i++) {
                    mean += h.get(r, c * m + i) / m;
                }
                h1.set(r, c, mean);
                for (int j = 0; j < m - 1; j++) {
                    double v = 0;
                    for (int i = 0; i < m; i++) {
                        v += h.get(r, c * m + i) * q.get(i, j);
                    }
                    h2.set(r, c * (m - 1) + j, v / Math.sqrt(m));
                }
            }
        }
        return new DMatrixRMaj[] {h1, h2};
    }
}
