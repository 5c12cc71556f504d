import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Random;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.TangentSketch;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.kernel.sketch.SketchKind;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;

/**
 * Sketched tangent features against the exact traced kernel: mlp-relu (models/mlp-relu.json, 784-512-512-10, seed 0),
 * N Gaussian inputs (the cost depends on the shapes only), float32. Times the exact kernel (Ntk, trace) once, then
 * after a warm-up on 64 samples, the features S (N × k) of each k once, and prints per k the wall time, the time's ratio to the exact
 * kernel's and the relative Frobenius error ‖S Sᵀ − K‖_F / ‖K‖_F, computed on the engine in row slabs.
 *
 * <p>From the repository root, with the core compiled (mvn -B -o -q compile) and its classpath in CP
 * (mvn -B -o -q dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt; CP=$(cat /tmp/cp.txt)):
 * java -Xmx6g -Dai.djl.offline=true -Dai.djl.pytorch.num_threads=2 -cp target/classes:$CP
 * benchmarks/peer/SketchHarness.java 10000 khatri-rao 256,1024,4096
 */
public class SketchHarness {
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]);
        SketchKind kind = SketchKind.parse(a[1]);
        String[] ks = a[2].split(",");
        try (NDManager manager = NDManager.newBaseManager();
                Network net = Network.build(
                        ModelSpec.parse(Files.readString(Path.of("models/mlp-relu.json")), "mlp-relu"), 0, manager)) {
            JniUtils.setGradMode(false);
            Random r = new Random(1);
            float[] v = new float[n * 784];
            for (int i = 0; i < v.length; i++) {
                v[i] = (float) r.nextGaussian();
            }
            NDArray x = manager.create(v, new Shape(n, 1, 28, 28)).duplicate();
            // warm-up: the JIT and the engine's first calls, on 64 samples
            NDArray w = x.get("0:" + Math.min(n, 64));
            Ntk.of(net).mode(Mode.TRACE).compute(w).release();
            for (String s : ks) {
                TangentSketch.of(net).features(w, Integer.parseInt(s), kind, 42).close();
            }
            long t0 = System.nanoTime();
            KernelResult k = Ntk.of(net).mode(Mode.TRACE).memory(4L << 30).compute(x);
            double exactS = (System.nanoTime() - t0) / 1e9;
            NDArray kk = k.total().array() != null
                    ? k.total().array()
                    : manager.create(k.total().toFloatArray(), new Shape(n, n));
            double norm = Math.sqrt(kk.square().sum().getFloat());
            System.out.printf(Locale.ROOT, "{\"n\":%d,\"exact_s\":%.2f}%n", n, exactS);
            for (String s : ks) {
                int dim = Integer.parseInt(s);
                long t1 = System.nanoTime();
                NDArray f = TangentSketch.of(net).features(x, dim, kind, 42);
                double sketchS = (System.nanoTime() - t1) / 1e9;
                double err = 0;
                int slab = 1000;
                for (int i = 0; i < n; i += slab) {
                    try (NDManager sm = manager.newSubManager()) {
                        NDArray fi = f.get(i + ":" + Math.min(n, i + slab));
                        NDArray d = fi.matMul(f.transpose()).sub(kk.get(i + ":" + Math.min(n, i + slab)));
                        d.attach(sm);
                        err += d.square().sum().getFloat();
                    }
                }
                System.out.printf(
                        Locale.ROOT,
                        "{\"n\":%d,\"kind\":\"%s\",\"k\":%d,\"features_s\":%.2f,\"ratio_to_exact\":%.3f,"
                                + "\"rel_frobenius_error\":%.4f}%n",
                        n,
                        kind.label(),
                        dim,
                        sketchS,
                        sketchS / exactS,
                        Math.sqrt(err) / norm);
                f.close();
            }
        }
        System.exit(0);
    }
}
