import ai.djl.ndarray.*;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import java.lang.management.ManagementFactory;
import java.nio.file.*;
import org.ntk4j.kernel.*;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;

/**
 * A/B of the structured probe pass in one JVM (fewer launches): interleaves the schemes named in
 * the system property ntk4j.backward and prints the min wall and min process CPU time per scheme. From the
 * repository root, after building benchmarks/target/benchmarks.jar:
 * java -Dai.djl.offline=true -Dai.djl.pytorch.num_threads=2 -cp benchmarks/target/benchmarks.jar \
 *     benchmarks/peer/ProbeAB.java a-fcn2048-full|b-mlp512-trace|b-mlp512-full|c-resnet20-trace 5 per-output,replicated
 */
public class ProbeAB {
    public static void main(String[] a) throws Exception {
        String useCase = a[0];
        int reps = Integer.parseInt(a[1]);
        String[] variants = a[2].split(",");
        NDManager manager = NDManager.newBaseManager();
        JniUtils.setGradMode(false);
        String spec;
        int n;
        Shape s;
        if (useCase.startsWith("a-")) {
            spec =
                    "{\"name\":\"fcn2048\",\"arch\":\"mlp\",\"input\":[3072],\"widths\":[2048,2048,2048],\"outputs\":8,\"initializer\":\"he\",\"sigmaB\":0.1}";
            n = 16;
            s = new Shape(n, 3072);
        } else if (useCase.startsWith("c-")) {
            spec = Files.readString(Path.of("models/resnet20.json"));
            n = 64;
            s = new Shape(n, 3, 32, 32);
        } else {
            spec =
                    "{\"name\":\"mlp512\",\"arch\":\"mlp\",\"input\":[1,28,28],\"widths\":[512,512],\"outputs\":10,\"initializer\":\"he\",\"sigmaB\":0.1}";
            n = 256;
            s = new Shape(n, 1, 28, 28);
        }
        Mode mode = useCase.endsWith("full") ? Mode.FULL : Mode.TRACE;
        Network net = Network.build(ModelSpec.parse(spec, "bench"), 0, manager);
        NDArray x = manager.randomNormal(s);
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        double[] minW = new double[variants.length], minC = new double[variants.length];
        java.util.Arrays.fill(minW, 1e9);
        java.util.Arrays.fill(minC, 1e9);
        for (int r = 0; r < reps + 1; r++) {
            for (int v = 0; v < variants.length; v++) {
                System.setProperty("ntk4j.backward", variants[v]);
                long c0 = os.getProcessCpuTime(), w0 = System.nanoTime();
                KernelResult k = Ntk.of(net)
                        .mode(mode)
                        .perLayer()
                        .method(Method.STRUCTURED)
                        .memory(4L << 30)
                        .compute(x);
                double w = (System.nanoTime() - w0) / 1e6, c = (os.getProcessCpuTime() - c0) / 1e6;
                k.total().get(0, 0);
                if (r > 0) {
                    minW[v] = Math.min(minW[v], w);
                    minC[v] = Math.min(minC[v], c);
                }
            }
        }
        String load = Files.readString(Path.of("/proc/loadavg")).trim();
        for (int v = 0; v < variants.length; v++) {
            System.out.printf(
                    "%s %s min wall %.1f ms, min cpu %.1f ms (load %s)%n",
                    useCase, variants[v], minW[v], minC[v], load);
        }
        System.exit(0);
    }
}
