package org.ntk4j.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Split;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;

/**
 * The fused update (all parameters as one flat vector) against the per-parameter one: bit-identical weights and
 * optimizer state after several steps of SGD (momentum, Nesterov, weight decay) and Adam, a parameter set from
 * elsewhere between steps (a checkpoint) taken in, and the engine operations per update counted with libtorch's
 * profiler: the fused update's do not grow by four or more per parameter array.
 */
class FusedOptimizerTest {
    private static final String MLP3 =
            "{\"arch\":\"mlp\",\"input\":[1,28,28],\"widths\":[32,24,16],\"outputs\":10,\"initializer\":\"he\"}";

    /** {@code steps} steps on fixed batches; returns the parameters and the optimizer state as float arrays. */
    private static List<float[]> train(TrainSpec t, boolean fuse, int steps, boolean reloadAfter2) {
        return train(t, fuse, steps, reloadAfter2, false);
    }

    /**
     * The same; with {@code leaves}, each step runs as the trainer runs it: on fresh leaves lent by {@link
     * UpdateRule#beginStep} (no zeroing) instead of accumulating into zeroed gradients.
     */
    private static List<float[]> train(TrainSpec t, boolean fuse, int steps, boolean reloadAfter2, boolean leaves) {
        LabelledSet data = TrainLoopTest.small(Split.TRAIN, 4);
        List<float[]> out = new ArrayList<>();
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ModelSpec.parse(MLP3, "t"), 5, m)) {
            NDArray x = Arrays2.inputs(m, net, data, 0, 40);
            NDArray y = Arrays2.fromFloats(m, TrainLoop.targets(t, data), new Shape(40, 10), net.dataType());
            UpdateRule opt = new UpdateRule(t, net.trainableParams(), m).fuse(fuse);
            for (int s = 0; s < steps; s++) {
                try (NDScope scope = new NDScope()) {
                    int from = (s * 8) % 40;
                    NDArray xb = x.get(from + ":" + (from + 8));
                    NDArray yb = y.get(from + ":" + (from + 8));
                    if (leaves) {
                        opt.beginStep();
                    }
                    try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                        NDArray f = net.forward(xb, Forward.train(m));
                        gc.backward(LossFunction.CE.evaluate(f, yb, Forward.train(m)));
                    }
                    opt.update(0.05 * (1 + s % 3));
                    if (leaves) {
                        opt.endStep();
                    } else {
                        opt.zeroGradients();
                    }
                }
                if (reloadAfter2 && s == 2) {
                    // a checkpoint's values put in between steps, as Network.loadParameters does
                    for (Param p : net.trainableParams()) {
                        NDArray copy = p.value().duplicate();
                        p.set(copy.addi(copy.mul(1e-3f)));
                    }
                }
            }
            for (Param p : net.params()) {
                out.add(p.value().toFloatArray());
            }
            for (NDArray a : opt.state()) {
                out.add(a.toFloatArray());
            }
        }
        return out;
    }

    private static void assertBitIdentical(TrainSpec t, boolean reload) {
        List<float[]> per = train(t, false, 7, reload);
        List<float[]> fused = train(t, true, 7, reload);
        assertEquals(per.size(), fused.size());
        for (int i = 0; i < per.size(); i++) {
            assertArrayEquals(per.get(i), fused.get(i), 0f, "array " + i + " (parameters, then optimizer state)");
        }
    }

    /**
     * A trainer's steps on lent leaves ({@link UpdateRule#beginStep}: the backward pass hands each gradient over, no
     * zeroing) give the weights and optimizer state of steps that accumulate into zeroed gradients, bit for bit, per
     * parameter and fused, with a checkpoint's values put in between steps.
     */
    @Test
    void stepsOnLentLeavesAreBitIdenticalToZeroedGradients() {
        TrainSpec[] specs = {
            TrainLoopTest.spec("sgd", 1, 8).toBuilder()
                    .nesterov(true)
                    .weightDecay(5e-4)
                    .build(),
            TrainLoopTest.spec("adam", 1, 8).toBuilder().weightDecay(1e-4).build()
        };
        for (TrainSpec t : specs) {
            for (boolean fuse : new boolean[] {false, true}) {
                List<float[]> zeroed = train(t, fuse, 7, true, false);
                List<float[]> lent = train(t, fuse, 7, true, true);
                for (int i = 0; i < zeroed.size(); i++) {
                    assertArrayEquals(
                            zeroed.get(i), lent.get(i), 0f, t.optimizer() + (fuse ? " fused" : "") + ", array " + i);
                }
            }
        }
    }

    /** Between steps on lent leaves the parameters are their own arrays again, and the step left them no gradient. */
    @Test
    void aStepOnLentLeavesLeavesTheParametersNoGradient() {
        TrainSpec t = TrainLoopTest.spec("sgd", 1, 8);
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ModelSpec.parse(MLP3, "t"), 5, m)) {
            UpdateRule opt = new UpdateRule(t, net.trainableParams(), m);
            Param w = net.trainableParams().get(0);
            NDArray own = w.value();
            float[] before = own.toFloatArray();
            NDArray x = Arrays2.inputs(m, net, TrainLoopTest.small(Split.TRAIN, 1), 0, 8);
            try (NDScope scope = new NDScope()) {
                opt.beginStep();
                assertTrue(w.value() != own, "the step sees a leaf of its own");
                try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                    gc.backward(net.forward(x, Forward.train(m)).sum());
                }
                opt.update(0.1);
                opt.endStep();
            }
            assertSame(own, w.value(), "the parameter's own array is back");
            assertTrue(!java.util.Arrays.equals(before, own.toFloatArray()), "the update reached the parameter");
            assertTrue(own.hasGradient(), "still a leaf that requires a gradient");
            assertTrue(!hasGradientValues(own), "no gradient accumulated into the parameter's own array");
        }
    }

    /** Whether the array's gradient holds anything but zeros (DJL's getGradient fails on a leaf that never took one). */
    private static boolean hasGradientValues(NDArray a) {
        try (NDArray g = a.getGradient()) {
            return g.abs().sum().getFloat() != 0f;
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Test
    void sgdWithMomentumIsBitIdentical() {
        assertBitIdentical(TrainLoopTest.spec("sgd", 1, 8), false);
    }

    @Test
    void nesterovWithWeightDecayIsBitIdentical() {
        assertBitIdentical(
                TrainLoopTest.spec("sgd", 1, 8).toBuilder()
                        .nesterov(true)
                        .weightDecay(5e-4)
                        .build(),
                false);
    }

    @Test
    void adamIsBitIdentical() {
        assertBitIdentical(
                TrainLoopTest.spec("adam", 1, 8).toBuilder().weightDecay(1e-4).build(), false);
    }

    @Test
    void parametersSetBetweenStepsAreTakenIn() {
        assertBitIdentical(TrainLoopTest.spec("sgd", 1, 8), true);
    }

    @Test
    void theParametersBecomeViewsOfTheOptimizersBuffer() {
        TrainSpec t = TrainLoopTest.spec("sgd", 1, 8);
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ModelSpec.parse(MLP3, "t"), 5, m)) {
            UpdateRule opt = new UpdateRule(t, net.trainableParams(), m).fuse(true);
            Param w = net.trainableParams().get(0);
            float[] before = w.value().toFloatArray();
            NDArray x = Arrays2.inputs(m, net, TrainLoopTest.small(Split.TRAIN, 1), 0, 8);
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                gc.backward(net.forward(x, Forward.train(m)).sum());
            }
            opt.update(0.1);
            NDArray after = w.value();
            assertTrue(after.hasGradient(), "a fused parameter is still a leaf that requires a gradient");
            assertTrue(!java.util.Arrays.equals(before, after.toFloatArray()), "the update reached the parameter");
            opt.zeroGradients();
            opt.update(0.1);
            assertSame(after, w.value(), "the views are made once, not every step");
        }
    }

    /** A trainer fuses on the CPU for many small arrays (ResNet-20), not for a few large ones (the MLP). */
    @Test
    void theTrainerFusesWhereTheCallsDominate() {
        try (NDManager m = NDManager.newBaseManager();
                Network mlp = Network.build(ModelSpec.resolve("mlp-relu"), 0, m);
                Network resnet = Network.build(ModelSpec.resolve("resnet20"), 0, m)) {
            assertTrue(!UpdateRule.fuseByDefault(mlp.trainableParams()), "6 arrays of 111,618 on average");
            assertTrue(UpdateRule.fuseByDefault(resnet.trainableParams()), "65 small arrays");
        }
    }

    /** Top-level engine operations of one update (libtorch's profiler; DJL binds it but does not expose it). */
    @Test
    void theFusedUpdateCallsTheEngineOncePerTermNotPerParameter(@TempDir Path dir) throws Exception {
        for (String model : new String[] {TrainLoopTest.MLP, MLP3}) {
            int[] ops = new int[2];
            int arrays = 0;
            for (int fuse = 0; fuse < 2; fuse++) {
                TrainSpec t = TrainLoopTest.spec("sgd", 1, 8);
                try (NDManager m = NDManager.newBaseManager();
                        Network net = Network.build(ModelSpec.parse(model, "t"), 5, m)) {
                    arrays = net.trainableParams().size();
                    UpdateRule opt = new UpdateRule(t, net.trainableParams(), m).fuse(fuse == 1);
                    NDArray x = Arrays2.inputs(m, net, TrainLoopTest.small(Split.TRAIN, 1), 0, 8);
                    for (int s = 0; s < 3; s++) {
                        try (NDScope scope = new NDScope()) {
                            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                                gc.backward(net.forward(x, Forward.train(m)).sum());
                            }
                            Path trace = dir.resolve("update-" + fuse + "-" + s + ".json");
                            if (s == 2) { // the first updates make the buffers and constants
                                Profiler.start();
                            }
                            opt.update(0.1);
                            if (s == 2) {
                                Profiler.stop(trace);
                                ops[fuse] = Profiler.topLevel(trace);
                            }
                            opt.zeroGradients();
                        }
                    }
                }
            }
            // per parameter: mul_, add_, mul, sub_ each; fused: a reshape per gradient, one cat and the four terms
            assertTrue(ops[0] >= 4 * arrays, "per-parameter update: " + ops[0] + " operations for " + arrays);
            assertTrue(
                    ops[1] <= arrays + 6,
                    "fused update: " + ops[1] + " operations for " + arrays + " arrays (per-parameter " + ops[0] + ")");
        }
    }

    /** libtorch's legacy profiler through DJL's package-private binding. */
    static final class Profiler {
        private static Object lib;
        private static Method start;
        private static Method stop;

        static synchronized void init() throws ReflectiveOperationException {
            if (lib != null) {
                return;
            }
            Engine.getInstance();
            Class<?> c = Class.forName("ai.djl.pytorch.jni.PyTorchLibrary");
            Field f = c.getDeclaredField("LIB");
            f.setAccessible(true);
            start = c.getDeclaredMethod("torchStartProfile", boolean.class, boolean.class, boolean.class);
            stop = c.getDeclaredMethod("torchStopProfile", String.class);
            start.setAccessible(true);
            stop.setAccessible(true);
            lib = f.get(null);
        }

        static void start() throws ReflectiveOperationException {
            init();
            start.invoke(lib, false, false, false);
        }

        static void stop(Path trace) throws ReflectiveOperationException {
            stop.invoke(lib, trace.toString());
        }

        /** Events not inside another event of the same thread: the operations the Java side called. */
        static int topLevel(Path trace) throws java.io.IOException {
            List<double[]> ev = new ArrayList<>();
            for (JsonElement e : JsonParser.parseString(Files.readString(trace)).getAsJsonArray()) {
                var o = e.getAsJsonObject();
                ev.add(new double[] {
                    o.get("tid").getAsDouble(),
                    o.get("ts").getAsDouble(),
                    o.get("dur").getAsDouble()
                });
            }
            ev.sort((a, b) -> a[0] != b[0]
                    ? Double.compare(a[0], b[0])
                    : a[1] != b[1] ? Double.compare(a[1], b[1]) : Double.compare(b[2], a[2]));
            int count = 0;
            double tid = Double.NaN;
            double end = Double.NEGATIVE_INFINITY;
            for (double[] e : ev) {
                if (e[0] != tid || e[1] >= end) {
                    count++;
                    tid = e[0];
                    end = e[1] + e[2];
                }
            }
            return count;
        }
    }
}
