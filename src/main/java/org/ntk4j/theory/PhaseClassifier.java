package org.ntk4j.theory;

/**
 * Phase of the model of Xu &amp; Ziyin, When Does Feature Learning Happen? when every hyperparameter scales as a power
 * of γ → ∞ (§3, Def. 1, Thm 2, eqs. (27)–(30), Corollaries 1–3, Table 1; rule reconstructed from eq. (28) and Thm 2; it
 * reproduces all 20 phase labels of Table 1):
 * <pre>
 *   t1 = 2c_κ + c_u + c_W                                   (target-driven term of τ⁻², feature learning)
 *   t2 = 4c_κ + 2c_d + 2·max(c_W + s_u, c_u + s_W)           (initialisation-driven term, kernel)
 *   m = max(t1, t2):  m &lt; 0 frozen (τ → ∞),  m &gt; 0 unstable (τ → 0),
 *   m = 0: kernel if t1 &lt; t2 and (29) holds, feature learning otherwise;
 *   (29) holds if c_d &gt; 0 (independent Gaussian init), or the initial output is zero, or the init is
 *   unbalanced (c_W + s_u ≠ c_u + s_W).
 * </pre>
 * Exponents: width d ~ γ^{c_d}, output multiplier κ ~ γ^{c_κ}, learning rates η_u ~ γ^{c_u}, η_W ~ γ^{c_W},
 * init variances σ_u² ~ γ^{s_u}, σ_W² ~ γ^{s_W}.
 */
public final class PhaseClassifier {
    private PhaseClassifier() {}

    public enum Phase {
        FROZEN,
        UNSTABLE,
        KERNEL,
        FEATURE_LEARNING
    }

    /** Scaling exponents of one model; {@code zeroInitialOutput} flags u₀ᵀW₀x = 0 (case 2 of (29)). */
    public record Exponents(
            double cD, double cKappa, double cU, double cW, double sU, double sW, boolean zeroInitialOutput) {
        /** Same learning-rate exponent for both layers. */
        public static Exponents of(double cD, double cKappa, double cEta, double sU, double sW, boolean zeroOut) {
            return new Exponents(cD, cKappa, cEta, cEta, sU, sW, zeroOut);
        }

        public Exponents withEta(double cEta) {
            return new Exponents(cD, cKappa, cEta, cEta, sU, sW, zeroInitialOutput);
        }

        public Exponents withKappaEta(double kappa, double cEta) {
            return new Exponents(cD, kappa, cEta, cEta, sU, sW, zeroInitialOutput);
        }
    }

    public static double t1(Exponents e) {
        return 2 * e.cKappa() + e.cU() + e.cW();
    }

    public static double t2(Exponents e) {
        return 4 * e.cKappa() + 2 * e.cD() + 2 * Math.max(e.cW() + e.sU(), e.cU() + e.sW());
    }

    private static final double EPS = 1e-12;

    public static Phase classify(Exponents e) {
        double a = t1(e);
        double b = t2(e);
        double m = Math.max(a, b);
        if (m < -EPS) {
            return Phase.FROZEN;
        }
        if (m > EPS) {
            return Phase.UNSTABLE;
        }
        boolean cond29 = e.cD() > EPS || e.zeroInitialOutput() || Math.abs((e.cW() + e.sU()) - (e.cU() + e.sW())) > EPS;
        return a < b - EPS && cond29 ? Phase.KERNEL : Phase.FEATURE_LEARNING;
    }

    /** Corollary 1 (stability), equal rates: c_η = −max(c_κ, 2c_κ + c_d + max(s_u, s_W)). */
    public static Exponents corollary1(Exponents e) {
        return e.withEta(-Math.max(e.cKappa(), 2 * e.cKappa() + e.cD() + Math.max(e.sU(), e.sW())));
    }

    /** Corollary 2 (feature learning): c_κ = −c_d − max(s_u, s_W), c_η = −c_κ. */
    public static Exponents corollary2(Exponents e) {
        double kappa = -e.cD() - Math.max(e.sU(), e.sW());
        return e.withKappaEta(kappa, -kappa);
    }

    /**
     * Corollary 3 (kernel): a chosen c_κ &gt; −c_d − max(s_u, s_W) and c_η = −2c_κ − c_d − max(s_u, s_W).
     */
    public static Exponents corollary3(Exponents e, double cKappa) {
        double floor = -e.cD() - Math.max(e.sU(), e.sW());
        if (cKappa <= floor) {
            throw new org.ntk4j.UserException("Corollary 3 needs c_kappa > " + floor + ", got " + cKappa);
        }
        return e.withKappaEta(cKappa, -2 * cKappa - e.cD() - Math.max(e.sU(), e.sW()));
    }

    /** Table 1 columns (plain η exponent 0): NTK, mean field, Xavier, Kaiming, lazy (zero initial output). */
    public static java.util.LinkedHashMap<String, Exponents> table1Presets() {
        java.util.LinkedHashMap<String, Exponents> m = new java.util.LinkedHashMap<>();
        m.put("ntk", Exponents.of(1, -0.5, 0, 0, 0, false));
        m.put("mean-field", Exponents.of(1, -1, 0, 0, 0, false));
        m.put("xavier", Exponents.of(1, 0, 0, -1, -1, false));
        m.put("kaiming", Exponents.of(1, 0, 0, -1, 0, false));
        m.put("lazy", Exponents.of(0, 1, 0, 0, 0, true));
        return m;
    }

    /** Corollary-3 κ exponents used in Table 1 for the five columns. */
    public static double table1Corollary3Kappa(String preset) {
        switch (preset) {
            case "ntk":
            case "mean-field":
                return -0.5;
            case "xavier":
            case "lazy":
                return 1;
            case "kaiming":
                return 0;
            default:
                throw new org.ntk4j.UserException("unknown preset '" + preset + "'");
        }
    }
}
