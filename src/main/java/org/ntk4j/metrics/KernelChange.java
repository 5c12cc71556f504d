package org.ntk4j.metrics;

import org.ntk4j.UserException;

/**
 * How far a kernel moved during training, on a fixed probe set:
 * <ul>
 *   <li>relative change ‖K_t − K_0‖_F / ‖K_0‖_F (Seleznova, NTK thesis §2.4: "relative change of the NTK", §3.1
 *   Figs 3, 4, 8–11) — scale-sensitive;</li>
 *   <li>kernel distance S(K_1, K_2) = 1 − ⟨K_1, K_2⟩_F / (‖K_1‖_F ‖K_2‖_F) (Fort et al. 2020, eq. 4) —
 *   insensitive to the kernel's scale, 0 for proportional kernels;</li>
 *   <li>kernel velocity v = S(K_t, K_{t+dt}) / dt (Fort et al. 2020, §4.1), dt in optimisation steps
 *   (or Σ learning rate, for gradient-flow time).</li>
 * </ul>
 */
public final class KernelChange {
    private KernelChange() {}

    /** ‖K_t − K_0‖_F / ‖K_0‖_F. */
    public static double relativeChange(double[][] kt, double[][] k0) {
        check(kt, k0);
        double d = 0;
        double n0 = 0;
        for (int i = 0; i < k0.length; i++) {
            for (int j = 0; j < k0[i].length; j++) {
                double e = kt[i][j] - k0[i][j];
                d += e * e;
                n0 += k0[i][j] * k0[i][j];
            }
        }
        return n0 == 0 ? Double.NaN : Math.sqrt(d / n0);
    }

    /** 1 − cos∠(K_1, K_2) in the Frobenius inner product. */
    public static double distance(double[][] k1, double[][] k2) {
        check(k1, k2);
        double ab = 0;
        double aa = 0;
        double bb = 0;
        for (int i = 0; i < k1.length; i++) {
            for (int j = 0; j < k1[i].length; j++) {
                ab += k1[i][j] * k2[i][j];
                aa += k1[i][j] * k1[i][j];
                bb += k2[i][j] * k2[i][j];
            }
        }
        return aa == 0 || bb == 0 ? Double.NaN : 1 - ab / Math.sqrt(aa * bb);
    }

    /** S(K_a, K_b) / dt. */
    public static double velocity(double[][] ka, double[][] kb, double dt) {
        if (!(dt > 0)) {
            throw new UserException("kernel velocity needs a positive time step between the kernels (got " + dt + ")");
        }
        return distance(ka, kb) / dt;
    }

    private static void check(double[][] a, double[][] b) {
        if (a.length != b.length || a.length > 0 && a[0].length != b[0].length) {
            throw new UserException(
                    "kernels have shapes " + a.length + "×" + (a.length == 0 ? 0 : a[0].length) + " and " + b.length
                            + "×" + (b.length == 0 ? 0 : b[0].length) + "; compare kernels of the same probe set");
        }
    }
}
