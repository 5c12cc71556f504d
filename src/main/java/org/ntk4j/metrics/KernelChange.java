package org.ntk4j.metrics;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import org.ntk4j.UserException;

/**
 * How far a kernel moved during training, on a fixed probe set:
 * <ul>
 *   <li>relative change ‖K_t − K_0‖_F / ‖K_0‖_F (Seleznova, NTK thesis §2.4: "relative change of the NTK", §3.1
 *   Figs 3, 4, 8–11) — scale-sensitive;</li>
 *   <li>kernel distance S(K_1, K_2) = 1 − ⟨K_1, K_2⟩_F / (‖K_1‖_F ‖K_2‖_F) (Fort, Dziugaite, Paul, Kharaghani, Roy
 *   &amp; Ganguli 2020, "Deep learning versus kernel learning: an empirical study of loss landscape geometry and the
 *   time evolution of the Neural Tangent Kernel", eq. 4) —
 *   insensitive to the kernel's scale, 0 for proportional kernels;</li>
 *   <li>kernel velocity v = S(K_t, K_{t+dt}) / dt (Fort et al. 2020, §4.1), dt in optimisation steps
 *   (or Σ learning rate, for gradient-flow time).</li>
 * </ul>
 * The sums run on the engine, in float64, one row slab at a time; the methods on Java arrays wrap them first.
 */
public final class KernelChange {
    private KernelChange() {}

    /** ‖K_t − K_0‖_F / ‖K_0‖_F of two engine kernels of one shape (any mode), summed in float64 on their device. */
    public static double relativeChange(NDArray kt, NDArray k0) {
        double[] s = sums(kt, k0);
        return s[2] == 0 ? Double.NaN : Math.sqrt(s[3] / s[2]);
    }

    /** 1 − cos∠(K_1, K_2) in the Frobenius inner product, of two engine kernels of one shape. */
    public static double distance(NDArray k1, NDArray k2) {
        double[] s = sums(k1, k2);
        return s[1] == 0 || s[2] == 0 ? Double.NaN : 1 - s[0] / Math.sqrt(s[1] * s[2]);
    }

    /** S(K_a, K_b) / dt of two engine kernels. */
    public static double velocity(NDArray ka, NDArray kb, double dt) {
        checkStep(dt);
        return distance(ka, kb) / dt;
    }

    /** ‖K_t − K_0‖_F / ‖K_0‖_F. */
    public static double relativeChange(double[][] kt, double[][] k0) {
        check(kt, k0);
        return onHost(kt, k0, KernelChange::relativeChange);
    }

    /** 1 − cos∠(K_1, K_2) in the Frobenius inner product. */
    public static double distance(double[][] k1, double[][] k2) {
        check(k1, k2);
        return onHost(k1, k2, KernelChange::distance);
    }

    /** S(K_a, K_b) / dt. */
    public static double velocity(double[][] ka, double[][] kb, double dt) {
        checkStep(dt);
        return distance(ka, kb) / dt;
    }

    /** ⟨A, B⟩, ‖A‖², ‖B‖², ‖A − B‖² in float64, one row slab of {@link TracedKernel#SLAB_ENTRIES} at a time. */
    static double[] sums(NDArray a, NDArray b) {
        if (!a.getShape().equals(b.getShape())) {
            throw new UserException("kernels have shapes " + a.getShape() + " and " + b.getShape()
                    + "; compare kernels of the same probe set");
        }
        double[] s = new double[4];
        long rows = a.getShape().dimension() == 0 ? 1 : a.getShape().get(0);
        long inner = rows == 0 ? 1 : Math.max(1, a.size() / rows);
        long step = Math.max(1, TracedKernel.SLAB_ENTRIES / inner);
        for (long r0 = 0; r0 < rows; r0 += step) {
            try (NDScope scope = new NDScope()) {
                NDIndex slab = new NDIndex("{}:{}", r0, Math.min(rows, r0 + step));
                NDArray x = a.get(slab).toType(DataType.FLOAT64, false);
                NDArray y = b.get(slab).toType(DataType.FLOAT64, false);
                NDArray d = x.sub(y);
                double[] v = NDArrays.stack(new NDList(
                                x.mul(y).sum(),
                                x.mul(x).sum(),
                                y.mul(y).sum(),
                                d.mul(d).sum()))
                        .toDoubleArray();
                for (int i = 0; i < 4; i++) {
                    s[i] += v[i];
                }
            }
        }
        return s;
    }

    private static double onHost(
            double[][] a, double[][] b, java.util.function.ToDoubleBiFunction<NDArray, NDArray> f) {
        try (NDManager m = NDManager.newBaseManager(Device.cpu())) {
            return f.applyAsDouble(host(m, a), host(m, b));
        }
    }

    private static NDArray host(NDManager m, double[][] k) {
        int cols = k.length == 0 ? 0 : k[0].length;
        double[] flat = new double[k.length * cols];
        for (int i = 0; i < k.length; i++) {
            System.arraycopy(k[i], 0, flat, i * cols, cols);
        }
        return TracedKernel.owned(m, flat, new Shape(k.length, cols));
    }

    private static void checkStep(double dt) {
        if (!(dt > 0)) {
            throw new UserException("kernel velocity needs a positive time step between the kernels (got " + dt + ")");
        }
    }

    private static void check(double[][] a, double[][] b) {
        if (a.length != b.length || a.length > 0 && a[0].length != b[0].length) {
            throw new UserException(
                    "kernels have shapes " + a.length + "×" + (a.length == 0 ? 0 : a[0].length) + " and " + b.length
                            + "×" + (b.length == 0 ? 0 : b[0].length) + "; compare kernels of the same probe set");
        }
    }
}
