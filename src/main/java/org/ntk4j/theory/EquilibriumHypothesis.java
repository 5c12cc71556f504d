package org.ntk4j.theory;

/**
 * Lou, Mingard &amp; Hayou, "The Equilibrium Hypothesis: Rethinking implicit regularization in Deep
 * Neural Networks": forward and backward information in an infinitely wide bias-free ReLU network at the edge of chaos
 * (σ_w² = 2), and the predicted most-aligned layer. Formulas from the paper's App. A.1, A.3 and Thms 3–4, Cor. 5:
 * <pre>
 *   g(c)  = (c·arcsin c + √(1−c²))/π + c/2          (App. A eq. 3, correlation map of He-initialised ReLU)
 *   g'(c) = 1/2 + arcsin(c)/π
 *   c_1 = x·x'/(‖x‖‖x'‖),  c_l = g(c_{l−1})
 *   forward deficit  D_f(l)   = (1 − c_l)/2 at c_1 = −1     (|I_f^l − 1/2| of Thm 3, unit-variance convention)
 *   backward product D_b(l,L) = Π_{k=l}^{L−1} g'(c_k)      (App. A eq. 4: q̃_l/q̃_L = ζ_L/ζ_l)
 *   ζ_m = Π_{k=1}^{m−1} g'(c_k)
 *   l_eq(L) = first l with D_f(l) ≤ C·D_b(l,L) at c_1 = 1 − ε    (our operationalisation of Cor. 5)
 *   Cor. 5: l* = Θ(L^{3/5})
 * </pre>
 * The paper's index typo (q_l(x,x') written with q^l instead of q_{l−1}, App. A) is corrected here.
 * Near c = 1 the map is evaluated in e = 1 − c form to avoid the float64 cancellation:
 * 1 − g(1−e) = e − (√(e(2−e)) − (1−e)·arccos(1−e))/π with arccos(1−e) = 2 arcsin(√(e/2)).
 */
public final class EquilibriumHypothesis {
    private EquilibriumHypothesis() {}

    /** g(c) of App. A eq. 3. */
    public static double g(double c) {
        return (c * Math.asin(c) + Math.sqrt(Math.max(0, 1 - c * c))) / Math.PI + c / 2;
    }

    /** g'(c) = 1/2 + arcsin(c)/π = 2E[φ'(u)φ'(v)]. */
    public static double gPrime(double c) {
        return 0.5 + Math.asin(c) / Math.PI;
    }

    /** 1 − g(1 − e), accurate for small e. */
    public static double oneMinusG(double e) {
        double acos = 2 * Math.asin(Math.sqrt(e / 2));
        return e - (Math.sqrt(e * (2 - e)) - (1 - e) * acos) / Math.PI;
    }

    /** 1 − g'(1 − e) = arccos(1−e)/π, accurate for small e. */
    public static double oneMinusGPrime(double e) {
        return 2 * Math.asin(Math.sqrt(e / 2)) / Math.PI;
    }

    /** e_l = 1 − c_l for l = 1..depth (index 0 unused), from c_1. */
    public static double[] deficits(double c1, int depth) {
        double[] e = new double[depth + 1];
        e[1] = 1 - c1;
        for (int l = 2; l <= depth; l++) {
            e[l] = oneMinusG(e[l - 1]);
        }
        e[0] = Double.NaN;
        return e;
    }

    /** c_l for l = 1..depth (index 0 unused). */
    public static double[] correlations(double c1, int depth) {
        double[] e = deficits(c1, depth);
        double[] c = new double[depth + 1];
        c[0] = Double.NaN;
        for (int l = 1; l <= depth; l++) {
            c[l] = 1 - e[l];
        }
        return c;
    }

    /**
     * Forward information I_f^l(x,x') = c_l/2 in the unit-variance convention of the Thm 3 proof (q_l(x,x) = 1;
     * with the He-initialised first layer the limit is c_l itself, not the proof's 1/2), from c_1.
     */
    public static double forwardInformation(double c1, int l) {
        return (1 - deficits(c1, l)[l]) / 2;
    }

    /** Backward information I_b^l = q̃_l = q̃_L Π_{k=l}^{L−1} g'(c_k) relative to q̃_L (App. A eq. 4). */
    public static double backwardInformation(double c1, int l, int depth) {
        return backwardProduct(c1, l, depth);
    }

    /** D_f(l) = (1 − c_l)/2 with c_1 = −1 (worst case over the domain E_ε, g increasing). */
    public static double forwardDeficit(int l) {
        return deficits(-1, l)[l] / 2;
    }

    /** D_b(l, L) = Π_{k=l}^{L−1} g'(c_k) from c_1. */
    public static double backwardProduct(double c1, int l, int depth) {
        double[] e = deficits(c1, Math.max(depth, 1));
        double log = 0;
        for (int k = l; k <= depth - 1; k++) {
            log += Math.log1p(-oneMinusGPrime(e[k]));
        }
        return Math.exp(log);
    }

    /** ζ_m = Π_{k=1}^{m−1} g'(c_k). */
    public static double zeta(double c1, int m) {
        return backwardProduct(c1, 1, m);
    }

    /**
     * Equilibrium layer l_eq(L): the first l in 1..L with D_f(l) ≤ C·D_b(l, L), D_b at c_1 = 1 − ε
     * (our operationalisation of Cor. 5, which fixes l* only up to Θ). Returns L if none.
     */
    public static int equilibriumLayer(int depth, double epsilon, double constant) {
        double[] ef = deficits(-1, depth);
        double[] eb = deficits(1 - epsilon, depth);
        // suffix sums of log g'(c_k) for k ≥ l
        double[] logSuffix = new double[depth + 2];
        for (int k = depth - 1; k >= 1; k--) {
            logSuffix[k] = logSuffix[k + 1] + Math.log1p(-oneMinusGPrime(eb[k]));
        }
        for (int l = 1; l <= depth; l++) {
            double df = ef[l] / 2;
            double db = Math.exp(l <= depth - 1 ? logSuffix[l] : 0);
            if (df <= constant * db) {
                return l;
            }
        }
        return depth;
    }

    /** Cor. 5 scaling L^{3/5} (the constant e^C is not fixed by the theory). */
    public static double predictedMostAlignedLayer(int depth) {
        return Math.pow(depth, 0.6);
    }

    /** OLS slope of log l_eq(L) on log L over the given depths. */
    public static double equilibriumSlope(int[] depths, double epsilon, double constant) {
        int n = depths.length;
        double mx = 0;
        double my = 0;
        double[] xs = new double[n];
        double[] ys = new double[n];
        for (int i = 0; i < n; i++) {
            xs[i] = Math.log(depths[i]);
            ys[i] = Math.log(equilibriumLayer(depths[i], epsilon, constant));
            mx += xs[i] / n;
            my += ys[i] / n;
        }
        double sxy = 0;
        double sxx = 0;
        for (int i = 0; i < n; i++) {
            sxy += (xs[i] - mx) * (ys[i] - my);
            sxx += (xs[i] - mx) * (xs[i] - mx);
        }
        return sxy / sxx;
    }
}
