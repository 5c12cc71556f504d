package org.ntk4j.theory;

import org.ejml.data.DMatrixRMaj;

/**
 * Closed forms for gradient flow in linear networks on whitened data (Atanasov, Bordelon &amp;
 * Pehlevan, "Neural networks as kernel learners: the silent alignment effect", ICLR 2022), with the errata
 * below corrected. Setting: f(x) = w^Lᵀ W^{L−1}⋯W¹x, loss ℒ = (1/2P) Σ_μ (f(x^μ) − y^μ)², y = s βᵀx with ‖β‖ = 1, data
 * whitened so X Xᵀ/P = I on span(X), gradient flow with η = 1 unless per-layer rates η_l are given (the paper's §3 and
 * App. D.1).
 *
 * <ul>
 *   <li>Two-layer scale (B.3): c = u², ċ = 2c(s − c), c(t) = s e^{2st}/(e^{2st} − 1 + s/c₀).</li>
 *   <li>Two-layer order parameters (eqs. 27–28, r₀ ≈ 0): q(t) = 2s cosh(2st)/((e^{2st} − 1) + 2s/q₀),
 *       r(t) = 2s sinh(2st)/((e^{2st} − 1) + 2s/q₀), with q = ½(‖a‖² + βᵀWᵀWβ), r = βᵀWᵀa.</li>
 *   <li>Half-loss time (derived from eqs. 27–28; not printed in the paper):
 *       t½ = ln((√2 − 1)(s/c₀ − 1))/(2s), c₀ = q₀/2 (the paper's "s⁻¹ log(s/σ²)" is off by a factor 2).</li>
 *   <li>Deep scale, balanced (eq. 39 <b>corrected</b>: the printed equation drops the factor L;
 *       the paper's own B.3 has 2c(s − c) at L = 2): c = u^L, ċ = L c^{2−2/L}(s − c),
 *       equivalently u̇ = u^{L−1}(s − u^L) (D.1).</li>
 *   <li>Small-c blow-up time (eq. 40 with the corrected ODE): t* = c₀^{−(L−2)/L}/((L − 2)s).</li>
 *   <li>Final NTK (eq. 42 <b>corrected</b>: the printed prefactor is s^{2L−2}):
 *       K_∞(x,x') = u*^{2L−2} xᵀ[Aββᵀ + B I]x' with u*^L Π_{l&lt;L} √(η_l/η_L) = s,
 *       A = Σ_{l=2}^L Π_{l'≠l} η_{l'}/η_L, B = Π_{l≠1} η_l/η_L (eqs. 10, 35–36);
 *       for equal rates u*^{2L−2} = s^{2(L−1)/L}, not s^{2L−2}.</li>
 *   <li>Final (uncentred) alignment for rank-r whitened data (the paper's §2 with rank r, as for MNIST):
 *       A_final = (A + B)/√((A + B)² + (r − 1)B²) = L/√(L² + r − 1) for equal rates.</li>
 *   <li>Expected initial q₀ (eq. 17, exact for ‖β‖ = 1): E[q₀] = (σ²/2)(1 + N/D).</li>
 * </ul>
 */
public final class LinearNetworks {
    private LinearNetworks() {}

    /** Two-layer scale c(t) = s e^{2st}/(e^{2st} − 1 + s/c₀). */
    public static double twoLayerScale(double t, double s, double c0) {
        double e = Math.exp(-2 * s * t);
        return s / (1 - e + s / c0 * e);
    }

    /** {q(t), r(t)} of eqs. 27–28 from the initial q₀ (r₀ ≈ 0). */
    public static double[] twoLayerOrderParameters(double t, double s, double q0) {
        double x = 2 * s * t;
        double den = Math.expm1(x) + 2 * s / q0;
        return new double[] {2 * s * Math.cosh(x) / den, 2 * s * Math.sinh(x) / den};
    }

    /** Loss of the whitened two-layer net in terms of r: ℒ ≈ ½(s − r)². */
    public static double twoLayerLoss(double s, double r) {
        return 0.5 * (s - r) * (s - r);
    }

    /** t½ = ln((√2 − 1)(s/c₀ − 1))/(2s). */
    public static double halfLossTime(double s, double c0) {
        return Math.log((Math.sqrt(2) - 1) * (s / c0 - 1)) / (2 * s);
    }

    /** E[q₀] = (σ²/2)(1 + N/D) for W ~ N(0, σ²/D), a ~ N(0, σ²/N). */
    public static double expectedInitialQ(double sigma, int hidden, int inputDim) {
        return sigma * sigma / 2 * (1 + (double) hidden / inputDim);
    }

    /** Right-hand side of the corrected deep scale ODE, ċ = L c^{2−2/L}(s − c). */
    public static double deepScaleRate(double c, double s, int depth) {
        return depth * Math.pow(c, 2 - 2.0 / depth) * (s - c);
    }

    /**
     * c(t) for the balanced deep network: the corrected ODE in the variable u = c^{1/L}, u̇ = u^{L−1}(s − u^L),
     * integrated by RK4 with {@code steps} steps (global error O((t/steps)⁴)); for L = 2 use the closed form.
     */
    public static double deepScale(double t, double s, double c0, int depth, int steps) {
        if (depth == 2) {
            return twoLayerScale(t, s, c0);
        }
        double[] u = Rk4.integrate(
                (tt, y, dy) -> dy[0] = Math.pow(y[0], depth - 1) * (s - Math.pow(y[0], depth)),
                new double[] {Math.pow(c0, 1.0 / depth)},
                0,
                t,
                steps);
        return Math.pow(u[0], depth);
    }

    /**
     * Half-loss time of the balanced deep flow (corrected eq. 39): the time c(t) takes from c₀ to
     * c½ = s − (s − c₀)/√2, where the loss ½(s − c)² is half its initial value. Written as the quadrature
     * t½ = ∫ du/(u^{L−1}(s − u^L)) from u₀ = c₀^{1/L} to c½^{1/L}, in the variable v = ln u (integrand
     * 1/(u^{L−2}(s − u^L)), smooth on the interval), by composite Simpson with {@code intervals} (even)
     * intervals (error O(intervals⁻⁴)). For L = 2 this equals the closed form
     * ln(c½(s/c₀ − 1)/(s − c½))/(2s) of the logistic c(t).
     */
    public static double deepHalfLossTime(double s, double c0, int depth, int intervals) {
        if (!(c0 > 0 && c0 < s) || depth < 2 || intervals < 2 || intervals % 2 != 0) {
            throw new IllegalArgumentException("need 0 < c0 < s, L >= 2, an even number of intervals");
        }
        double half = s - (s - c0) / Math.sqrt(2);
        double a = Math.log(c0) / depth;
        double b = Math.log(half) / depth;
        double h = (b - a) / intervals;
        double sum = 0;
        for (int k = 0; k <= intervals; k++) {
            double u = Math.exp(a + k * h);
            double g = 1 / (Math.pow(u, depth - 2) * (s - Math.pow(u, depth)));
            sum += (k == 0 || k == intervals ? 1 : k % 2 == 1 ? 4 : 2) * g;
        }
        return sum * h / 3;
    }

    /** Blow-up time of the small-c approximation, t* = c₀^{−(L−2)/L}/((L−2)s) (corrected eq. 40), L ≥ 3. */
    public static double deepBlowUpTime(double c0, double s, int depth) {
        return Math.pow(c0, -(depth - 2.0) / depth) / ((depth - 2.0) * s);
    }

    /** {A, B} of eqs. 10/35–36 from per-layer learning rates η_1..η_L. */
    public static double[] finalNtkCoefficients(double[] etas) {
        int depth = etas.length;
        double etaL = etas[depth - 1];
        double a = 0;
        for (int l = 2; l <= depth; l++) {
            double p = 1;
            for (int k = 1; k <= depth; k++) {
                if (k != l) {
                    p *= etas[k - 1] / etaL;
                }
            }
            a += p;
        }
        double b = 1;
        for (int k = 2; k <= depth; k++) {
            b *= etas[k - 1] / etaL;
        }
        return new double[] {a, b};
    }

    /** u*^{2L−2} with u*^L Π_{l&lt;L} √(η_l/η_L) = s. */
    public static double finalScale(double s, double[] etas) {
        int depth = etas.length;
        double etaL = etas[depth - 1];
        double p = 1;
        for (int l = 0; l < depth - 1; l++) {
            p *= Math.sqrt(etas[l] / etaL);
        }
        double u = Math.pow(s / p, 1.0 / depth);
        return Math.pow(u, 2.0 * depth - 2);
    }

    /** Final NTK matrix M (D × D) with K_∞(x,x') = xᵀMx': M = u*^{2L−2}(Aββᵀ + B I). */
    public static DMatrixRMaj finalNtkMatrix(double[] beta, double s, double[] etas) {
        double[] ab = finalNtkCoefficients(etas);
        double scale = finalScale(s, etas);
        int d = beta.length;
        DMatrixRMaj m = new DMatrixRMaj(d, d);
        for (int i = 0; i < d; i++) {
            for (int j = 0; j < d; j++) {
                m.set(i, j, scale * (ab[0] * beta[i] * beta[j] + (i == j ? ab[1] : 0)));
            }
        }
        return m;
    }

    /**
     * The output-traced final NTK matrix Σ_c M_cc (D × D, K_tr(x,x') = xᵀM_tr x') of an L-layer linear network with C
     * outputs trained to a whitened multi-output teacher β (C × D, row-major), equal learning rates: the trace over c of
     * eq. 53 with u_α = s_α^{1/L} at convergence (App. G.1) and the <b>corrected</b> l = 1 factor B₁ = I (the literal
     * Σ_β r₁r₁ᵀ misses a trained network by 65%, notes' erratum), written with matrix powers of G = βᵀβ = Σ s_α² v_αv_αᵀ:
     * <pre>  M_tr = C·G^{(L−1)/L} + Σ_{l=1}^{L−1} tr(G^{(L−l)/L}) · G^{(l−1)/L},   G⁰ := I. </pre>
     * For C = 1 this is s^{2(L−1)/L}[(L − 1)ββᵀ + I] ({@link #finalNtkMatrix} with equal rates).
     */
    public static DMatrixRMaj tracedMultiOutputFinalNtk(double[] beta, int outputs, int depth) {
        int d = beta.length / outputs;
        DMatrixRMaj b = new DMatrixRMaj(outputs, d, true, beta);
        DMatrixRMaj g = new DMatrixRMaj(d, d);
        org.ejml.dense.row.CommonOps_DDRM.multTransA(b, b, g);
        var eig = org.ejml.dense.row.factory.DecompositionFactory_DDRM.eig(d, true, true);
        if (!eig.decompose(g.copy())) {
            throw new IllegalStateException("eigendecomposition of βᵀβ failed");
        }
        double[] lam = new double[d];
        DMatrixRMaj[] vec = new DMatrixRMaj[d];
        double top = 0;
        for (int k = 0; k < d; k++) {
            lam[k] = eig.getEigenvalue(k).getReal();
            vec[k] = eig.getEigenVector(k);
            top = Math.max(top, lam[k]);
        }
        for (int k = 0; k < d; k++) {
            lam[k] = lam[k] > 1e-12 * top ? lam[k] : 0; // rounding in the null space of βᵀβ, not a direction
        }
        DMatrixRMaj m = new DMatrixRMaj(d, d);
        addPower(m, outputs, lam, vec, (depth - 1.0) / depth);
        for (int l = 1; l <= depth - 1; l++) {
            double tr = 0;
            for (double v : lam) {
                tr += v > 0 ? Math.pow(v, (depth - (double) l) / depth) : 0;
            }
            if (l == 1) {
                for (int i = 0; i < d; i++) {
                    m.add(i, i, tr);
                }
            } else {
                addPower(m, tr, lam, vec, (l - 1.0) / depth);
            }
        }
        return m;
    }

    /** m += c·Σ_k λ_k^p v_k v_kᵀ over the positive eigenvalues. */
    private static void addPower(DMatrixRMaj m, double c, double[] lam, DMatrixRMaj[] vec, double p) {
        int d = m.numRows;
        for (int k = 0; k < lam.length; k++) {
            if (lam[k] <= 0) {
                continue;
            }
            double w = c * Math.pow(lam[k], p);
            for (int i = 0; i < d; i++) {
                for (int j = 0; j < d; j++) {
                    m.add(i, j, w * vec[k].get(i) * vec[k].get(j));
                }
            }
        }
    }

    /** (A + B)/√((A + B)² + (r − 1)B²). */
    public static double finalAlignment(double[] etas, int rank) {
        double[] ab = finalNtkCoefficients(etas);
        double apb = ab[0] + ab[1];
        return apb / Math.sqrt(apb * apb + (rank - 1) * ab[1] * ab[1]);
    }

    /** Equal learning rates: L/√(L² + r − 1). */
    public static double finalAlignment(int depth, int rank) {
        return depth / Math.sqrt((double) depth * depth + rank - 1);
    }

    /**
     * Uncentred kernel–target alignment yᵀKy/(‖K‖_F ‖y‖²) (Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, §2).
     */
    public static double alignment(DMatrixRMaj k, double[] y) {
        int n = y.length;
        double num = 0;
        double fro = 0;
        double yy = 0;
        for (int i = 0; i < n; i++) {
            yy += y[i] * y[i];
            for (int j = 0; j < n; j++) {
                double v = k.get(i, j);
                num += y[i] * v * y[j];
                fro += v * v;
            }
        }
        return num / (Math.sqrt(fro) * yy);
    }

    /**
     * Average-case generalisation error of kernel regression on a transfer task (Atanasov, Bordelon &amp; Pehlevan,
     * Silent Alignment, App. E, eq. 46 and E.1, with the κ² the printed numerator lacks: without it E_g(P = 0) ≠ ‖w‖²):
     * kernel K(x, x') = xᵀ[Aββᵀ + I]x', x ~ N(0, I_D), new task y = w·x with w = αβ + √(1 − α²)w_⊥, P samples,
     * ridge λ ≥ 0 (0: ridgeless; then P &lt; D, since for P ≥ D the noiseless linear target is learned exactly):
     * <pre>
     *   E_g = κ²/(1 − γ) [α²/((1+A)P + κ)² + (1 − α²)/(P + κ)²]
     *   κ   = λ + κ [(1+A)/((1+A)P + κ) + (D − 1)/(P + κ)]
     *   γ   = P [(1+A)²/((1+A)P + κ)² + (D − 1)/(P + κ)²]
     * </pre>
     * (Bordelon et al. 2020, Canatar et al. 2021 for the method; κ by bisection on log κ.)
     */
    public static double transferError(double a, double alpha, int p, int d, double ridge) {
        if (p >= d && ridge == 0) {
            return 0;
        }
        double l1 = 1 + a;
        double k = transferKappa(a, p, d, ridge);
        double e1 = l1 * p + k;
        double e2 = p + k;
        double gamma = p * (l1 * l1 / (e1 * e1) + (d - 1) / (e2 * e2));
        return k * k / (1 - gamma) * (alpha * alpha / (e1 * e1) + (1 - alpha * alpha) / (e2 * e2));
    }

    /**
     * κ of {@link #transferError}: the root of κ = λ + κ[(1+A)/((1+A)P + κ) + (D − 1)/(P + κ)] (0 for λ = 0, P ≥ D).
     */
    public static double transferKappa(double a, int p, int d, double ridge) {
        if (p >= d && ridge == 0) {
            return 0;
        }
        double l1 = 1 + a;
        // κ = λ + κΣ(κ) ⇔ λ/κ + Σ(κ) − 1 = 0, a decreasing function of κ: bisection on log κ
        java.util.function.DoubleUnaryOperator excess = k -> ridge / k + l1 / (l1 * p + k) + (d - 1) / (p + k) - 1;
        double lo = 1e-300;
        double hi = 1;
        while (excess.applyAsDouble(hi) > 0) {
            hi *= 2;
        }
        for (int it = 0; it < 2000 && hi - lo > 1e-15 * hi; it++) {
            double mid = lo < 1e-200 ? hi / 2 : Math.sqrt(lo * hi);
            if (excess.applyAsDouble(mid) > 0) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return (lo + hi) / 2;
    }
}
