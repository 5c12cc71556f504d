import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.report.Npz;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.train.StepPhases;
import org.ntk4j.train.StepPhases.Phase;
import org.ntk4j.train.TrainLoop;

/**
 * The training benchmark's Java side: the cases of benchmarks/peer/train_peer.py, the same data, batch order and
 * initial weights, and a profile of ntk4j's training step by phase. Run from the repository root after
 * {@code mvn -B -o -q -DskipTests package}:
 *
 * <pre>
 * java -Dai.djl.offline=true -Dai.djl.pytorch.num_threads=2 -Dai.djl.pytorch.num_interop_threads=1 \
 *     -cp "target/ntk4j.jar:$(cat target/classpath.txt)" benchmarks/peer/TrainBench.java COMMAND CASE [options]
 * </pre>
 *
 * Commands:
 * <ul>
 *   <li>{@code export CASE DIR EPOCHS}: writes DIR/data.npz (x_train, y_train, x_test, y_test as the train command
 *       loads them, and order: the batch order of each epoch, (EPOCHS, n)) and DIR/init.npz (the initial parameters in
 *       the network's order, p000, p001, ...) for the torch peer;</li>
 *   <li>{@code profile CASE [STEPS] [PROFILED]}: one training step of ntk4j's TrainLoop, phase by phase: the wall time of
 *       each phase per step (mean over STEPS warm steps, each phase ended by the engine's synchronous CPU calls), then
 *       the engine operations per step of each phase and their time, from libtorch's own profiler over PROFILED
 *       further steps (top-level operations: those the Java side called, not the ones they call inside). Prints
 *       one JSON line and a table.</li>
 *   <li>{@code djl mlp [EPOCHS] [VARIANTS]}: the same MLP trained by DJL's own loop ({@code EasyTrain.fit}, DJL's
 *       SGD with momentum, softmax cross-entropy, batch 128, DJL's default initialisation), an epoch at a time, in
 *       variants run in turn in one JVM, each on a fresh model: {@code array} (DJL alone: an ArrayDataset of arrays in the engine),
 *       {@code probe} (the same with an ntk4j DjlProbeListener holding an NTK probe that is due only at step 0:
 *       the listener's cost per step), {@code records} (ntk4j's DjlDataset, which DJL reads record by record).
 *       Prints one JSON line per epoch.</li>
 * </ul>
 *
 * Cases: {@code mlp} (mlp-relu, 784-512-512-10, on the 60,000 MNIST images, lr 0.05, momentum 0.9), {@code resnet20}
 * (ResNet-20 on 2,000 CIFAR-10 images, 200 per class, lr 0.1, momentum 0.9, weight decay 5e-4), {@code resnet20-full}
 * (the same on all 50,000); batch 128, seed 0, cross-entropy: the settings benchmarks/peer/train_compare.py gives
 * {@code ntk4j train}.
 */
public class TrainBench {
    record Case(String model, String dataset, Integer perClass, Integer testPerClass, TrainSpec spec) {}

    static Case of(String name) {
        TrainSpec.Builder t = TrainSpec.builder()
                .optimizer("sgd")
                .batchSize(128)
                .loss("ce")
                .seed(0)
                .momentum(0.9);
        switch (name) {
            case "mlp":
                return new Case("mlp-relu", "mnist", null, null, t.lr(0.05).build());
            case "resnet20":
                return new Case(
                        "resnet20",
                        "cifar10",
                        200,
                        100,
                        t.lr(0.1).weightDecay(5e-4).build());
            case "resnet20-full":
                return new Case(
                        "resnet20",
                        "cifar10",
                        null,
                        null,
                        t.lr(0.1).weightDecay(5e-4).build());
            default:
                throw new IllegalArgumentException("unknown case " + name + "; expected mlp, resnet20, resnet20-full");
        }
    }

    /** Train and test sets as the train command prepares them (subset per class with the seeds it uses). */
    static LabelledSet[] data(Case c) {
        LabelledSet train = Datasets.load(c.dataset(), Split.TRAIN);
        LabelledSet test = Datasets.load(c.dataset(), Split.TEST);
        if (c.perClass() != null) {
            train = Preprocess.balancedSample(train, c.perClass(), c.spec().seed());
        }
        if (c.testPerClass() != null) {
            test = Preprocess.balancedSample(test, c.testPerClass(), c.spec().seed() + 1);
        }
        return new LabelledSet[] {train, test};
    }

    public static void main(String[] a) throws Exception {
        if (a.length < 2) {
            System.err.println("usage: TrainBench export CASE DIR EPOCHS | profile CASE [STEPS] [PROFILED]");
            System.exit(2);
        }
        Case c = of(a[1]);
        switch (a[0]) {
            case "export" -> export(c, Path.of(a[2]), Integer.parseInt(a[3]));
            case "djl" -> djl(
                    c, a.length > 2 ? Integer.parseInt(a[2]) : 2, a.length > 3 ? a[3] : "array,probe,records");
            case "profile" -> profile(
                    a[1], c, a.length > 2 ? Integer.parseInt(a[2]) : 30, a.length > 3 ? Integer.parseInt(a[3]) : 10);
            default -> {
                System.err.println("unknown command " + a[0]);
                System.exit(2);
            }
        }
    }

    static void export(Case c, Path dir, int epochs) throws Exception {
        LabelledSet[] d = data(c);
        Files.createDirectories(dir);
        int n = d[0].size();
        int[] order = new int[epochs * n];
        for (int e = 0; e < epochs; e++) {
            System.arraycopy(TrainLoop.batchOrder(c.spec(), n, e), 0, order, e * n, n);
        }
        new Npz()
                .put("x_train", d[0].features(), shape(d[0]))
                .put("y_train", d[0].labels(), n)
                .put("x_test", d[1].features(), shape(d[1]))
                .put("y_test", d[1].labels(), d[1].size())
                .put("order", order, epochs, n)
                .write(dir.resolve("data.npz"));
        try (NDManager m = NDManager.newBaseManager();
                Network net =
                        Network.build(ModelSpec.resolve(c.model()), c.spec().seed(), m)) {
            Npz init = new Npz();
            List<Param> ps = net.params();
            for (int i = 0; i < ps.size(); i++) {
                init.put(String.format("p%03d", i), ps.get(i).value());
            }
            init.write(dir.resolve("init.npz"));
            System.out.printf(
                    "exported %s: %d train, %d test, %d epochs of batch order, %d parameter arrays to %s%n",
                    c.model(), n, d[1].size(), epochs, ps.size(), dir);
        }
    }

    /** DJL's own training loop on the MLP case, per variant and epoch (see the class comment). */
    static void djl(Case c, int epochs, String variants) throws Exception {
        if (!c.model().equals("mlp-relu")) {
            throw new IllegalArgumentException("djl runs the mlp case only");
        }
        LabelledSet train = data(c)[0];
        int n = train.size();
        int batch = c.spec().batchSize();
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray x = m.create(train.features(), new ai.djl.ndarray.types.Shape(n, 784));
            float[] lab = new float[n];
            for (int i = 0; i < n; i++) {
                lab[i] = train.labels()[i];
            }
            NDArray y = m.create(lab, new ai.djl.ndarray.types.Shape(n));
            for (String v : variants.split(",")) {
                djlRun(v, m, x, y, train, batch, c, epochs); // a fresh model per variant
            }
        }
    }

    static void djlRun(
            String variant, NDManager m, NDArray x, NDArray y, LabelledSet train, int batch, Case c, int epochs)
            throws Exception {
        ai.djl.nn.SequentialBlock block = new ai.djl.nn.SequentialBlock()
                .add(ai.djl.nn.Blocks.batchFlattenBlock(784))
                .add(ai.djl.nn.core.Linear.builder().setUnits(512).build())
                .add(ai.djl.nn.Activation.reluBlock())
                .add(ai.djl.nn.core.Linear.builder().setUnits(512).build())
                .add(ai.djl.nn.Activation.reluBlock())
                .add(ai.djl.nn.core.Linear.builder().setUnits(10).build());
        ai.djl.training.dataset.RandomAccessDataset ds;
        if (variant.equals("records")) {
            ds = org.ntk4j.data.DjlDataset.builder(train)
                    .setSampling(batch, true)
                    .build();
        } else {
            ds = new ai.djl.training.dataset.ArrayDataset.Builder()
                    .setData(x)
                    .optLabels(y)
                    .setSampling(batch, true)
                    .build();
        }
        ai.djl.training.DefaultTrainingConfig config = new ai.djl.training.DefaultTrainingConfig(
                        ai.djl.training.loss.Loss.softmaxCrossEntropyLoss())
                .optOptimizer(ai.djl.training.optimizer.Optimizer.sgd()
                        .setLearningRateTracker(ai.djl.training.tracker.Tracker.fixed(
                                (float) c.spec().lr()))
                        .optMomentum((float) c.spec().momentum())
                        .build());
        if (variant.equals("probe")) {
            LabelledSet probeSet = Preprocess.balancedSample(train, 2, 7);
            config.addTrainingListeners(
                    new org.ntk4j.probe.DjlProbeListener(block, new ai.djl.ndarray.types.Shape(784), m)
                            .add(new org.ntk4j.probe.NtkProbe(
                                    probeSet, null, org.ntk4j.train.Schedule.parse("every:1000000000"))));
        }
        try (ai.djl.Model model = ai.djl.Model.newInstance("mlp")) {
            model.setBlock(block);
            try (ai.djl.training.Trainer trainer = model.newTrainer(config)) {
                trainer.initialize(new ai.djl.ndarray.types.Shape(1, 784));
                for (int e = 0; e < epochs; e++) {
                    long t0 = System.nanoTime();
                    ai.djl.training.EasyTrain.fit(trainer, 1, ds, null);
                    double secs = (System.nanoTime() - t0) / 1e9;
                    {
                        System.out.printf(
                                Locale.ROOT,
                                "{\"kind\":\"djl\",\"variant\":\"%s\",\"epoch\":%d,\"seconds\":%.4f,\"images_per_s\":%.1f,"
                                        + "\"threads\":\"%s\"}%n",
                                variant,
                                e + 1,
                                secs,
                                train.size() / secs,
                                threads());
                    }
                }
            }
        }
    }

    static long[] shape(LabelledSet d) {
        long[] s = new long[d.sampleShape().length + 1];
        s[0] = d.size();
        for (int i = 0; i < d.sampleShape().length; i++) {
            s[i + 1] = d.sampleShape()[i];
        }
        return s;
    }

    /** Times each phase of every step after the warm-up; profiles the last steps with libtorch's profiler. */
    static final class Phases implements StepPhases {
        final int warmup;
        final int timed;
        final int profiled;
        final Path traceDir;
        final Map<Phase, long[]> nanos = new EnumMap<>(Phase.class);
        final Map<Phase, List<Path>> traces = new EnumMap<>(Phase.class);
        int step;
        Phase current;
        long since;
        final long[] stepNanos = new long[1];
        long stepStart;
        long cpu0;
        long cpuNanos;
        long faults0;
        long faults;

        Phases(int warmup, int timed, int profiled, Path traceDir) {
            this.warmup = warmup;
            this.timed = timed;
            this.profiled = profiled;
            this.traceDir = traceDir;
            for (Phase p : Phase.values()) {
                nanos.put(p, new long[1]);
                traces.put(p, new ArrayList<>());
            }
        }

        boolean timing() {
            return step >= warmup && step < warmup + timed;
        }

        boolean profiling() {
            return step >= warmup + timed && step < warmup + timed + profiled;
        }

        @Override
        public void begin(Phase p) {
            long now = System.nanoTime();
            close(now);
            if (p == Phase.BATCH) {
                stepStart = now;
                if (step == warmup) {
                    cpu0 = cpuNanos();
                    faults0 = minorFaults();
                }
            }
            current = p;
            if (profiling()) {
                Profiler.start();
            }
            since = System.nanoTime();
        }

        private void close(long now) {
            if (current == null) {
                return;
            }
            if (timing()) {
                nanos.get(current)[0] += now - since;
            }
            if (profiling()) {
                Path f = traceDir.resolve("step" + step + "-" + current + ".json");
                Profiler.stop(f);
                traces.get(current).add(f);
            }
            current = null;
        }

        @Override
        public void endStep() {
            long now = System.nanoTime();
            close(now);
            if (timing()) {
                stepNanos[0] += now - stepStart;
            }
            if (step == warmup + timed - 1) {
                cpuNanos = cpuNanos() - cpu0;
                faults = minorFaults() - faults0;
            }
            step++;
        }
    }

    /** CPU time of the process so far (all threads). */
    static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Minor page faults of the process so far (/proc/self/stat, field 10). */
    static long minorFaults() {
        try {
            String s = Files.readString(Path.of("/proc/self/stat"));
            String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[7]);
        } catch (java.io.IOException e) {
            return -1;
        }
    }

    /** libtorch's legacy profiler, which DJL 0.35 binds but does not expose (PyTorchLibrary is package-private). */
    static final class Profiler {
        static Object lib;
        static Method start;
        static Method stop;

        static void init() throws Exception {
            Engine.getInstance(); // loads the native library
            Class<?> c = Class.forName("ai.djl.pytorch.jni.PyTorchLibrary");
            Field f = c.getDeclaredField("LIB");
            f.setAccessible(true);
            lib = f.get(null);
            start = c.getDeclaredMethod("torchStartProfile", boolean.class, boolean.class, boolean.class);
            stop = c.getDeclaredMethod("torchStopProfile", String.class);
            start.setAccessible(true);
            stop.setAccessible(true);
        }

        static void start() {
            try {
                start.invoke(lib, false, false, false);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }

        static void stop(Path f) {
            try {
                stop.invoke(lib, f.toString());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** [top-level operations, their total µs] of one libtorch trace (Chrome trace events, one thread). */
    static double[] topLevel(Path trace, Map<String, Integer> names) throws Exception {
        return topLevel(trace, names, new java.util.HashMap<>());
    }

    /** As {@link #topLevel(Path, Map)}, also summing each top-level operation's µs into {@code micros}. */
    static double[] topLevel(Path trace, Map<String, Integer> names, Map<String, Double> micros) throws Exception {
        JsonArray events = JsonParser.parseString(Files.readString(trace)).getAsJsonArray();
        List<double[]> ev = new ArrayList<>();
        List<String> evNames = new ArrayList<>();
        for (JsonElement e : events) {
            var o = e.getAsJsonObject();
            ev.add(new double[] {
                o.get("ts").getAsDouble(),
                o.get("dur").getAsDouble(),
                o.get("tid").getAsDouble(),
                ev.size()
            });
            evNames.add(o.get("name").getAsString());
        }
        ev.sort((x, y) -> x[2] != y[2]
                ? Double.compare(x[2], y[2])
                : x[0] != y[0] ? Double.compare(x[0], y[0]) : Double.compare(y[1], x[1]));
        double count = 0;
        double us = 0;
        double tid = Double.NaN;
        List<double[]> stack = new ArrayList<>();
        for (double[] e : ev) {
            if (e[2] != tid) {
                stack.clear();
                tid = e[2];
            }
            while (!stack.isEmpty() && stack.get(stack.size() - 1)[0] + stack.get(stack.size() - 1)[1] <= e[0]) {
                stack.remove(stack.size() - 1);
            }
            if (stack.isEmpty()) {
                count++;
                us += e[1];
                names.merge(evNames.get((int) e[3]), 1, Integer::sum);
                micros.merge(evNames.get((int) e[3]), e[1], Double::sum);
            }
            stack.add(e);
        }
        return new double[] {count, us};
    }

    static void profile(String name, Case c, int timed, int profiled) throws Exception {
        Profiler.init();
        LabelledSet[] d = data(c);
        int warmup = 5;
        int batch = c.spec().batchSize();
        int steps = warmup + timed + profiled;
        LabelledSet train = d[0].head(Math.min(d[0].size(), steps * batch));
        steps = (train.size() + batch - 1) / batch;
        Path traceDir = Files.createTempDirectory("ntk4j-train-profile");
        Phases ph = new Phases(warmup, Math.min(timed, steps - warmup - profiled), profiled, traceDir);
        try (NDManager m = NDManager.newBaseManager();
                Network net =
                        Network.build(ModelSpec.resolve(c.model()), c.spec().seed(), m)) {
            TrainSpec spec = c.spec().toBuilder().epochs(1).build();
            new TrainLoop(net, spec, train, null).phases(ph).fit(false);
        }
        StringBuilder json = new StringBuilder("{\"case\":\"" + name + "\",\"threads\":\"" + threads()
                + "\",\"timed_steps\":" + ph.timed
                + ",\"profiled_steps\":" + ph.profiled + ",\"phases\":{");
        System.out.printf(
                "%n%s: %d timed steps (batch %d), %d profiled; per step:%n", name, ph.timed, batch, ph.profiled);
        System.out.printf(
                "| phase | ms | engine ops | engine ms | top operations (count per step, their ms per step) |%n| --- | --- | --- | --- | --- |%n");
        double totalMs = 0;
        double totalOps = 0;
        double totalOpMs = 0;
        boolean first = true;
        for (Phase p : Phase.values()) {
            double ms = ph.nanos.get(p)[0] / 1e6 / ph.timed;
            double ops = 0;
            double us = 0;
            Map<String, Integer> names = new java.util.TreeMap<>();
            Map<String, Double> micros = new java.util.TreeMap<>();
            for (Path f : ph.traces.get(p)) {
                double[] r = topLevel(f, names, micros);
                ops += r[0];
                us += r[1];
            }
            int np = Math.max(1, ph.traces.get(p).size());
            ops /= np;
            us /= np;
            totalMs += ms;
            totalOps += ops;
            totalOpMs += us / 1e3;
            String top = names.entrySet().stream()
                    .sorted((x, y) -> y.getValue() - x.getValue())
                    .limit(4)
                    .map(e -> e.getKey() + " " + fmt(e.getValue() / (double) np)
                            + String.format(Locale.ROOT, " (%.3f ms)", micros.get(e.getKey()) / 1e3 / np))
                    .reduce((x, y) -> x + ", " + y)
                    .orElse("");
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %.3f | %s | %.3f | %s |%n",
                    p.name().toLowerCase(Locale.ROOT),
                    ms,
                    fmt(ops),
                    us / 1e3,
                    top);
            json.append(first ? "" : ",")
                    .append(String.format(
                            Locale.ROOT,
                            "\"%s\":{\"ms\":%.4f,\"ops\":%.2f,\"op_ms\":%.4f}",
                            p.name().toLowerCase(Locale.ROOT),
                            ms,
                            ops,
                            us / 1e3));
            first = false;
        }
        double stepMs = ph.stepNanos[0] / 1e6 / ph.timed;
        double cpuMs = ph.cpuNanos / 1e6 / ph.timed;
        double faults = (double) ph.faults / ph.timed;
        System.out.printf(
                Locale.ROOT,
                "| **step** | **%.3f** (phases %.3f) | **%s** | %.3f | |%n",
                stepMs,
                totalMs,
                fmt(totalOps),
                totalOpMs);
        System.out.printf(
                Locale.ROOT, "process CPU time %.3f ms per step, %.1f minor page faults per step%n", cpuMs, faults);
        json.append(String.format(
                Locale.ROOT,
                "},\"step_ms\":%.4f,\"ops\":%.2f,\"op_ms\":%.4f,\"cpu_ms\":%.4f,\"page_faults\":%.1f}",
                stepMs,
                totalOps,
                totalOpMs,
                cpuMs,
                faults));
        System.out.println(json);
        try (var s = Files.list(traceDir)) {
            for (Path f : s.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(traceDir);
    }

    static String threads() {
        return System.getProperty("ai.djl.pytorch.num_threads", "default");
    }

    static String fmt(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }
}
