import ai.djl.engine.Engine;
import java.util.Arrays;
import java.util.Random;
import org.ejml.data.DMatrixRMaj;
import org.ntk4j.natives.Lapack;

/**
 * {@link Lapack#symmetric(DMatrixRMaj, int)} (LAPACK's dsyevd from libtorch's MKL) on one thread against THREADS
 * threads, per matrix order, interleaved, on random symmetric matrices: the comparison behind
 * {@link Lapack#SINGLE_THREAD_BELOW}. Prints one markdown row per order: the median of REPS calls each way and the first
 * call's time in the process. Run by benchmarks/metrics/lapack_threads.sh (the launcher's environment).
 *
 * <p>Arguments: ORDERS (comma list) REPS THREADS.
 */
public final class LapackThreads {
    public static void main(String[] args) {
        int[] orders =
                Arrays.stream(args[0].split(",")).mapToInt(Integer::parseInt).toArray();
        int reps = Integer.parseInt(args[1]);
        int threads = Integer.parseInt(args[2]);
        Engine.getInstance(); // maps libtorch_cpu.so, whose MKL Lapack calls
        if (!Lapack.provider().startsWith("mkl")) {
            throw new IllegalStateException("no MKL dsyevd here (" + Lapack.provider() + ")");
        }
        System.out.println(
                "| order | one thread (median ms) | " + threads + " threads (median ms) | first call (ms) |");
        System.out.println("| --- | --- | --- | --- |");
        boolean first = true;
        for (int n : orders) {
            DMatrixRMaj a = symmetric(n, new Random(n));
            double[][] t = new double[2][reps];
            double firstMs = Double.NaN;
            for (int r = 0; r < reps; r++) {
                for (int w = 0; w < 2; w++) {
                    long t0 = System.nanoTime();
                    Lapack.symmetric(a, w == 0 ? 1 : threads);
                    t[w][r] = (System.nanoTime() - t0) / 1e6;
                    if (first) {
                        firstMs = t[w][r];
                        first = false;
                    }
                }
            }
            System.out.printf(
                    "| %d | %.1f | %.1f | %s |%n",
                    n, median(t[0]), median(t[1]), Double.isNaN(firstMs) ? "" : String.format("%.1f", firstMs));
        }
    }

    static DMatrixRMaj symmetric(int n, Random random) {
        DMatrixRMaj a = new DMatrixRMaj(n, n);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j <= i; j++) {
                double v = random.nextGaussian();
                a.set(i, j, v);
                a.set(j, i, v);
            }
        }
        return a;
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
