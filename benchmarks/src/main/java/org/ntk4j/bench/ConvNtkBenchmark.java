package org.ntk4j.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import java.util.concurrent.TimeUnit;
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
 * Case (c): traced NTK of ResNet-20 and VGG-11 (models/resnet20.json, models/vgg11.json) on 64
 * CIFAR-sized inputs, structured vs Jacobian. Single-shot: one kernel per measurement (the Jacobian
 * path on VGG-11 takes minutes). Run from the repository root so models/ resolves.
 */
@State(Scope.Benchmark)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Dai.djl.offline=true", "-Dai.djl.pytorch.num_threads=2", "-Xmx12g", "-Dntk4j.root=."})
@Warmup(iterations = 1)
@Measurement(iterations = 2)
public class ConvNtkBenchmark {
    @Param({"resnet20", "vgg11"})
    public String model;

    @Param({"structured", "jacobian"})
    public String method;

    /** cpu or gpu ({@code -p device=gpu}): gpu fails the trial with a one-line message when no CUDA device is visible. */
    @Param({"cpu"})
    public String device;

    NDManager manager;
    Network net;
    NDArray x;

    @Setup(Level.Trial)
    public void setUp() {
        manager = NDManager.newBaseManager(org.ntk4j.util.Devices.select(device));
        JniUtils.setGradMode(false);
        net = Network.build(ModelSpec.resolve(model), 0, manager);
        x = manager.randomUniform(0, 1, new Shape(64, 3, 32, 32));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        net.close();
        manager.close();
    }

    @Benchmark
    public double ntk() {
        return Ntk.of(net)
                .mode(Mode.TRACE)
                .method(Method.valueOf(method.toUpperCase()))
                .memory(6L << 30)
                .compute(x)
                .total()
                .get(0, 0);
    }
}
