package org.ntk4j.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import java.util.concurrent.TimeUnit;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Empirical NTK, structured vs generic Jacobian path (issue "NTK engine", cases (a) and (b)):
 * (a) the neural-tangents FCN case: 3072-2048-2048-2048-8 ReLU, N1 = N2 = 16, full;
 * (b) MLP 784-512-512-10 on N = 256 inputs, trace and full, per layer.
 * Inputs are Gaussian (the cost does not depend on the values).
 */
@State(Scope.Benchmark)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Dai.djl.offline=true", "-Dai.djl.pytorch.num_threads=2", "-Xmx8g"})
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 3, time = 1)
public class NtkBenchmark {
    @Param({"a-fcn2048-full", "b-mlp512-trace", "b-mlp512-full"})
    public String useCase;

    @Param({"structured", "jacobian"})
    public String method;

    /** cpu or gpu ({@code -p device=gpu}): gpu fails the trial with a one-line message when no CUDA device is visible. */
    @Param({"cpu"})
    public String device;

    NDManager manager;
    Network net;
    NDArray x;
    Mode mode;

    @Setup(Level.Trial)
    public void setUp() {
        manager = NDManager.newBaseManager(org.ntk4j.util.Devices.select(device));
        JniUtils.setGradMode(false);
        String spec;
        int n;
        if (useCase.startsWith("a-")) {
            spec =
                    "{\"name\":\"fcn2048\",\"arch\":\"mlp\",\"input\":[3072],\"widths\":[2048,2048,2048],\"outputs\":8,\"initializer\":\"he\",\"sigmaB\":0.1}";
            n = 16;
        } else {
            spec =
                    "{\"name\":\"mlp512\",\"arch\":\"mlp\",\"input\":[1,28,28],\"widths\":[512,512],\"outputs\":10,\"initializer\":\"he\",\"sigmaB\":0.1}";
            n = 256;
        }
        mode = useCase.endsWith("full") ? Mode.FULL : Mode.TRACE;
        net = Network.build(ModelSpec.parse(spec, "bench"), 0, manager);
        Shape s = useCase.startsWith("a-") ? new Shape(n, 3072) : new Shape(n, 1, 28, 28);
        x = manager.randomNormal(s);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        net.close();
        manager.close();
    }

    @Benchmark
    public double ntk() {
        KernelResult k = Ntk.of(net)
                .mode(mode)
                .perLayer()
                .method(Method.valueOf(method.toUpperCase()))
                .memory(4L << 30)
                .compute(x);
        return k.total().get(0, 0);
    }
}
