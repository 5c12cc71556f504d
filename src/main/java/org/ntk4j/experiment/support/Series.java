package org.ntk4j.experiment.support;

/** Helpers on measured series (time, value) and index ranges that several studies use. */
public final class Series {
    private Series() {}

    /** First time the series falls to {@code level}, linearly interpolated; NaN if it never does. */
    public static double crossing(double[] t, double[] v, double level) {
        for (int k = 1; k < v.length; k++) {
            if (v[k] <= level) {
                return t[k - 1] + (t[k] - t[k - 1]) * (v[k - 1] - level) / (v[k - 1] - v[k]);
            }
        }
        return Double.NaN;
    }

    /** First time the series rises to {@code level}, linearly interpolated; NaN if it never does. */
    public static double rising(double[] t, double[] v, double level) {
        for (int k = 0; k < v.length; k++) {
            if (v[k] >= level) {
                return k == 0 ? t[0] : t[k - 1] + (t[k] - t[k - 1]) * (level - v[k - 1]) / (v[k] - v[k - 1]);
            }
        }
        return Double.NaN;
    }

    /** Linear interpolation of v(t) at {@code at} (clamped to the ends). */
    public static double interpolate(double[] t, double[] v, double at) {
        if (Double.isNaN(at) || at >= t[t.length - 1]) {
            return v[v.length - 1];
        }
        for (int k = 1; k < t.length; k++) {
            if (t[k] >= at) {
                return v[k - 1] + (v[k] - v[k - 1]) * (at - t[k - 1]) / (t[k] - t[k - 1]);
            }
        }
        return v[v.length - 1];
    }

    public static int argmax(double[] v) {
        int b = 0;
        for (int i = 1; i < v.length; i++) {
            if (v[i] > v[b]) {
                b = i;
            }
        }
        return b;
    }

    public static int[] range(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return a;
    }

    public static double[] toDouble(float[] a) {
        double[] r = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = a[i];
        }
        return r;
    }
}
