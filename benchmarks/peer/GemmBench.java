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
 * forward products x·Wᵀ (as matmul with a transposed view and as PyTorch's linear) and h·W₂ᵀ, and the backward
 * products gᵀ·x, gᵀ·h and g·W₂; then the SGD-with-momentum update of the step's six parameters as ntk4j's UpdateRule
 * makes it (v ← μv + g; θ ← θ − η·v: four calls per parameter, η·v a new array) and with three calls (θ −= v, the
 * arithmetic a call with a factor would need, for the cost of the fourth call only). Reports per call the wall time
 * and the calling thread's CPU time (µs, means over ROUNDS rounds of REPS calls after one warm round); with one
 * thread the two agree, and the CPU time is what a loaded machine inflates least. {@code gemm_peer.py} times the same
 * in the Python torch with the same thread count (its OpenBLAS too). Run from the repository root after
 * {@code mvn -B -o -q -DskipTests package}, with the launcher's MKL shim as ./ntk4j runs on AMD:
 *
 * <pre>
 * LD_PRELOAD=target/mkl-amd/libntk4j_mkl_amd.so java -Dai.djl.offline=true -Dai.djl.pytorch.num_threads=THREADS \
 *     -Dai.djl.pytorch.num_interop_threads=1 -cp "target/ntk4j.jar:$(cat target/classpath.txt)" \
 *     benchmarks/peer/GemmBench.java [REPS] [ROUNDS]
 * OPENBLAS_CORETYPE=SkylakeX OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 benchmarks/peer/gemm_peer.py [REPS] [ROUNDS] [THREADS]
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
            Shape[] shapes = {
                new Shape(512, 784),
                new Shape(512),
                new Shape(512, 512),
                new Shape(512),
                new Shape(10, 512),
                new Shape(10)
            };
            NDArray[] w = new NDArray[6];
            NDArray[] dw = new NDArray[6];
            NDArray[] v = new NDArray[6];
            for (int k = 0; k < 6; k++) {
                w[k] = m.randomUniform(-0.03f, 0.03f, shapes[k]);
                dw[k] = m.randomUniform(-1e-3f, 1e-3f, shapes[k]);
                v[k] = m.zeros(shapes[k]);
            }
            NDArray mu = m.full(new Shape(), 0.9f);
            NDArray eta = m.full(new Shape(), 1e-6f);
            ai.djl.pytorch.jni.JniUtils.setGradMode(false);
            cases.put("SGD update, 4 calls", () -> {
                for (int k = 0; k < 6; k++) {
                    v[k].muli(mu).addi(dw[k]);
                    w[k].subi(v[k].mul(eta));
                }
                return null;
            });
            cases.put("SGD update, 3 calls", () -> {
                for (int k = 0; k < 6; k++) {
                    v[k].muli(mu).addi(dw[k]);
                    w[k].subi(v[k]);
                }
                return null;
            });
            Map<String, Double> mean = new LinkedHashMap<>();
            Map<String, Double> wall = new LinkedHashMap<>();
            for (int r = -1; r < rounds; r++) {
                for (Map.Entry<String, Supplier<NDArray>> e : cases.entrySet()) {
                    long t0 = tmx.getCurrentThreadCpuTime();
                    long w0 = System.nanoTime();
                    for (int k = 0; k < reps; k++) {
                        try (NDScope s = new NDScope()) {
                            e.getValue().get();
                        }
                    }
                    double us = (tmx.getCurrentThreadCpuTime() - t0) / 1e3 / reps;
                    double wallUs = (System.nanoTime() - w0) / 1e3 / reps;
                    if (r >= 0) {
                        mean.merge(e.getKey(), us / rounds, Double::sum);
                        wall.merge(e.getKey(), wallUs / rounds, Double::sum);
                    }
                }
            }
            System.out.printf(Locale.ROOT, "%-20s %10s %10s%n", "", "wall", "thread CPU");
            mean.forEach((k, c) -> System.out.printf(Locale.ROOT, "%-20s %7.1f us %7.1f us%n", k, wall.get(k), c));
        }
    }
}
