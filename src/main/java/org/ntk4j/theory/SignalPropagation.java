package org.ntk4j.theory;

/**
 * Mean-field signal propagation through a deep random network at infinite width (Poole et al. 2016,
 * Schoenholz et al. 2017; Seleznova, NTK thesis §2.2.4; Seleznova &amp; Kutyniok, Can We Trust NTK Theory?, eqs.
 * (5)–(9); Lou, Mingard &amp; Hayou, Equilibrium Hypothesis, App. A.1). With W ~ N(0, σ_w²/n), b ~ N(0, σ_b²):
 * <pre>
 *   length map       q_l = σ_w² E_z[φ(√q_{l−1} z)²] + σ_b²
 *   correlation map  c_l = (σ_w² E[φ(u)φ(v)] + σ_b²)/q*,   (u,v) unit correlation c_{l−1}, variance q*
 *   χ₁ = σ_w² E_z[φ'(√q* z)²]                       (ordered χ₁ &lt; 1, chaotic χ₁ &gt; 1, edge of chaos = 1)
 *   χ_c = σ_w² E[φ'(u)φ'(v)] at the fixed point c*    (= χ₁ when c* = 1)
 *   depth scales ξ_c = −1/ln χ_c,   ξ_q = −1/ln(dq_l/dq_{l−1} at q*)
 * </pre>
 * The slope of the length map uses Stein's lemma, d/dq E[φ(√q z)²] = E[z φ(√q z) φ'(√q z)]/√q, by
 * adaptive quadrature ({@link GaussianExpectation#expect}), so it needs no φ''. Every expectation of a φ without
 * closed form (tanh) is error-controlled (absolute ≲ 1e-12; a fixed 64/80-point Gauss–Hermite rule was not:
 * χ₁ of tanh at σ_w = 3, σ_b = 0 comes out 1.8178 instead of 1.8599). For ReLU all of this is closed-form: q_l = σ_w² q/2 + σ_b², χ₁ = σ_w²/2.
 */
public final class SignalPropagation {
    /** Phase of the correlation map. */
    public enum Phase {
        ORDERED,
        EDGE_OF_CHAOS,
        CHAOTIC
    }

    private final Activation activation;
    private final double sigmaW2;
    private final double sigmaB2;

    public SignalPropagation(Activation activation, double sigmaW2, double sigmaB2) {
        this.activation = activation;
        this.sigmaW2 = sigmaW2;
        this.sigmaB2 = sigmaB2;
    }

    /** One step of the length map q ↦ σ_w² E[φ(√q z)²] + σ_b². */
    public double lengthMap(double q) {
        return sigmaW2 * activation.expectedProduct(q, q, q) + sigmaB2;
    }

    /** q_0..q_depth starting from q0. */
    public double[] lengths(double q0, int depth) {
        double[] q = new double[depth + 1];
        q[0] = q0;
        for (int l = 1; l <= depth; l++) {
            q[l] = lengthMap(q[l - 1]);
        }
        return q;
    }

    /**
     * Fixed point q* by iterating the length map from {@code q0} (at most 100000 steps, relative tolerance
     * 1e-13); 0 for a bias-free odd-like φ (φ(0) = 0) whose iterates decrease monotonically without settling
     * (algebraic approach at the edge of chaos); NaN when it diverges (e.g. ReLU with σ_w² ≥ 2 and σ_b² &gt; 0)
     * or does not settle.
     */
    public double fixedPointLength(double q0) {
        double q = q0;
        boolean decreasing = true;
        for (int i = 0; i < 100_000; i++) {
            double next = lengthMap(q);
            if (!Double.isFinite(next) || next > 1e12) {
                return Double.NaN;
            }
            if (Math.abs(next - q) <= 1e-13 * Math.max(1, Math.abs(q))) {
                return next;
            }
            decreasing &= next < q;
            q = next;
        }
        // Without bias and with φ(0) = 0, q = 0 is a fixed point; at the edge of chaos (e.g. tanh, σ_w = 1)
        // the iterates approach it only algebraically (q_l ~ 1/l), so a monotone decrease means q* = 0.
        if (sigmaB2 == 0 && activation.apply(0) == 0 && decreasing) {
            return 0;
        }
        return Double.NaN;
    }

    /** Covariance map for a pair: (q11, q12, q22) ↦ next layer's. */
    public double[] covarianceMap(double q11, double q12, double q22) {
        return new double[] {
            sigmaW2 * activation.expectedProduct(q11, q11, q11) + sigmaB2,
            sigmaW2 * activation.expectedProduct(q11, q12, q22) + sigmaB2,
            sigmaW2 * activation.expectedProduct(q22, q22, q22) + sigmaB2
        };
    }

    /** Correlation map at fixed length q: c ↦ (σ_w² E[φ(u)φ(v)] + σ_b²)/q'. */
    public double correlationMap(double c, double q) {
        double qn = sigmaW2 * activation.expectedProduct(q, q, q) + sigmaB2;
        return (sigmaW2 * activation.expectedProduct(q, c * q, q) + sigmaB2) / qn;
    }

    /**
     * Correlations c_0..c_depth of two inputs with squared norms (per feature) q1, q2 and correlation c0
     * propagated through the full covariance map (not only at the fixed point).
     */
    public double[] correlations(double q1, double q2, double c0, int depth) {
        double[] c = new double[depth + 1];
        c[0] = c0;
        double a = q1;
        double b = c0 * Math.sqrt(q1 * q2);
        double d = q2;
        for (int l = 1; l <= depth; l++) {
            double[] n = covarianceMap(a, b, d);
            a = n[0];
            b = n[1];
            d = n[2];
            c[l] = b / Math.sqrt(a * d);
        }
        return c;
    }

    /** χ₁ = σ_w² E[φ'(√q z)²] at length q. */
    public double chi1(double q) {
        return sigmaW2 * activation.expectedDerivativeProduct(q, q, q);
    }

    /** Slope of the length map dq_l/dq_{l−1} at q (Stein's lemma, adaptive quadrature). */
    public double lengthMapSlope(double q) {
        if (activation == Activation.RELU) {
            return sigmaW2 / 2;
        }
        if (activation == Activation.LINEAR) {
            return sigmaW2;
        }
        if (q <= 0) {
            // limit q → 0 of Stein's form: σ_w²(φ'(0)² + φ(0)φ''(0)); φ'' by a central difference
            double h = 1e-4;
            double d2 = (activation.derivative(h) - activation.derivative(-h)) / (2 * h);
            double d0 = activation.derivative(0);
            return sigmaW2 * (d0 * d0 + activation.apply(0) * d2);
        }
        double s = Math.sqrt(q);
        return sigmaW2
                * GaussianExpectation.expect(z -> z * activation.apply(s * z) * activation.derivative(s * z))
                / s;
    }

    /** Phase from χ₁ at q*, with |χ₁ − 1| ≤ {@code tol} counted as the edge of chaos. */
    public Phase phase(double qStar, double tol) {
        double chi = chi1(qStar);
        if (Math.abs(chi - 1) <= tol) {
            return Phase.EDGE_OF_CHAOS;
        }
        return chi < 1 ? Phase.ORDERED : Phase.CHAOTIC;
    }

    /**
     * Stable fixed point c* of the correlation map at length q*: 1 when χ₁ ≤ 1 (ordered phase and edge of
     * chaos, where c = 1 is the stable fixed point), else found by iterating from c = 0.5 (geometric
     * convergence at rate χ_c &lt; 1; at most 20000 steps).
     */
    public double fixedPointCorrelation(double qStar) {
        if (chi1(qStar) <= 1) {
            return 1;
        }
        double c = 0.5;
        for (int i = 0; i < 20_000; i++) {
            double n = correlationMap(c, qStar);
            if (Math.abs(n - c) < 1e-14) {
                return n;
            }
            c = n;
        }
        return c;
    }

    /** χ_c = σ_w² E[φ'(u)φ'(v)] at correlation c* and length q*. */
    public double chiC(double qStar, double cStar) {
        return sigmaW2 * activation.expectedDerivativeProduct(qStar, cStar * qStar, qStar);
    }

    /** ξ_c = −1/ln χ_c at the stable fixed point (∞ at the edge of chaos). */
    public double correlationDepthScale(double qStar) {
        double cStar = fixedPointCorrelation(qStar);
        return depthScale(chiC(qStar, cStar));
    }

    /** −1/ln χ, and +∞ when χ ≥ 1 − 1e-12 (edge of chaos: no exponential convergence). */
    static double depthScale(double chi) {
        return chi >= 1 - 1e-12 ? Double.POSITIVE_INFINITY : -1 / Math.log(chi);
    }

    /** ξ_q = −1/ln(slope of the length map at q*). */
    public double lengthDepthScale(double qStar) {
        return depthScale(lengthMapSlope(qStar));
    }

    /**
     * Gradient-norm ratios E‖∂f/∂h_l‖² / ‖∂f/∂h_L‖² for l = 1..L (index l−1) of a depth-L network with a
     * linear readout h_L, from the first-layer variance q₁: Π_{k=l}^{L−1} χ₁(q_k), because
     * δ_l = φ'(h_l) ⊙ W_{l+1}ᵀδ_{l+1} gives E‖δ_l‖² = χ₁(q_l) E‖δ_{l+1}‖² under gradient independence
     * (Seleznova &amp; Kutyniok, Can We Trust NTK Theory?, eq. (8) with constant width,
     * p^l = p^{l+1}χ₁^l; Lou, Mingard &amp; Hayou, Equilibrium Hypothesis, App. A.3).
     */
    public double[] gradientNormRatios(double q1, int depth) {
        double[] q = lengths(q1, depth - 1);
        double[] r = new double[depth];
        r[depth - 1] = 1;
        for (int l = depth - 2; l >= 0; l--) {
            r[l] = r[l + 1] * chi1(q[l]);
        }
        return r;
    }

    /**
     * Backward (gradient) covariance recursion under gradient independence: q̃_l = q̃_{l+1} · χ between
     * layers, i.e. the squared-gradient norm ratio after {@code layers} layers at q*: χ₁^layers.
     */
    public double gradientNormRatio(double qStar, int layers) {
        return Math.pow(chi1(qStar), layers);
    }
}
