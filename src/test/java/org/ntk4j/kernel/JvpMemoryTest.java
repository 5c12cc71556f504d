package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.util.NativeHeap;

/**
 * What one Θ·v product ({@link NtkFunction#ntkVp}, a VJP then a JVP by double backward) leaves behind, measured over
 * 200 calls: the JVP's backward with create_graph puts a gradient with a graph on the scalar leaf t of the line θ0 + t
 * u, and that graph holds t (PyTorch's parameter–gradient reference cycle). DJL 0.35's JNI can neither reset {@code
 * .grad} nor call {@code torch.autograd.grad}, so the cycle stays: per call the tangent u, the line's parameters θ0 + t
 * u and the saved copies of θ0, about 2.8 times the parameters' bytes. The test holds the growth to that cause, between
 * 1.5 and 4 times the parameters' bytes per call (RSS after a collection and a heap trim, every 50 calls: the glibc
 * heap's own caching is trimmed away, so what remains is held): a product that leaked more (the activations, a
 * copy of x) fails it, and so does one that stops leaking, whose Javadoc must then change. Measured in a child JVM.
 */
class JvpMemoryTest {
    private static long rss() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS");
    }

    private static long settledRss() throws Exception {
        System.gc();
        NativeHeap.trim();
        return rss();
    }

    /**
     * The measurement, in a JVM of its own whose heap is committed and touched up front (so that only native memory
     * moves the RSS): prints the parameter copies left per call.
     */
    public static void main(String[] args) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            SequentialBlock block = new SequentialBlock()
                    .add(Linear.builder().setUnits(256).build())
                    .add(Activation.reluBlock())
                    .add(Linear.builder().setUnits(10).build());
            block.initialize(m, DataType.FLOAT32, new Shape(1, 64));
            NtkFunction f = Ntk.function(
                    block, new Shape(64), Ntk.options().mode(Mode.FULL).build());
            long paramBytes = 4L * (64 * 256 + 256 + 256 * 10 + 10);
            NDArray x = m.randomNormal(new Shape(16, 64));
            NDArray v = m.randomNormal(new Shape(16, 10));
            int calls = 200;
            long start = 0;
            for (int i = 0; i <= calls; i++) {
                try (NDManager s = m.newSubManager()) {
                    NDArray xs = x.duplicate();
                    xs.attach(s);
                    f.ntkVp(xs, null, v).close();
                }
                if (i == 0) {
                    start = settledRss(); // after the first call: libtorch's lazily made state is in place
                }
            }
            System.out.println("copies " + (double) (settledRss() - start) / calls / paramBytes);
        }
    }

    @Test
    void eachProductLeavesAboutThreeParameterCopiesBehindAndNothingMore() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/status")) && NativeHeap.available());
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xms256m",
                        "-Xmx256m",
                        "-XX:+AlwaysPreTouch",
                        "-Dai.djl.offline=true",
                        "-Dai.djl.pytorch.num_threads=1",
                        "-cp",
                        System.getProperty("java.class.path"),
                        JvpMemoryTest.class.getName())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor() == 0, out);
        double perCall = Double.parseDouble(out.lines()
                .filter(l -> l.startsWith("copies "))
                .findFirst()
                .orElseThrow(() -> new AssertionError(out))
                .substring(7));
        System.out.printf("ntkVp: %.2f parameter copies left per call%n", perCall);
        assertTrue(perCall < 4, "each Θ·v leaves " + perCall + " parameter copies behind: more than the cycle holds");
        assertTrue(
                perCall > 1.5,
                "each Θ·v leaves " + perCall + " parameter copies: the cycle is gone; update the Javadoc of"
                        + " NtkFunction and Linearized");
    }
}
