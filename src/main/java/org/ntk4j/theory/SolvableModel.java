package org.ntk4j.theory;

/**
 * The exactly solvable two-layer linear model of Xu &amp; Ziyin, "When Does Feature Learning Happen?
 * Perspective from an Analytically Solvable Model" (arXiv:2401.07085 v1, Thm 1 eqs. (6)–(12), (17), (18), (21)),
 * re-derived from the paper's definitions and checked against RK4 gradient flow (the text of the paper we
 * worked from had lost its displayed equations; this re-derivation is the one implemented).
 *
 * <p>f(x) = κ uᵀW x, one data point (x, y) (any data on a line reduces to it, as the paper notes), loss
 * (f − y)² (no ½: with ½ halve both rates), gradient flow u̇ = −η_u ∂ℒ/∂u, Ẇ = −η_W ∂ℒ/∂W. With
 * a = √η_W‖x‖u, b = √η_u Wx, p = a + b, q = a − b, P = ‖p₀‖², Q = ‖q₀‖², C = p₀·q₀, c = 2κ√(η_uη_W)‖x‖,
 * k = κ/(4√(η_uη_W)‖x‖):
 * <pre>
 *   p(t) = p₀ z^{−1/2},  q(t) = q₀ z^{1/2},  f = k(P/z − Qz)
 *   ż = κ²P − 2cyz − κ²Qz²,  z± = (−cy ± √(c²y² + κ⁴PQ))/(κ²Q)
 *   z(t) = (z₊ − z₋ K e^{−t/τ})/(1 − K e^{−t/τ}),  K = (1 − z₊)/(1 − z₋),  1/τ = 2√(c²y² + κ⁴PQ)
 *   u(t) = (p₀ z^{−1/2} + q₀ z^{1/2})/(2√η_W‖x‖),  W(t) = W₀ + [p₀(z^{−1/2} − 1) − q₀(z^{1/2} − 1)] xᵀ/(2√η_u‖x‖²)
 *   NTK  Θ_η = κ²(η_u‖Wx‖² + η_W‖u‖²‖x‖²) = (κ²/2)(P/z + Qz) = √(c²f² + κ⁴PQ)       (eq. 18)
 *   τ⁻² = 16κ²η_uη_W‖x‖²y² + 4κ⁴PQ                                                  (eq. 17)
 *   alignment ζ = cos(u, Wx) = f/√(f² + κ²D²),  D = √(PQ − C²)/(2√(η_uη_W)‖x‖) conserved  (eq. 21)
 * </pre>
 * Degenerate initialisations (Prop. 1): Q = 0 gives z = z_eq + (1 − z_eq)e^{−2cyt}, z_eq = κ²P/(2cy)
 * (z = 1 + κ²Pt when y = 0); P = 0 gives 1/z = −κ²Q/(2cy) + (1 + κ²Q/(2cy))e^{2cyt}.
 * Exact discrete GD (derived here, not in the paper): with s_k = c(f_k − y), p_{k+1} = (1 − s_k)p_k, q_{k+1} = (1 +
 * s_k)q_k.
 */
public final class SolvableModel {
    private final double[] u0;
    private final double[][] w0;
    private final double[] x;
    private final double y;
    private final double kappa;
    private final double etaU;
    private final double etaW;
    private final double xNorm;
    private final double[] p0;
    private final double[] q0;
    private final double bigP;
    private final double bigQ;
    private final double bigC;
    private final double c;
    private final double k;

    /** Discrete GD trajectory: outputs f_k, alignments ζ_k, NTKs Θ_k for k = 0..steps. */
    public record GdTrajectory(double[] output, double[] alignment, double[] ntk) {}

    /**
     * @param u0 second layer u ∈ R^d
     * @param w0 first layer W ∈ R^{d×d0}
     * @param x the (reduced) input, y the target, κ the output multiplier, η_u, η_W the layer learning rates
     */
    public SolvableModel(double[] u0, double[][] w0, double[] x, double y, double kappa, double etaU, double etaW) {
        this.u0 = u0.clone();
        this.w0 = new double[w0.length][];
        for (int i = 0; i < w0.length; i++) {
            this.w0[i] = w0[i].clone();
        }
        this.x = x.clone();
        this.y = y;
        this.kappa = kappa;
        this.etaU = etaU;
        this.etaW = etaW;
        this.xNorm = Math.sqrt(MlpKernel.dot(x, x));
        double[] wx = matVec(w0, x);
        int d = u0.length;
        p0 = new double[d];
        q0 = new double[d];
        for (int i = 0; i < d; i++) {
            double a = Math.sqrt(etaW) * xNorm * u0[i];
            double b = Math.sqrt(etaU) * wx[i];
            p0[i] = a + b;
            q0[i] = a - b;
        }
        bigP = MlpKernel.dot(p0, p0);
        bigQ = MlpKernel.dot(q0, q0);
        bigC = MlpKernel.dot(p0, q0);
        c = 2 * kappa * Math.sqrt(etaU * etaW) * xNorm;
        k = kappa / (4 * Math.sqrt(etaU * etaW) * xNorm);
    }

    static double[] matVec(double[][] w, double[] v) {
        double[] r = new double[w.length];
        for (int i = 0; i < w.length; i++) {
            r[i] = MlpKernel.dot(w[i], v);
        }
        return r;
    }

    public double bigP() {
        return bigP;
    }

    public double bigQ() {
        return bigQ;
    }

    public double bigC() {
        return bigC;
    }

    public double initialOutput() {
        return k * (bigP - bigQ);
    }

    private double disc() {
        return Math.sqrt(c * c * y * y + Math.pow(kappa, 4) * bigP * bigQ);
    }

    /** z₊ (the limit of z). */
    public double zPlus() {
        if (bigQ == 0) {
            return y > 0 ? kappa * kappa * bigP / (2 * c * y) : Double.POSITIVE_INFINITY;
        }
        return (-c * y + disc()) / (kappa * kappa * bigQ);
    }

    public double zMinus() {
        return (-c * y - disc()) / (kappa * kappa * bigQ);
    }

    /** τ with 1/τ = 2√(c²y² + κ⁴PQ) (eq. 17: τ⁻² = 16κ²η_uη_W‖x‖²y² + 4κ⁴PQ). */
    public double tau() {
        return 1 / (2 * disc());
    }

    /** z(t), including the degenerate branches of Prop. 1. */
    public double z(double t) {
        double k2 = kappa * kappa;
        if (bigQ == 0) {
            if (y == 0) {
                return 1 + k2 * bigP * t;
            }
            double zeq = k2 * bigP / (2 * c * y);
            return zeq + (1 - zeq) * Math.exp(-2 * c * y * t);
        }
        if (bigP == 0) {
            if (y == 0) {
                return 1 / (1 + k2 * bigQ * t);
            }
            double r = k2 * bigQ / (2 * c * y);
            return 1 / (-r + (1 + r) * Math.exp(2 * c * y * t));
        }
        if (Double.isInfinite(t)) {
            return zPlus();
        }
        double zp = zPlus();
        double zm = zMinus();
        double kk = (1 - zp) / (1 - zm);
        double e = kk * Math.exp(-t / tau());
        return (zp - zm * e) / (1 - e);
    }

    /** f(t) = k(P/z − Qz). */
    public double output(double t) {
        double z = z(t);
        return k * (bigP / z - bigQ * z);
    }

    /** u(t). */
    public double[] u(double t) {
        double z = z(t);
        double a = 1 / Math.sqrt(z);
        double b = Math.sqrt(z);
        double[] u = new double[u0.length];
        for (int i = 0; i < u.length; i++) {
            u[i] = (p0[i] * a + q0[i] * b) / (2 * Math.sqrt(etaW) * xNorm);
        }
        return u;
    }

    /** W(t) = W₀ + [p₀(z^{−1/2} − 1) − q₀(z^{1/2} − 1)] xᵀ/(2√η_u‖x‖²). */
    public double[][] w(double t) {
        double z = z(t);
        double a = 1 / Math.sqrt(z) - 1;
        double b = Math.sqrt(z) - 1;
        double[][] w = new double[w0.length][];
        for (int i = 0; i < w0.length; i++) {
            double g = (p0[i] * a - q0[i] * b) / (2 * Math.sqrt(etaU) * xNorm * xNorm);
            w[i] = w0[i].clone();
            for (int j = 0; j < x.length; j++) {
                w[i][j] += g * x[j];
            }
        }
        return w;
    }

    /** Learning-rate-weighted NTK Θ_η(t) = (κ²/2)(P/z + Qz). */
    public double ntk(double t) {
        double z = z(t);
        return kappa * kappa / 2 * (bigP / z + bigQ * z);
    }

    /** Θ_η as a function of the current output: √(c²f² + κ⁴PQ). */
    public double ntkOfOutput(double f) {
        return Math.sqrt(c * c * f * f + Math.pow(kappa, 4) * bigP * bigQ);
    }

    /** Conserved area D = ‖u‖‖Wx‖ sin∠(u, Wx) = √(PQ − C²)/(2√(η_uη_W)‖x‖). */
    public double area() {
        return Math.sqrt(Math.max(0, bigP * bigQ - bigC * bigC)) / (2 * Math.sqrt(etaU * etaW) * xNorm);
    }

    /** Layer alignment ζ(t) = f/√(f² + κ²D²). */
    public double alignment(double t) {
        double f = output(t);
        double d = area();
        return f / Math.sqrt(f * f + kappa * kappa * d * d);
    }

    /** ζ(∞) = y/√(y² + κ²D²) (for non-degenerate initialisations). */
    public double finalAlignment() {
        double d = area();
        return y / Math.sqrt(y * y + kappa * kappa * d * d);
    }

    /** Relative NTK change Θ_η(∞)/Θ_η(0) − 1 = Θ_η(y)/Θ_η(f₀) − 1. */
    public double relativeNtkChange() {
        return ntkOfOutput(y) / ntkOfOutput(initialOutput()) - 1;
    }

    /**
     * {‖u‖², ‖Wx‖²} as functions of the output (Xu &amp; Ziyin, When Does Feature Learning Happen?, eqs. (25)–(26)).
     */
    public double[] norms(double f) {
        double th = ntkOfOutput(f) / (kappa * kappa);
        return new double[] {(th + bigC) / (2 * etaW * xNorm * xNorm), (th - bigC) / (2 * etaU)};
    }

    /**
     * The exact scalar recursion of full-batch GD with per-step rates η_u, η_W (the same rates as the flow,
     * read as step sizes): s_k = c(f_k − y), P ← (1−s)²P, Q ← (1+s)²Q, C ← (1−s²)C, D ← |1−s²|D.
     */
    public GdTrajectory gradientDescent(int steps) {
        double[] f = new double[steps + 1];
        double[] zeta = new double[steps + 1];
        double[] th = new double[steps + 1];
        double pp = bigP;
        double qq = bigQ;
        double d = area();
        for (int i = 0; i <= steps; i++) {
            f[i] = k * (pp - qq);
            zeta[i] = f[i] / Math.sqrt(f[i] * f[i] + kappa * kappa * d * d);
            th[i] = kappa * kappa / 2 * (pp + qq);
            double s = c * (f[i] - y);
            pp *= (1 - s) * (1 - s);
            qq *= (1 + s) * (1 + s);
            d *= Math.abs(1 - s * s);
        }
        return new GdTrajectory(f, zeta, th);
    }
}
