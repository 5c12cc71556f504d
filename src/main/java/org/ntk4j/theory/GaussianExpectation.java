package org.ntk4j.theory;

/**
 * Error-controlled Gaussian expectations of a pointwise nonlinearity φ that has no closed form:
 *
 * <pre>
 *   V  = E[φ(u) φ(v)],   V' = E[φ'(u) φ'(v)],   (u, v) ~ N(0, [[q11, q12], [q12, q22]])
 * </pre>
 *
 * (Lee et al. 2018, "Deep Neural Networks as Gaussian Processes", eq. (4) and the NTK recursion of Jacot et al.
 * 2018, "Neural Tangent Kernel: Convergence and Generalization in Neural Networks", Thm. 1, which needs V').
 *
 * <p>Method: the conditional (Cholesky) form u = s₁z, v = s₂(c z + √(1−c²) w) with z, w independent standard
 * normals, s_i = √q_ii, c = q12/(s₁s₂), so
 * <pre>
 *   V = ∫ φ(s₁z) [∫ φ(m(z) + b w) N(w) dw] N(z) dz,    m(z) = s₂ c z,  b = s₂ √(1−c²),
 * </pre>
 * and likewise V' with φ'. First try: a nested trapezoidal rule on sinh-mapped axes centred on the features
 * (see {@link #sinhTrapezoid}), with an error check on its own nodes, at step h = {@value #H0}, then h/2
 * (≈ 2000–6000 evaluations of φ, φ' in all). If the check still fails, the fallback integrates both axes by
 * globally adaptive Gauss–Kronrod (G10K21, QUADPACK QAG
 * strategy: bisect the panel with the largest |K21 − G10| until the summed estimate meets the tolerance) on
 * [−{@value #L}, {@value #L}] (Gaussian mass outside ≤ 2·10⁻²⁶). The outer axis starts with a breakpoint at
 * z = 0 (where φ(s₁z) changes on the scale 1/s₁), the inner axis at the point w₀ = −m/b where φ(m + b w)
 * changes; the adaptive bisection then resolves a feature of width ~1/s on a Gaussian of width 1 (the reason a
 * fixed Gauss–Hermite rule fails for tanh when q ≫ 1: the poles of tanh(s z) at z = ±iπ/(2s) approach the real
 * axis). At c = ±1 exactly (b = 0) the inner integral is φ(m) and the expectation is 1-D; near c = ±1 the inner
 * integrand is nearly constant and converges on the initial panels, so the result is continuous in c.
 *
 * <p>V and V' are computed together (one set of nodes, both components must meet the tolerance). The error
 * estimate |K21 − G10| summed over panels is conservative: the Kronrod value is far more accurate than the
 * Gauss value it is compared with, so the delivered error is typically many orders below the tolerance.
 */
final class GaussianExpectation {
    /** Half-width of the integration domain in standard-normal units. */
    static final double L = 10.5;
    /** Absolute tolerance of the outer (inner: ×0.1) integral, on E-values of O(1) functions. */
    static final double ABS_TOL = 1e-12;
    /** Relative tolerance. */
    static final double REL_TOL = 1e-11;

    private static final int MAX_PANELS = 4000;
    private static final double INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);

    // G10K21 (QUADPACK dqk21): Kronrod nodes x_k (k odd: Gauss nodes), Kronrod weights, Gauss weights.
    private static final double[] XGK = {
        0.995657163025808080735527280689003, 0.973906528517171720077964012084452,
        0.930157491355708226001207180059508, 0.865063366688984510732096688423493,
        0.780817726586416897063717578345042, 0.679409568299024406234327365114874,
        0.562757134668604683339000099272694, 0.433395394129247190799265943165784,
        0.294392862701460198131126603103866, 0.148874338981631210884826001129720,
        0.000000000000000000000000000000000
    };
    private static final double[] WGK = {
        0.011694638867371874278064396062192, 0.032558162307964727478818972459390,
        0.054755896574351996031381300244580, 0.075039674810919952767043140916190,
        0.093125454583697605535065465083366, 0.109387158802297641899210590325805,
        0.123491976262065851077208292614040, 0.134709217311473325928054001771707,
        0.142775938577060080797094273138717, 0.147739104901338491374841515972068,
        0.149445554002916905664936468389821
    };
    private static final double[] WG = {
        0.066671344308688137593568809893332, 0.149451349150580593145776339657697,
        0.219086362515982043995534934228163, 0.269266719309996355091226921569469,
        0.295524224714752870173892994651344
    };

    /** A vector-valued integrand: writes its {@code out.length} components at x. */
    interface VectorFunction {
        void eval(double x, double[] out);
    }

    /** φ and φ' evaluated together. */
    interface PhiPair {
        /** out[0] = φ(x), out[1] = φ'(x). */
        void eval(double x, double[] out);

        /**
         * True when φ is odd (then φ' is even and both integrands are invariant under (z, w) → (−z, −w), which
         * halves the trapezoidal work).
         */
        default boolean odd() {
            return false;
        }
    }

    private GaussianExpectation() {}

    /**
     * ∫_a^b f over panels delimited by the sorted {@code breaks} (first a, last b), adaptively bisected until
     * Σ|K21 − G10| ≤ max(absTol, relTol·|I|) for every component. Returns {I_0.., err_0..} (length 2k).
     * Throws if {@link #MAX_PANELS} panels do not reach the tolerance (no silent inaccuracy).
     */
    static double[] integrate(VectorFunction f, int k, double[] breaks, double absTol, double relTol) {
        int cap = 32;
        double[] lo = new double[cap];
        double[] hi = new double[cap];
        double[] val = new double[cap * k];
        double[] err = new double[cap * k];
        double[] work = null;
        int n = 0;
        for (int i = 0; i + 1 < breaks.length; i++) {
            if (breaks[i + 1] > breaks[i]) {
                lo[n] = breaks[i];
                hi[n] = breaks[i + 1];
                panel(f, k, lo[n], hi[n], val, err, n * k, work);
                n++;
            }
        }
        double[] total = new double[k];
        double[] totalErr = new double[k];
        double[] tol = new double[k];
        while (true) {
            java.util.Arrays.fill(total, 0);
            java.util.Arrays.fill(totalErr, 0);
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < k; j++) {
                    total[j] += val[i * k + j];
                    totalErr[j] += err[i * k + j];
                }
            }
            boolean done = true;
            for (int j = 0; j < k; j++) {
                tol[j] = Math.max(absTol, relTol * Math.abs(total[j]));
                if (!(totalErr[j] <= tol[j])) {
                    done = false;
                }
            }
            if (done) {
                break;
            }
            if (n + 1 >= MAX_PANELS) {
                throw new ArithmeticException("adaptive Gaussian quadrature did not reach tolerance: error "
                        + java.util.Arrays.toString(totalErr) + " on " + java.util.Arrays.toString(total));
            }
            if (n + 1 >= cap) {
                cap *= 2;
                lo = java.util.Arrays.copyOf(lo, cap);
                hi = java.util.Arrays.copyOf(hi, cap);
                val = java.util.Arrays.copyOf(val, cap * k);
                err = java.util.Arrays.copyOf(err, cap * k);
            }
            // bisect the panel with the largest error relative to each component's tolerance
            int worst = 0;
            double worstErr = -1;
            for (int i = 0; i < n; i++) {
                double e = 0;
                for (int j = 0; j < k; j++) {
                    e = Math.max(e, err[i * k + j] / tol[j]);
                }
                if (e > worstErr) {
                    worstErr = e;
                    worst = i;
                }
            }
            double mid = 0.5 * (lo[worst] + hi[worst]);
            if (!(mid > lo[worst] && mid < hi[worst])) {
                throw new ArithmeticException("adaptive Gaussian quadrature: panel cannot be bisected further");
            }
            lo[n] = mid;
            hi[n] = hi[worst];
            hi[worst] = mid;
            panel(f, k, lo[worst], hi[worst], val, err, worst * k, work);
            panel(f, k, lo[n], hi[n], val, err, n * k, work);
            n++;
        }
        double[] out = new double[2 * k];
        System.arraycopy(total, 0, out, 0, k);
        System.arraycopy(totalErr, 0, out, k, k);
        return out;
    }

    /**
     * G10K21 on [a, b] into val/err[off..off+k): the Kronrod sum and the QUADPACK (dqk21) error estimate
     * resasc·min(1, (200|K − G|/resasc)^1.5), resasc = ∫|f − K/(b−a)| by the Kronrod rule, floored at
     * 50·ε·∫|f|. work needs 4k slots.
     */
    private static void panel(
            VectorFunction f, int k, double a, double b, double[] val, double[] err, int off, double[] work) {
        double c = 0.5 * (a + b);
        double h = 0.5 * (b - a);
        double[] fv = new double[21 * k];
        f.eval(c, fv);
        double[] out = new double[k];
        for (int i = 0; i < 10; i++) {
            double dx = h * XGK[i];
            f.eval(c - dx, out);
            System.arraycopy(out, 0, fv, (1 + 2 * i) * k, k);
            f.eval(c + dx, out);
            System.arraycopy(out, 0, fv, (2 + 2 * i) * k, k);
        }
        for (int j = 0; j < k; j++) {
            double fc = fv[j];
            double resk = WGK[10] * fc;
            double resg = 0; // the centre is a Kronrod node only (10-point Gauss has none there)
            double resabs = WGK[10] * Math.abs(fc);
            for (int i = 0; i < 10; i++) {
                double f1 = fv[(1 + 2 * i) * k + j];
                double f2 = fv[(2 + 2 * i) * k + j];
                resk += WGK[i] * (f1 + f2);
                resabs += WGK[i] * (Math.abs(f1) + Math.abs(f2));
                if ((i & 1) == 1) {
                    resg += WG[i / 2] * (f1 + f2);
                }
            }
            double mean = 0.5 * resk;
            double resasc = WGK[10] * Math.abs(fc - mean);
            for (int i = 0; i < 10; i++) {
                resasc +=
                        WGK[i] * (Math.abs(fv[(1 + 2 * i) * k + j] - mean) + Math.abs(fv[(2 + 2 * i) * k + j] - mean));
            }
            double e = Math.abs((resk - resg) * h);
            resasc *= Math.abs(h);
            resabs *= Math.abs(h);
            if (resasc != 0 && e != 0) {
                e = resasc * Math.min(1, Math.pow(200 * e / resasc, 1.5));
            }
            if (resabs > Double.MIN_NORMAL / (50 * Math.ulp(1.0))) {
                e = Math.max(50 * Math.ulp(1.0) * resabs, e);
            }
            val[off + j] = resk * h;
            err[off + j] = e;
        }
    }

    static double pdf(double z) {
        return INV_SQRT_2PI * Math.exp(-0.5 * z * z);
    }

    /** Breakpoints −L, (p if inside), L. */
    private static double[] breaks(double p) {
        double[] base = {-L, -4, -2, 0, 2, 4, L};
        if (!Double.isFinite(p) || Math.abs(p) >= L || p == 0) {
            return base;
        }
        double[] out = java.util.Arrays.copyOf(base, base.length + 1);
        out[base.length] = p;
        java.util.Arrays.sort(out);
        return out;
    }

    /**
     * {V, V'} = {E[φ(u)φ(v)], E[φ'(u)φ'(v)]} for (u,v) ~ N(0, [[q11,q12],[q12,q22]]) (see the class comment).
     */
    static double[] expectedProducts(PhiPair phi, double q11, double q12, double q22) {
        double s1 = Math.sqrt(Math.max(q11, 0));
        double s2 = Math.sqrt(Math.max(q22, 0));
        double c = (s1 > 0 && s2 > 0) ? GaussHermite.clamp(q12 / (s1 * s2)) : 0;
        double b = s2 * Math.sqrt(Math.max(0, (1 - c) * (1 + c)));
        double a = s2 * c;
        double[] pu = new double[2];
        if (b == 0) {
            // c = ±1 (or q22 = 0): v = a z, a 1-D integral
            double[] pv = new double[2];
            return head(integrate(
                    (z, out) -> {
                        phi.eval(s1 * z, pu);
                        phi.eval(a * z, pv);
                        double p = pdf(z);
                        out[0] = p * pu[0] * pv[0];
                        out[1] = p * pu[1] * pv[1];
                    },
                    2,
                    breaks(0),
                    ABS_TOL,
                    REL_TOL));
        }
        double[] fast = sinhTrapezoid(phi, s1, a, b, H0);
        if (fast == null) {
            HALVED.incrementAndGet();
            fast = sinhTrapezoid(phi, s1, a, b, H0 / 2);
        }
        if (fast != null) {
            return fast;
        }
        FALLBACKS.incrementAndGet();
        return adaptive(phi, s1, a, b);
    }

    /** How often the trapezoidal step was halved. */
    static final java.util.concurrent.atomic.AtomicLong HALVED = new java.util.concurrent.atomic.AtomicLong();

    /** How often the adaptive fallback ran (diagnostics and tests). */
    static final java.util.concurrent.atomic.AtomicLong FALLBACKS = new java.util.concurrent.atomic.AtomicLong();

    /** Initial step of the sinh-mapped trapezoidal rule (halved once before the adaptive fallback). */
    static final double H0 = 0.125;
    /** Acceptance threshold on |T(h) − T(2h)| / ∫|f|. */
    static final double ACCEPT = 1e-6;
    /** Half-width of the trapezoidal rules' domain (Gaussian mass outside: 2·10⁻¹⁹). */
    static final double LT = 9;

    /**
     * Nested trapezoidal rule on sinh-mapped axes (z = δ₁ sinh t, w = w_c + δ₂ sinh t', step h on both) with
     * δ₁ = min(1, 1/s₁) resolving φ(s₁z) at z = 0, and δ₂ = min(1, 1/b), w_c = clamp(−m/b, ±4) resolving
     * φ(m + b w) at w = −m/b when b &gt; 1 (else w_c = 0: φ(m + b w) varies slower than the Gaussian). For
     * integrands analytic in a strip around the real t-axis the error decays like exp(−const/h) (the
     * sinh-substitution turns the graded mesh adaptive quadrature would build around a feature of width 1/s into
     * a uniform one). Error check on the same nodes: T(2h) and T(4h) are the rules on every 2nd and 4th node
     * in both axes; T(h) is accepted when |T(h) − T(2h)| ≤ {@value #ACCEPT}·∫|f| for V and V' and the
     * differences decrease (|T(h) − T(2h)| ≤ |T(2h) − T(4h)|, so the rule is converging, not accidentally
     * close). |T(h) − T(2h)| bounds the error of T(2h); the returned T(h) converges like the square of it
     * (observed ≤ 1e-14 absolute on tanh over q ∈ [1e-6, 100], c ∈ [−1, 1], against the adaptive rule).
     * Returns null when the check fails.
     */
    static double[] sinhTrapezoid(PhiPair phi, double s1, double a, double b, double h) {
        double d1 = Math.min(1, 1 / s1);
        double d2 = Math.min(1, 1 / b);
        int n1 = (int) Math.ceil(asinh(LT / d1) / h);
        // sinh, cosh of the inner nodes t' = j h, |j| ≤ nt, tabulated once (the grid is the same for every z);
        // with w_c = 0 the Jacobian × density of the inner nodes is tabulated too
        int nt = (int) Math.ceil(asinh(2 * LT / d2) / h) + 1;
        double[] sinhT = new double[2 * nt + 1];
        double[] coshT = new double[2 * nt + 1];
        double[] jw0 = new double[2 * nt + 1];
        for (int j = -nt; j <= nt; j++) {
            sinhT[j + nt] = Math.sinh(j * h);
            coshT[j + nt] = Math.cosh(j * h);
            jw0[j + nt] = d2 * coshT[j + nt] * pdf(d2 * sinhT[j + nt]);
        }
        double[] pu = new double[2];
        double[] pv = new double[2];
        double[][] acc = new double[3][2]; // T(h), T(2h), T(4h) sums for V, V'
        double[] abs = new double[2];
        boolean odd = phi.odd();
        for (int i = odd ? 0 : -n1; i <= n1; i++) {
            // odd φ: the node (−z, −w) carries the same value as (z, w) (w_c and the j-range flip sign with z),
            // so the rows i and −i are equal and the rows i > 0 count twice
            double mult = odd && i != 0 ? 2 : 1;
            double t = i * h;
            double z = d1 * Math.sinh(t);
            double jz = mult * d1 * Math.cosh(t) * pdf(z);
            if (jz == 0) {
                continue;
            }
            phi.eval(s1 * z, pu);
            double m = a * z;
            double wc = b <= 1 ? 0 : Math.max(-4, Math.min(4, -m / b));
            int lo = Math.max(-nt, (int) Math.floor(asinh((-LT - wc) / d2) / h));
            int hi = Math.min(nt, (int) Math.ceil(asinh((LT - wc) / d2) / h));
            double g0 = 0, g1 = 0, e0 = 0, e1 = 0, f0 = 0, f1 = 0, ga0 = 0, ga1 = 0;
            for (int j = lo; j <= hi; j++) {
                double w = wc + d2 * sinhT[j + nt];
                double jw = wc == 0 ? jw0[j + nt] : d2 * coshT[j + nt] * pdf(w);
                if (jw == 0) {
                    continue;
                }
                phi.eval(m + b * w, pv);
                double v0 = jw * pv[0];
                double v1 = jw * pv[1];
                g0 += v0;
                g1 += v1;
                ga0 += Math.abs(v0);
                ga1 += Math.abs(v1);
                if ((j & 1) == 0) {
                    e0 += v0;
                    e1 += v1;
                    if ((j & 3) == 0) {
                        f0 += v0;
                        f1 += v1;
                    }
                }
            }
            acc[0][0] += jz * pu[0] * g0;
            acc[0][1] += jz * pu[1] * g1;
            abs[0] += jz * Math.abs(pu[0]) * ga0;
            abs[1] += jz * Math.abs(pu[1]) * ga1;
            if ((i & 1) == 0) {
                acc[1][0] += jz * pu[0] * e0;
                acc[1][1] += jz * pu[1] * e1;
                if ((i & 3) == 0) {
                    acc[2][0] += jz * pu[0] * f0;
                    acc[2][1] += jz * pu[1] * f1;
                }
            }
        }
        double h2 = h * h;
        double[] r = new double[2];
        for (int k = 0; k < 2; k++) {
            r[k] = acc[0][k] * h2;
            double t2 = acc[1][k] * 4 * h2;
            double t4 = acc[2][k] * 16 * h2;
            double scale = abs[k] * h2;
            double d1k = Math.abs(r[k] - t2);
            double d2k = Math.abs(t2 - t4);
            if (!(d1k <= ACCEPT * scale && (d1k <= d2k || d1k <= 1e-14 * scale))) {
                return null;
            }
        }
        return r;
    }

    static double asinh(double x) {
        return Math.log(x + Math.sqrt(x * x + 1));
    }

    /** Nested adaptive G10K21 (the fallback when the trapezoidal error check fails). */
    static double[] adaptive(PhiPair phi, double s1, double a, double b) {
        double[] pu = new double[2];
        double[] pv = new double[2];
        VectorFunction outer = (z, out) -> {
            double m = a * z;
            double p = pdf(z);
            double[] inner = integrate(
                    (w, o) -> {
                        phi.eval(m + b * w, pv);
                        double pw = pdf(w);
                        o[0] = pw * pv[0];
                        o[1] = pw * pv[1];
                    },
                    2,
                    breaks(-m / b),
                    0.1 * ABS_TOL,
                    0.1 * REL_TOL);
            phi.eval(s1 * z, pu);
            out[0] = p * pu[0] * inner[0];
            out[1] = p * pu[1] * inner[1];
        };
        return head(integrate(outer, 2, breaks(0), ABS_TOL, REL_TOL));
    }

    /**
     * E[h(z)] for z ~ N(0,1), adaptively on [−L, L] with a breakpoint at 0 (a 1-D expectation, e.g. the Stein
     * form of the length-map slope in {@link SignalPropagation}).
     */
    static double expect(java.util.function.DoubleUnaryOperator h) {
        return integrate((z, out) -> out[0] = pdf(z) * h.applyAsDouble(z), 1, breaks(0), ABS_TOL, REL_TOL)[0];
    }

    private static double[] head(double[] r) {
        return new double[] {r[0], r[1]};
    }
}
