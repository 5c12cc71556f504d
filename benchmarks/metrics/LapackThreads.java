import ai.djl.engine.Engine;
import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

/**
 * LAPACK's dsyevd from libtorch's MKL (what org.ntk4j.natives.Lapack calls) on one thread against the engine's
 * threads, per matrix order: MKL's thread-local setting (MKL_Set_Num_Threads_Local) is 1 or the engine's count,
 * interleaved, on random symmetric matrices. Prints one markdown row per order: the median of REPS calls each way and
 * the first call's time in the process. Run by benchmarks/metrics/lapack_threads.sh (the launcher's environment).
 *
 * <p>Arguments: ORDERS (comma list) REPS THREADS.
 */
public final class LapackThreads {
    public static void main(String[] args) throws Exception {
        int[] orders =
                Arrays.stream(args[0].split(",")).mapToInt(Integer::parseInt).toArray();
        int reps = Integer.parseInt(args[1]);
        int threads = Integer.parseInt(args[2]);
        Engine.getInstance(); // maps libtorch_cpu.so
        Path lib = Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(l -> l.endsWith("/libtorch_cpu.so"))
                .map(l -> Path.of(l.substring(l.indexOf('/'))))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("libtorch_cpu.so is not mapped"));
        NativeLibrary torch = NativeLibrary.getInstance(lib.toString());
        Function dsyevd = torch.getFunction("dsyevd_");
        Function local = torch.getFunction("MKL_Set_Num_Threads_Local");
        System.out.println(
                "| order | one thread (median ms) | " + threads + " threads (median ms) | first call (ms) |");
        System.out.println("| --- | --- | --- | --- |");
        boolean first = true;
        for (int n : orders) {
            double[] a = symmetric(n, new Random(n));
            double[][] t = new double[2][reps];
            double firstMs = Double.NaN;
            for (int r = 0; r < reps; r++) {
                for (int w = 0; w < 2; w++) {
                    local.invokeInt(new Object[] {w == 0 ? 1 : threads});
                    long t0 = System.nanoTime();
                    eigh(dsyevd, a, n);
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

    static double[] symmetric(int n, Random random) {
        double[] a = new double[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j <= i; j++) {
                a[i * n + j] = a[j * n + i] = random.nextGaussian();
            }
        }
        return a;
    }

    /** dsyevd('V', 'U') with a workspace query, as org.ntk4j.natives.Lapack calls it. */
    static void eigh(Function f, double[] a, int n) {
        try (Memory m = new Memory(8L * n * n);
                Memory w = new Memory(8L * n);
                Memory ints = new Memory(12);
                Memory query = new Memory(8);
                Memory iquery = new Memory(4);
                Memory jobz = new Memory(2);
                Memory uplo = new Memory(2)) {
            jobz.setString(0, "V");
            uplo.setString(0, "U");
            m.write(0, a, 0, n * n);
            ints.setInt(0, n);
            ints.setInt(4, -1);
            ints.setInt(8, 0);
            f.invokeVoid(new Object[] {
                jobz, uplo, ints, m, ints, w, query, ints.share(4), iquery, ints.share(4), ints.share(8), 1L, 1L
            });
            try (Memory work = new Memory(8L * (long) Math.ceil(query.getDouble(0)));
                    Memory iwork = new Memory(4L * Math.max(1, iquery.getInt(0)));
                    Memory lw = new Memory(4);
                    Memory liw = new Memory(4)) {
                lw.setInt(0, (int) Math.ceil(query.getDouble(0)));
                liw.setInt(0, iquery.getInt(0));
                f.invokeVoid(new Object[] {jobz, uplo, ints, m, ints, w, work, lw, iwork, liw, ints.share(8), 1L, 1L});
            }
            if (ints.getInt(8) != 0) {
                throw new ArithmeticException("dsyevd info " + ints.getInt(8));
            }
        }
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
