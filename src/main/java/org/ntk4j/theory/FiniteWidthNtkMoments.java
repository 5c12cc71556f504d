package org.ntk4j.theory;

/**
 * Finite-width moments of the NTK diagonal Θ(x,x) of a ReLU network at initialisation, standard
 * parameterisation, σ_b = 0 with trainable biases, scalar linear output (Seleznova &amp; Kutyniok, NTK Beyond the
 * Infinite-Width Limit, ICML 2022, Thm 3.2 eqs. (11)–(15) and Lemmas A.1–A.7).
 *
 * <p>With a = σ_w²/2, hidden widths n_1..n_{L−1}, input dimension n_0,
 * X_(i,j) = Π_{k=i}^{j−1}(1 + 5/n_k), C_(i,j) = Π_{k=i}^{j−1}(1 + 1/n_k) (O(M^{−3/2}) terms dropped):
 * <pre>
 *   E[Θ_W] = ‖x‖² a^{L−1} Σ_l n_{l−1}/n_0                                    (eq. 11)
 *   E[Θ_b] = Σ_l a^{L−l}                                                       (eq. 12)
 *   E[Θ_W²] / (‖x‖⁴ a^{2(L−1)}) = Σ_l (n_{l−1}/n_0)² X_(1,L)
 *                               + 2 Σ_{l1&lt;l2} n_{l1−1} n_{l2−1}/n_0² · X_(1,l1) C_(l1,l2) X_(l2,L)
 *   E[Θ_b²] / a^{2L} = Σ_l X_(l,L)/a^{2l} + 2 Σ_{l1&lt;l2} X_(l2,L)/a^{l1+l2}    (eq. 14)
 *   E[Θ_WΘ_b] / (‖x‖² a^{2L−1}) = Σ_l (n_{l−1}/n_0) X_(l,L)/a^l
 *        + Σ_{l1&lt;l2} X_(l2,L)/a^{l1} · (n_{l1−1}/n_0) · (n_{l2−1}/n_{l1−1} C_(l1,l2) + a^{l1}/a^{l2})   (eq. 15)
 *   dispersion r = E[Θ²]/E[Θ]²
 * </pre>
 * <b>Erratum:</b> the second moment of Θ_W is the form derived in the proofs (Lemmas A.5–A.7), NOT the printed
 * eq. (13), which lacks the factor 2 and has the wrong X range (the proof form matches Monte Carlo, the printed one
 * does not).
 *
 * <p>Also: the infinite-depth-and-width limits λ = L/M of Thm 3.1 (eqs. (8), (9), (40), (41),
 * with the printed "e^{δλ}" read as e^{5λ}), and the ordered-phase off-diagonal estimate eq. (18) with the
 * names g and r as in the main text (eq. (18) swaps them relative to App. A.2).
 */
public final class FiniteWidthNtkMoments {
    private final int[] n;
    private final double a;
    private final double x2;
    /** logX[j] = Σ_{k=1}^{j−1} ln(1 + 5/n_k), logC likewise with 1/n_k (index 1..L). */
    private final double[] logX;

    private final double[] logC;

    /** Moments of E[Θ_W], E[Θ_b], E[Θ_W²], E[Θ_b²], E[Θ_WΘ_b], E[Θ], E[Θ²] and r. */
    public record Moments(double meanW, double meanB, double secondW, double secondB, double crossWB) {
        public double mean() {
            return meanW + meanB;
        }

        public double second() {
            return secondW + 2 * crossWB + secondB;
        }

        /** r = E[Θ²]/E[Θ]². */
        public double dispersion() {
            return second() / (mean() * mean());
        }
    }

    /**
     * @param widths [n_0, n_1, …, n_{L−1}] (input dimension, then the L−1 hidden widths)
     * @param sigmaW2 σ_w²
     * @param inputNormSquared ‖x⁰‖² (the thesis normalises to 1)
     */
    public FiniteWidthNtkMoments(int[] widths, double sigmaW2, double inputNormSquared) {
        if (widths.length < 1) {
            throw new org.ntk4j.UserException("need at least the input dimension");
        }
        this.n = widths.clone();
        this.a = sigmaW2 / 2;
        this.x2 = inputNormSquared;
        int depth = widths.length;
        logX = new double[depth + 1];
        logC = new double[depth + 1];
        for (int j = 2; j <= depth; j++) {
            logX[j] = logX[j - 1] + Math.log1p(5.0 / n[j - 1]);
            logC[j] = logC[j - 1] + Math.log1p(1.0 / n[j - 1]);
        }
    }

    /** Constant width M, depth L (weight layers), n_0 = α0·M given explicitly as {@code inputDim}. */
    public static FiniteWidthNtkMoments constantWidth(int width, int depth, int inputDim, double sigmaW2) {
        int[] w = new int[depth];
        w[0] = inputDim;
        for (int l = 1; l < depth; l++) {
            w[l] = width;
        }
        return new FiniteWidthNtkMoments(w, sigmaW2, 1.0);
    }

    public int depth() {
        return n.length;
    }

    /** X_(i,j) = Π_{k=i}^{j−1}(1 + 5/n_k), from prefix sums of logarithms (O(1) per call). */
    double bigX(int i, int j) {
        return Math.exp(logX[j] - logX[i]);
    }

    /** C_(i,j) = Π_{k=i}^{j−1}(1 + 1/n_k). */
    double bigC(int i, int j) {
        return Math.exp(logC[j] - logC[i]);
    }

    /** All moments of Thm 3.2 (proof form). */
    public Moments moments() {
        int depth = n.length;
        double n0 = n[0];
        double sumRatio = 0;
        for (int l = 1; l <= depth; l++) {
            sumRatio += n[l - 1] / n0;
        }
        double meanW = x2 * Math.pow(a, depth - 1) * sumRatio;
        double meanB = 0;
        for (int l = 1; l <= depth; l++) {
            meanB += Math.pow(a, depth - l);
        }
        double sw = 0;
        double xFull = bigX(1, depth);
        for (int l = 1; l <= depth; l++) {
            double r = n[l - 1] / n0;
            sw += r * r * xFull;
        }
        for (int l1 = 1; l1 <= depth; l1++) {
            for (int l2 = l1 + 1; l2 <= depth; l2++) {
                sw += 2 * n[l1 - 1] * (double) n[l2 - 1] / (n0 * n0) * bigX(1, l1) * bigC(l1, l2) * bigX(l2, depth);
            }
        }
        double secondW = sw * x2 * x2 * Math.pow(a, 2 * (depth - 1));
        // E[Θ_b²] and E[Θ_WΘ_b], evaluated in log-safe form: a^{2L}/a^{l1+l2} = a^{2L−l1−l2}
        double sb = 0;
        for (int l = 1; l <= depth; l++) {
            sb += bigX(l, depth) * Math.pow(a, 2.0 * depth - 2 * l);
        }
        for (int l1 = 1; l1 <= depth; l1++) {
            for (int l2 = l1 + 1; l2 <= depth; l2++) {
                sb += 2 * bigX(l2, depth) * Math.pow(a, 2.0 * depth - l1 - l2);
            }
        }
        double cr = 0;
        for (int l = 1; l <= depth; l++) {
            cr += n[l - 1] / n0 * bigX(l, depth) * Math.pow(a, 2.0 * depth - 1 - l);
        }
        for (int l1 = 1; l1 <= depth; l1++) {
            for (int l2 = l1 + 1; l2 <= depth; l2++) {
                double inner = n[l2 - 1] / (double) n[l1 - 1] * bigC(l1, l2) * Math.pow(a, 2.0 * depth - 1 - l1)
                        + Math.pow(a, 2.0 * depth - 1 - l2);
                cr += bigX(l2, depth) * n[l1 - 1] / n0 * inner;
            }
        }
        return new Moments(meanW, meanB, secondW, sb, cr * x2);
    }

    /** r = E[Θ²(x,x)]/E²[Θ(x,x)]. */
    public double dispersion() {
        return moments().dispersion();
    }

    // ---------------------------------------------------------------- Thm 3.1 limits (λ = L/M)

    /** Chaotic phase (a &gt; 1), any α0: r → e^{5λ}/(2λ) − e^{5λ}/(8λ²) + e^{λ}/(8λ²). */
    public static double chaoticLimit(double lambda) {
        double e5 = Math.exp(5 * lambda);
        return e5 / (2 * lambda) - e5 / (8 * lambda * lambda) + Math.exp(lambda) / (8 * lambda * lambda);
    }

    /** Edge of chaos (a = 1), eq. (9) ≡ (41), input ratio α0 = n_0/M. */
    public static double edgeOfChaosLimit(double lambda, double alpha0) {
        double e5 = Math.exp(5 * lambda);
        double e1 = Math.exp(lambda);
        double l2 = lambda * lambda;
        double v = e5 * (1 / (2 * lambda) + (2 * alpha0 * alpha0 - 8 * alpha0) / (25 * l2))
                + (e1 - e5) * (1 - 4 * alpha0) / (8 * l2)
                + 2 * alpha0 / (5 * lambda) * ((4 - alpha0) / (5 * lambda) - 1 - alpha0);
        return v / ((1 + alpha0) * (1 + alpha0));
    }

    /**
     * Lemma A.6, edge of chaos: lim E[Θ_b²]/L² = (2/(25λ²))(e^{5λ} − 1) − 2/(5λ) (E[Θ_b] = L exactly, so this is
     * also the limit of the bias part's dispersion).
     */
    public static double biasSecondMomentLimitEoc(double lambda) {
        return 2 / (25 * lambda * lambda) * Math.expm1(5 * lambda) - 2 / (5 * lambda);
    }

    /**
     * Lemma A.7, edge of chaos: lim E[Θ_WΘ_b]/L² =
     * (1/(4α0))·(9e^{5λ}/(25λ²) − e^{λ}/λ² − 4/(5λ) + 16/(25λ²)).
     */
    public static double crossMomentLimitEoc(double lambda, double alpha0) {
        double l2 = lambda * lambda;
        return (9 * Math.exp(5 * lambda) / (25 * l2) - Math.exp(lambda) / l2 - 4 / (5 * lambda) + 16 / (25 * l2))
                / (4 * alpha0);
    }

    /** Lemma A.6: lim E[Θ_b] for a &lt; 1 is 1/(1 − a); the chaotic dispersion of Θ_b tends to e^{5λ}. */
    public static double biasMeanLimitOrdered(double sigmaW2) {
        return 1 / (1 - sigmaW2 / 2);
    }

    /** Limit of r for σ_w² (ordered → 1). */
    public static double limitDispersion(double sigmaW2, double lambda, double alpha0) {
        double a = sigmaW2 / 2;
        if (a < 1) {
            return 1;
        }
        return a == 1 ? edgeOfChaosLimit(lambda, alpha0) : chaoticLimit(lambda);
    }

    // ---------------------------------------------------------------- Off-diagonal estimate (eq. 18)

    /** r(t) = (√(1−t²) + tπ/2 + t·arcsin t)/π (the ReLU correlation map; "g" in App. A.2). */
    public static double correlationMap(double t) {
        return (Math.sqrt(Math.max(0, 1 - t * t)) + t * Math.PI / 2 + t * Math.asin(t)) / Math.PI;
    }

    /** g(t) = (π/2 + arcsin t)/π ("f" in App. A.2). */
    public static double derivativeMap(double t) {
        return (Math.PI / 2 + Math.asin(t)) / Math.PI;
    }

    /**
     * Ordered-phase estimate of E[Θ(x,x̃)]/E[Θ(x,x)] for inputs with ⟨x⁰,x̃⁰⟩ = ρ0 (unit norms), eq. (18):
     * Σ_l a^{L−l} Π_{k=l}^{L−1} g(ρ_{k−1}) / Σ_l a^{L−l}, ρ_k = r^{∘k}(ρ0). A lower estimate; the thesis proves
     * the ratio is ≥ 1/4 in every phase.
     */
    public static double offDiagonalRatio(int depth, double sigmaW2, double rho0) {
        double a = sigmaW2 / 2;
        double[] rho = new double[depth + 1];
        rho[0] = rho0;
        for (int k = 1; k <= depth; k++) {
            rho[k] = correlationMap(rho[k - 1]);
        }
        double num = 0;
        double den = 0;
        for (int l = 1; l <= depth; l++) {
            double p = 1;
            for (int k = l; k <= depth - 1; k++) {
                p *= derivativeMap(rho[k - 1]);
            }
            double w = Math.pow(a, depth - l);
            num += w * p;
            den += w;
        }
        return num / den;
    }

    // ---------------------------------------------------------------- first GD step (Thm 4.1 / A.10)

    /**
     * The chaotic-phase lower bound on the first-step change of the NTK diagonal, Seleznova &amp; Kutyniok, NTK Beyond
     * the Infinite-Width Limit, proof of Theorem A.10 (one GD step with learning rate η on the single sample (x, y),
     * squared loss, ReLU, standard parameterisation, σ_b = 0, constant width M, input dimension n₀), as printed:
     * <pre>
     *   E|ΔΘ(x,x)| ≥ 4η ‖x⁰‖⁴/n₀ · a^{2L−1} Σ_{ℓ=1}^{L} Π_{j=ℓ+1}^{L−1}(1 + 1/M) Π_{i=1}^{ℓ−1}(1 + 5/M),   a = σ_w²/2,
     * </pre>
     * dropping the O(M^{−3/2}) terms. The proof keeps only the ℓ' = ℓ + 1 terms and replaces (f − y)·f by f², so it
     * is a heuristic bound at finite size (for y = 0 the replacement is exact).
     */
    public static double firstStepLowerBound(
            int width, int depth, int inputDim, double sigmaW2, double inputNormSquared, double eta) {
        double a = sigmaW2 / 2;
        double sum = 0;
        for (int l = 1; l <= depth; l++) {
            sum += Math.pow(1 + 1.0 / width, Math.max(0, depth - 1 - l)) * Math.pow(1 + 5.0 / width, l - 1);
        }
        return 4 * eta * inputNormSquared * inputNormSquared / inputDim * Math.pow(a, 2.0 * depth - 1) * sum;
    }

    // ---------------------------------------------------------------- estimators (App. C.3)

    /** Plain ratio μ̂₂/μ̂₁² of i.i.d. samples of Θ(x,x). */
    public static double dispersionPlain(double[] samples) {
        double m1 = 0;
        double m2 = 0;
        for (double s : samples) {
            m1 += s;
            m2 += s * s;
        }
        m1 /= samples.length;
        m2 /= samples.length;
        return m2 / (m1 * m1);
    }

    /**
     * Leave-one-out estimator (1/N) Σ_i θ_i² / μ̂²_{1,(−i)} with the unbiased
     * μ̂²_{1,(−i)} = [(Σ_{j≠i}θ_j)² − Σ_{j≠i}θ_j²]/((N−1)(N−2)); the thesis prints a 1/(N−2) prefactor,
     * which biases it by N/(N−2) (App. C.3).
     */
    public static double dispersionLeaveOneOut(double[] samples) {
        int nn = samples.length;
        double s1 = 0;
        double s2 = 0;
        for (double s : samples) {
            s1 += s;
            s2 += s * s;
        }
        double sum = 0;
        for (double s : samples) {
            double a1 = s1 - s;
            double a2 = s2 - s * s;
            double mu1sq = (a1 * a1 - a2) / ((nn - 1.0) * (nn - 2.0));
            sum += s * s / mu1sq;
        }
        return sum / nn;
    }
}
