package org.ntk4j.experiment.support;

/** Summary statistics shared by the studies. */
public final class Stats {
    private Stats() {}

    /** Pearson correlation of two equally long samples. */
    public static double pearson(double[] a, double[] b) {
        double ma = 0;
        double mb = 0;
        for (int i = 0; i < a.length; i++) {
            ma += a[i] / a.length;
            mb += b[i] / b.length;
        }
        double ab = 0;
        double aa = 0;
        double bb = 0;
        for (int i = 0; i < a.length; i++) {
            ab += (a[i] - ma) * (b[i] - mb);
            aa += (a[i] - ma) * (a[i] - ma);
            bb += (b[i] - mb) * (b[i] - mb);
        }
        return ab / Math.sqrt(aa * bb);
    }

    /**
     * The binomial standard error √(p(1 − p)/n) of an accuracy p measured on n independent images (the test set's
     * sampling noise; a maximum over epochs is biased upwards by about as much again, which this ignores).
     */
    public static double binomialSe(double p, int n) {
        return n > 0 ? Math.sqrt(Math.max(p * (1 - p), 0) / n) : Double.NaN;
    }

    /**
     * The standard error of the difference of two accuracies measured on n₁ and n₂ images, √(SE₁² + SE₂²): exact for
     * independent test sets, conservative (too large) for two models scored on the same images, whose errors are
     * positively correlated.
     */
    public static double differenceSe(double p1, int n1, double p2, int n2) {
        double a = binomialSe(p1, n1);
        double b = binomialSe(p2, n2);
        return Math.sqrt(a * a + b * b);
    }

    /**
     * Ordinary least squares y ≈ a·x + b with the slope's standard error: {a, b, SE(a)}, SE(a) =
     * √(Σr²/(n − 2) / Σ(x − x̄)²) (NaN for n ≤ 2).
     */
    public static double[] ols(double[] x, double[] y) {
        int n = x.length;
        double mx = 0;
        double my = 0;
        for (int i = 0; i < n; i++) {
            mx += x[i] / n;
            my += y[i] / n;
        }
        double sxy = 0;
        double sxx = 0;
        for (int i = 0; i < n; i++) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
        }
        double a = sxx > 0 ? sxy / sxx : Double.NaN;
        double b = my - a * mx;
        double rss = 0;
        for (int i = 0; i < n; i++) {
            double r = y[i] - a * x[i] - b;
            rss += r * r;
        }
        double se = n > 2 && sxx > 0 ? Math.sqrt(rss / (n - 2) / sxx) : Double.NaN;
        return new double[] {a, b, se};
    }

    /** Sample mean. */
    public static double mean(double[] v) {
        double s = 0;
        for (double e : v) {
            s += e;
        }
        return s / v.length;
    }

    /** Sample standard deviation (n − 1 in the denominator; 0 for one value). */
    public static double sd(double[] v) {
        if (v.length < 2) {
            return 0;
        }
        double m = mean(v);
        double s = 0;
        for (double e : v) {
            s += (e - m) * (e - m);
        }
        return Math.sqrt(s / (v.length - 1));
    }

    /** Spearman rank correlation (ties broken by position). */
    public static double spearman(double[] a, double[] b) {
        return pearson(ranks(a), ranks(b));
    }

    private static double[] ranks(double[] v) {
        Integer[] idx = new Integer[v.length];
        for (int i = 0; i < v.length; i++) {
            idx[i] = i;
        }
        java.util.Arrays.sort(idx, (x, y) -> Double.compare(v[x], v[y]));
        double[] r = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            r[idx[i]] = i;
        }
        return r;
    }
}
