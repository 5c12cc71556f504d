import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.Shape;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The GEMMs of one MLP training step (784-512-512-10, batch 128) through DJL's libtorch, timed one by one: the
 * forward products x·W₁ᵀ (as matmul with a transposed view and as PyTorch's linear) and h·W₂ᵀ, and the backward
 * products gᵀ·x, gᵀ·h and g·W₂. Reports the calling thread's CPU time per call (µs, mean over ROUNDS rounds of REPS
 * calls after one warm round), which a loaded machine inflates far less than wall time; run it with one intra-op
 * thread. {@code gemm_peer.py} times the same products in the Python torch. Run from the repository root after
 * {@code mvn -B -o -q -DskipTests package}, with and without the launcher's MKL shim:
 *
 * <pre>
 * java -Dai.djl.offline=true -Dai.djl.pytorch.num_threads=1 -Dai.djl.pytorch.num_interop_threads=1 \
 *     -cp "target/ntk4j.jar:$(cat target/classpath.txt)" benchmarks/peer/GemmBench.java [REPS] [ROUNDS]
 * LD_PRELOAD=target/mkl-amd/libntk4j_mkl_amd.so java ... (the same)
 * </pre>
 */
public class GemmBench {
    public static void main(String[] args) {
        int reps = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray x = m.randomUniform(0, 1, new Shape(128, 784));
            NDArray w1 = m.randomUniform(-0.03f, 0.03f, new Shape(512, 784));
            NDArray w2 = m.randomUniform(-0.04f, 0.04f, new Shape(512, 512));
            NDArray h = m.randomUniform(0, 1, new Shape(128, 512));
            NDArray g = m.randomUniform(-1e-3f, 1e-3f, new Shape(128, 512));
            NDArray b = m.zeros(new Shape(512));
            Map<String, Supplier<NDArray>> cases = new LinkedHashMap<>();
            cases.put("x@W1^T (matmul)", () -> x.matMul(w1.transpose()));
            cases.put(
                    "x@W1^T+b (linear)",
                    () -> x.getNDArrayInternal().linear(x, w1, b).singletonOrThrow());
            cases.put("h@W2^T (matmul)", () -> h.matMul(w2.transpose()));
            cases.put("g^T@x (dW1)", () -> g.transpose().matMul(x));
            cases.put("g^T@h (dW2)", () -> g.transpose().matMul(h));
            cases.put("g@W2 (dh)", () -> g.matMul(w2));
            Map<String, Double> mean = new LinkedHashMap<>();
            for (int r = -1; r < rounds; r++) {
                for (Map.Entry<String, Supplier<NDArray>> e : cases.entrySet()) {
                    long t0 = tmx.getCurrentThreadCpuTime();
                    for (int k = 0; k < reps; k++) {
                        try (NDScope s = new NDScope()) {
                            e.getValue().get();
                        }
                    }
                    double us = (tmx.getCurrentThreadCpuTime() - t0) / 1e3 / reps;
                    if (r >= 0) {
                        mean.merge(e.getKey(), us / rounds, Double::sum);
                    }
                }
            }
            mean.forEach((k, v) -> System.out.printf(Locale.ROOT, "%-20s %8.1f us%n", k, v));
        }
    }
}
