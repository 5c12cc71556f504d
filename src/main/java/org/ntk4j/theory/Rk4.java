package org.ntk4j.theory;

/**
 * Classical fourth-order Runge–Kutta for ẏ = F(t, y), fixed step. Global error O(h⁴): halving the step
 * divides the error by ≈ 16, which is how tests derive their tolerances from the step size.
 */
public final class Rk4 {
    /** Right-hand side: writes F(t, y) into {@code dy}. */
    @FunctionalInterface
    public interface System {
        void derivative(double t, double[] y, double[] dy);
    }

    private Rk4() {}

    /** Integrates from t0 to t1 in {@code steps} equal steps; returns y(t1) (y0 is not modified). */
    public static double[] integrate(System f, double[] y0, double t0, double t1, int steps) {
        int n = y0.length;
        double[] y = y0.clone();
        double[] k1 = new double[n];
        double[] k2 = new double[n];
        double[] k3 = new double[n];
        double[] k4 = new double[n];
        double[] tmp = new double[n];
        double h = (t1 - t0) / steps;
        double t = t0;
        for (int s = 0; s < steps; s++) {
            f.derivative(t, y, k1);
            for (int i = 0; i < n; i++) {
                tmp[i] = y[i] + 0.5 * h * k1[i];
            }
            f.derivative(t + 0.5 * h, tmp, k2);
            for (int i = 0; i < n; i++) {
                tmp[i] = y[i] + 0.5 * h * k2[i];
            }
            f.derivative(t + 0.5 * h, tmp, k3);
            for (int i = 0; i < n; i++) {
                tmp[i] = y[i] + h * k3[i];
            }
            f.derivative(t + h, tmp, k4);
            for (int i = 0; i < n; i++) {
                y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
            }
            t = t0 + (s + 1) * h;
        }
        return y;
    }
}
