package org.ntk4j.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import java.util.concurrent.TimeUnit;
import org.ntk4j.kernel.factor.Grams;
import org.ntk4j.kernel.factor.Mode;
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
 * Case (d): the dense-layer contraction alone — Θ_l = (A1 A2ᵀ) ⊙ Σ_o(Δ1 Δ2ᵀ), trace mode, one
 * 1024×1024 tile of a width-512 layer with O = 10 (in = 512, out = 512) — against a plain matmul of the
 * same FLOP count (1024×(512+5120) · (512+5120)×1024). FLOPs: 2·1024²·5632 = 11.8 GFLOP each.
 */
@State(Scope.Benchmark)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Dai.djl.offline=true", "-Dai.djl.pytorch.num_threads=2", "-Xmx4g"})
@Warmup(iterations = 3)
@Measurement(iterations = 8)
public class ContractionBenchmark {
    static final int N = 1024;
    static final int IN = 512;
    static final int O = 10;
    static final int OUT = 512;

    /** cpu or gpu ({@code -p device=gpu}): gpu fails the trial with a one-line message when no CUDA device is visible. */
    @Param({"cpu"})
    public String device;

    NDManager manager;
    NDArray a1;
    NDArray a2;
    NDArray d1;
    NDArray d2;
    NDArray m1;
    NDArray m2;

    @Setup(Level.Trial)
    public void setUp() {
        manager = NDManager.newBaseManager(org.ntk4j.util.Devices.select(device));
        JniUtils.setGradMode(false);
        a1 = manager.randomNormal(new Shape(N, IN));
        a2 = manager.randomNormal(new Shape(N, IN));
        d1 = manager.randomNormal(new Shape(N, O, OUT));
        d2 = manager.randomNormal(new Shape(N, O, OUT));
        m1 = manager.randomNormal(new Shape(N, IN + O * OUT));
        m2 = manager.randomNormal(new Shape(N, IN + O * OUT));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        manager.close();
    }

    @Benchmark
    public float denseContraction() {
        try (NDScope s = new NDScope()) {
            NDArray gd = Grams.outputGram(d1, d2, Mode.TRACE);
            NDArray ga = a1.matMul(a2.transpose());
            return ga.mul(gd).getFloat(0, 0);
        }
    }

    @Benchmark
    public float matmulSameFlops() {
        try (NDScope s = new NDScope()) {
            return m1.matMul(m2.transpose()).getFloat(0, 0);
        }
    }
}
