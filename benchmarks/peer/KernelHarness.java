import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;

/**
 * The ntk4j side of benchmarks/peer/compare_kernel.sh: the cases of benchmarks/peer/ntk_peer.py (same networks,
 * same N, the total kernel only, float32, structured; a case name ending in {@code -layers}, e.g. b-mlp512-full-layers,
 * also keeps the per-layer kernels, as the JMH NtkBenchmark does), each timed after warm-up runs in this JVM. Prints one JSON
 * line per case: min and median wall ms, the median process CPU ms (all threads: under load the wall time
 * measures the machine, CPU time the work), and the phase split (factors, contraction, host) of the median run, the
 * engine operations per tile pair and the bytes of kernel that reached the host.
 *
 * <p>From the repository root, with the core built (mvn -o -q compile) and its classpath in CP:
 * java -Dai.djl.offline=true -Dai.djl.pytorch.num_threads=2 -cp target/classes:$CP benchmarks/peer/KernelHarness.java
 * a-fcn2048-full,b-mlp512-trace,b-mlp512-full,c-resnet20-trace,d-mlp3-trace-1000 2 5
 */
public class KernelHarness {
    static final String FCN = "{\"name\":\"fcn2048\",\"arch\":\"mlp\",\"input\":[3072],\"widths\":[2048,2048,2048],"
            + "\"outputs\":8,\"initializer\":\"he\",\"sigmaB\":0.1}";
    static final String MLP = "{\"name\":\"mlp512\",\"arch\":\"mlp\",\"input\":[1,28,28],\"widths\":[512,512],"
            + "\"outputs\":10,\"initializer\":\"he\",\"sigmaB\":0.1}";
    static final String MLP3 = "{\"name\":\"mlp3\",\"arch\":\"mlp\",\"input\":[1,28,28],\"widths\":[512,512,512],"
            + "\"outputs\":10,\"initializer\":\"he\",\"sigmaB\":0.1}";

    public static void main(String[] a) throws Exception {
        String[] cases = a[0].split(",");
        int warmup = Integer.parseInt(a[1]);
        int reps = Integer.parseInt(a[2]);
        long memory = Long.parseLong(System.getProperty("harness.memory", String.valueOf(8L << 30)));
        // warm-up lasts at least this long too (JMH's rule: HotSpot compiles the Java around the engine calls during
        // the
        // first hundreds of runs of a small case; the peer script applies the same rule)
        warmupNanos = (long) (Double.parseDouble(System.getProperty("harness.warmupSeconds", "0")) * 1e9);
        try (NDManager manager = NDManager.newBaseManager()) {
            JniUtils.setGradMode(false);
            for (String c : cases) {
                run(manager, c, warmup, reps, memory);
            }
        }
        System.exit(0);
    }

    static long warmupNanos;

    static void run(NDManager manager, String useCase, int warmup, int reps, long memory) throws Exception {
        String spec;
        Shape shape;
        if (useCase.startsWith("a-")) {
            spec = FCN;
            shape = new Shape(16, 3072);
        } else if (useCase.startsWith("b-")) {
            spec = MLP;
            shape = new Shape(256, 1, 28, 28);
        } else if (useCase.startsWith("c-")) {
            spec = null; // ntk4j's own resnet20 spec, wherever this runs from
            shape = new Shape(64, 3, 32, 32);
        } else if (useCase.startsWith("d-")) {
            spec = MLP3;
            shape = new Shape(Integer.parseInt(useCase.substring(useCase.lastIndexOf('-') + 1)), 1, 28, 28);
        } else {
            throw new IllegalArgumentException("unknown case " + useCase);
        }
        Mode mode = useCase.contains("-full") ? Mode.FULL : Mode.TRACE;
        try (NDManager m = manager.newSubManager();
                Network net = Network.build(
                        spec == null ? ModelSpec.resolve("resnet20") : ModelSpec.parse(spec, "bench"), 0, m)) {
            NDArray x = useCase.startsWith("c-") ? m.randomUniform(0, 1, shape) : m.randomNormal(shape);
            List<double[]> runs = new ArrayList<>();
            KernelResult last = null;
            var os = (com.sun.management.OperatingSystemMXBean)
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            long warmStart = System.nanoTime();
            int warmed = 0; // warm-up runs done
            while (runs.size() < reps) {
                boolean warming = warmed < warmup || System.nanoTime() - warmStart < warmupNanos;
                long c0 = os.getProcessCpuTime();
                long t0 = System.nanoTime();
                Ntk ntk = Ntk.of(net).mode(mode).method(Method.STRUCTURED).memory(memory);
                KernelResult k = (useCase.endsWith("-layers") ? ntk.perLayer() : ntk).compute(x);
                double ms = (System.nanoTime() - t0) / 1e6;
                double cpu = (os.getProcessCpuTime() - c0) / 1e6;
                k.total().get(0, 0);
                if (warming) {
                    warmed++;
                } else {
                    runs.add(new double[] {
                        ms,
                        k.timings().get("factors") * 1e3,
                        k.timings().get("contraction") * 1e3,
                        k.timings().get("host") * 1e3,
                        cpu
                    });
                }
                if (last != null) {
                    last.release();
                }
                last = k;
            }
            runs.sort((p, q) -> Double.compare(p[0], q[0]));
            double[] med = runs.get(runs.size() / 2);
            double cpuMedian = runs.stream().mapToDouble(q -> q[4]).sorted().toArray()[runs.size() / 2];
            var st = last.stats();
            System.out.println(String.format(
                    Locale.ROOT,
                    "{\"case\": \"%s\", \"side\": \"ntk4j\", \"device\": \"%s\", \"ms_min\": %.3f, \"ms_median\": %.3f, \"cpu_ms_median\": %.3f,"
                            + " \"factors_ms\": %.3f,"
                            + " \"contraction_ms\": %.3f, \"host_ms\": %.3f, \"tile\": %d, \"pairs\": %d,"
                            + " \"ops_per_pair\": %d, \"host_bytes\": %d, \"output_bytes\": %d, \"reps\": %d,"
                            + " \"warmup_runs\": %d}",
                    useCase,
                    x.getDevice(),
                    runs.get(0)[0],
                    med[0],
                    cpuMedian,
                    med[1],
                    med[2],
                    med[3],
                    st.tile(),
                    st.pairs(),
                    st.opsPerPairMax(),
                    st.hostBytes(),
                    st.outputBytes(),
                    reps,
                    warmed));
            last.release();
        }
    }
}
