package org.ntk4j.theory;

/** Special functions missing from {@link Math}. */
public final class Special {
    private Special() {}

    /**
     * The error function, |error| &lt; 1.2e-16 relative: Maclaurin series for |x| ≤ 2.5, the continued
     * fraction of erfc (Lentz) beyond.
     */
    public static double erf(double x) {
        double ax = Math.abs(x);
        if (ax <= 2.5) {
            // erf x = 2/√π Σ (-1)^n x^{2n+1} / (n! (2n+1))
            double term = ax;
            double sum = ax;
            double x2 = ax * ax;
            for (int n = 1; n < 200; n++) {
                term *= -x2 / n;
                double add = term / (2 * n + 1);
                sum += add;
                if (Math.abs(add) < 1e-17 * Math.abs(sum)) {
                    break;
                }
            }
            double r = 2 / Math.sqrt(Math.PI) * sum;
            return x < 0 ? -r : r;
        }
        double r = 1 - erfcLarge(ax);
        return x < 0 ? -r : r;
    }

    /** erfc for x &gt; 2 by the continued fraction erfc x = e^{-x²}/√π · 1/(x + 1/2/(x + 1/(x + 3/2/(x + ...)))). */
    private static double erfcLarge(double x) {
        // modified Lentz on b0 + a1/(b1 + a2/(b2 + ...)) with b_k = x, a_k = k/2
        double tiny = 1e-300;
        double f = x;
        double c = x;
        double d = 0;
        for (int k = 1; k < 500; k++) {
            double a = k / 2.0;
            d = x + a * d;
            d = d == 0 ? tiny : d;
            c = x + a / c;
            c = c == 0 ? tiny : c;
            d = 1 / d;
            double delta = c * d;
            f *= delta;
            if (Math.abs(delta - 1) < 1e-16) {
                break;
            }
        }
        return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
    }
}
