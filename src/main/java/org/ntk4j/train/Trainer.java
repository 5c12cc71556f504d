package org.ntk4j.train;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import com.google.gson.JsonObject;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.ntk4j.UserException;
import org.ntk4j.data.Dataset;
import org.ntk4j.data.Preprocess;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Network;
import org.ntk4j.report.Files2;
import org.ntk4j.report.ProgressBar;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.Specs;
import org.ntk4j.spec.TrainSpec;

/**
 * The training loop: mini-batch SGD / Adam or full-batch GD on a {@link Dataset}, one NDScope per
 * step (native memory stays flat), per-epoch metrics to {@code metrics.jsonl}, probes on their
 * schedule outside the gradient collector, and checkpoints from which a killed run resumes with
 * exactly the weights and metrics of an uninterrupted one (the batch order is a function of
 * (seed, epoch), so resuming mid-epoch replays the same batches).
 */
public final class Trainer {
    private final Network net;
    private final TrainSpec spec;
    private final Dataset train;
    private final Dataset test;
    private final RunFolder run;
    private final List<Probe> probes = new ArrayList<>();
    private final Loss loss;
    private boolean quiet;

    public Trainer(Network net, TrainSpec spec, Dataset train, Dataset test, RunFolder run) {
        this.net = net;
        this.spec = spec;
        this.train = train;
        this.test = test;
        this.run = run;
        this.loss = Loss.parse(spec.loss);
        if (train.isRegression() && !"mse".equals(spec.loss)) {
            throw new UserException(train.name() + " is a regression set (real-valued targets): it needs loss mse (got "
                    + spec.loss + ")");
        }
        int need = train.isRegression() ? train.targetOutputs() : targetWidth(spec, train.numClasses());
        if (net.outputs() != need) {
            throw new UserException("model " + net.spec().name + " has " + net.outputs() + " outputs but " + train.name()
                    + " with loss " + spec.loss + " and target " + spec.target + " needs " + need);
        }
        long d = 1;
        for (long s : net.inputShape().getShape()) {
            d *= s;
        }
        if (d != train.featureDim()) {
            throw new UserException("model " + net.spec().name + " expects inputs of shape " + net.inputShape() + " but "
                    + train.name() + " samples have shape " + java.util.Arrays.toString(train.sampleShape()));
        }
    }

    public Trainer addProbe(Probe p) {
        probes.add(p);
        return this;
    }

    public Trainer quiet(boolean q) {
        this.quiet = q;
        return this;
    }

    static int targetWidth(TrainSpec spec, int classes) {
        if ("mse".equals(spec.loss) && "pm1".equals(spec.target)) {
            return Preprocess.plusMinusOneOutputs(classes);
        }
        return classes;
    }

    /** Targets as float rows (N, O): a regression set's own targets, else encoded from the labels. */
    static float[] targets(TrainSpec spec, Dataset data) {
        return data.isRegression() ? data.targets() : targets(spec, data.labels(), data.numClasses());
    }

    /** Targets as float rows (N, O) from class labels, per loss and target encoding. */
    static float[] targets(TrainSpec spec, int[] labels, int classes) {
        if ("ce".equals(spec.loss)) {
            return Preprocess.oneHot(labels, classes);
        }
        switch (spec.target) {
            case "pm1": return Preprocess.plusMinusOne(labels, classes);
            case "centered": return Preprocess.centredOneHot(labels, classes);
            default: return Preprocess.oneHot(labels, classes);
        }
    }

    /** Final metrics of a run. */
    public record Result(double trainLoss, double trainAccuracy, double testLoss, double testAccuracy, int epochs, long steps,
            double secondsPerEpoch) { }

    /** Trains from scratch, or from the last checkpoint in the run folder when {@code resume}. */
    public Result fit(boolean resume) {
        NDManager m = net.manager().newSubManager();
        try (m) {
            int n = train.size();
            int o = net.outputs();
            Shape xs = new Shape(prepend(n, net.inputShape().getShape()));
            NDArray x = Arrays2.fromFloats(m, train.features(), xs, net.dataType());
            NDArray y = Arrays2.fromFloats(m, targets(spec, train), new Shape(n, o), net.dataType());
            int batch = spec.batchSize == 0 ? n : Math.min(spec.batchSize, n);
            int stepsPerEpoch = (n + batch - 1) / batch;
            Optimizer opt = new Optimizer(spec, net.trainableParams(), m);
            applyLayerLearningRates(opt);

            State st = new State();
            if (resume) {
                st = restore(opt);
            } else {
                run.writeJson("model.json", net.spec());
                run.writeJson("train.json", spec);
                runProbes(0, 0, false);
            }
            double secondsTotal = st.seconds;
            lastCheckpointStep = st.step;
            lastCheckpointNanos = System.nanoTime();
            Result last = null;
            for (int epoch = st.epoch; epoch < spec.epochs; epoch++) {
                long t0 = System.nanoTime();
                int[] order = order(n, epoch);
                ProgressBar bar = quiet ? null : new ProgressBar("epoch " + (epoch + 1) + "/" + spec.epochs, stepsPerEpoch);
                for (int s = st.stepInEpoch; s < stepsPerEpoch; s++) {
                    int from = s * batch;
                    int to = Math.min(n, from + batch);
                    double lr = spec.lrAt(epoch + (double) s / stepsPerEpoch);
                    try (NDScope scope = new NDScope()) {
                        NDArray idx = m.create(java.util.Arrays.copyOfRange(order, from, to)).duplicate();
                        NDArray xb = x.get(new NDIndex("{}", idx));
                        NDArray yb = y.get(new NDIndex("{}", idx));
                        Forward ctx = Forward.train(m);
                        double l;
                        int correct;
                        try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                            NDArray f = net.forward(xb, ctx);
                            NDArray lv = loss.evaluate(f, yb, ctx);
                            gc.backward(lv);
                            l = Arrays2.value(lv);
                            correct = train.isRegression() ? 0 : countCorrect(f, yb);
                        }
                        opt.step(lr);
                        st.lossSum += l * (to - from);
                        st.correct += correct;
                        st.seen += to - from;
                        st.time += lr;
                        if (!Double.isFinite(l)) {
                            throw new UserException("training diverged at epoch " + (epoch + 1) + " step " + (s + 1)
                                    + " (loss " + l + "); lower the learning rate (lr = " + spec.lr + ")");
                        }
                    }
                    st.step++;
                    st.stepInEpoch = s + 1;
                    if (bar != null) {
                        bar.suffix(String.format("loss %.4f", st.lossSum / st.seen));
                        bar.update(s + 1);
                    }
                    if (spec.checkpointEvery > 0 && st.step % spec.checkpointEvery == 0 && s + 1 < stepsPerEpoch) {
                        st.seconds = secondsTotal + (System.nanoTime() - t0) / 1e9;
                        checkpoint(opt, st, epoch);
                        lastCheckpointStep = st.step;
                        lastCheckpointNanos = System.nanoTime();
                    }
                    if (s + 1 < stepsPerEpoch) {
                        runProbes(st.step, epoch, false);
                    }
                }
                double secs = (System.nanoTime() - t0) / 1e9;
                secondsTotal += secs;
                double[] te = test == null ? new double[] {Double.NaN, Double.NaN} : evaluate(test);
                JsonObject rec = new JsonObject();
                rec.addProperty("kind", "epoch");
                rec.addProperty("epoch", epoch + 1);
                rec.addProperty("step", st.step);
                rec.addProperty("lr", spec.lrAt(epoch + 1.0 - 1e-9));
                if (spec.batchSize == 0) {
                    rec.addProperty("t", st.time);
                }
                rec.addProperty("train_loss", st.lossSum / st.seen);
                boolean classify = !train.isRegression(); // a regression run has no accuracy
                if (classify) {
                    rec.addProperty("train_accuracy", (double) st.correct / st.seen);
                }
                if (test != null) {
                    rec.addProperty("test_loss", te[0]);
                    if (classify) {
                        rec.addProperty("test_accuracy", te[1]);
                    }
                }
                rec.addProperty("seconds", secs);
                run.log(rec);
                if (!quiet) {
                    if (classify) {
                        System.err.printf("epoch %d: train loss %.4f acc %.4f%s (%.1fs)%n", epoch + 1, st.lossSum / st.seen,
                                (double) st.correct / st.seen,
                                test == null ? "" : String.format(", test loss %.4f acc %.4f", te[0], te[1]), secs);
                    } else {
                        System.err.printf("epoch %d: train loss %.6g%s (%.1fs)%n", epoch + 1, st.lossSum / st.seen,
                                test == null ? "" : String.format(", test loss %.6g", te[0]), secs);
                    }
                }
                last = new Result(st.lossSum / st.seen, classify ? (double) st.correct / st.seen : Double.NaN,
                        te[0], classify ? te[1] : Double.NaN, epoch + 1, st.step,
                        secondsTotal / (epoch + 1 - 0.0));
                runProbes(st.step, epoch + 1, true);
                st.epoch = epoch + 1;
                st.stepInEpoch = 0;
                st.lossSum = 0;
                st.correct = 0;
                st.seen = 0;
                st.seconds = secondsTotal;
                // at the end, every checkpointEvery steps, and at least every CHECKPOINT_SECONDS: full-batch
                // runs have one-step epochs by the thousand; a resumed run replays the steps since the last
                // checkpoint deterministically, so spacing them loses time, never results
                boolean due = epoch + 1 == spec.epochs
                        || spec.checkpointEvery > 0 && st.step - lastCheckpointStep >= spec.checkpointEvery
                        || System.nanoTime() - lastCheckpointNanos >= CHECKPOINT_SECONDS * 1_000_000_000L;
                if (due) {
                    checkpoint(opt, st, epoch + 1);
                    lastCheckpointStep = st.step;
                    lastCheckpointNanos = System.nanoTime();
                }
            }
            try {
                net.saveParameters(run.file("weights.npz"));
            } catch (IOException e) {
                throw new UserException(run.file("weights.npz") + ": cannot write (" + e.getMessage() + ")");
            }
            if (last == null) {
                last = lastResult();
            }
            return last;
        }
    }

    /** Per-layer learning rates: multiplier η_l/η for every parameter of layer l (TrainSpec.layerLr). */
    private void applyLayerLearningRates(Optimizer opt) {
        java.util.Set<String> layers = new java.util.LinkedHashSet<>();
        net.parameterLayers().forEach(l -> layers.add(l.name()));
        for (String name : spec.layerLr.keySet()) {
            if (!layers.contains(name)) {
                throw new UserException("layerLr names unknown layer '" + name + "'; layers of " + net.spec().name + ": " + layers);
            }
        }
        List<org.ntk4j.model.Param> params = net.trainableParams();
        for (org.ntk4j.model.Module l : net.parameterLayers()) {
            Double mult = spec.layerLr.get(l.name());
            if (mult != null) {
                for (org.ntk4j.model.Param p : l.ownParams()) {
                    int k = params.indexOf(p);
                    if (k >= 0) {
                        opt.setLrMultiplier(k, mult);
                    }
                }
            }
        }
    }

    private Result lastResult() {
        List<JsonObject> epochs = run.records("epoch");
        JsonObject r = epochs.get(epochs.size() - 1);
        double tl = r.has("test_loss") ? r.get("test_loss").getAsDouble() : Double.NaN;
        double ta = r.has("test_accuracy") ? r.get("test_accuracy").getAsDouble() : Double.NaN;
        double tra = r.has("train_accuracy") ? r.get("train_accuracy").getAsDouble() : Double.NaN;
        return new Result(r.get("train_loss").getAsDouble(), tra, tl, ta,
                r.get("epoch").getAsInt(), r.get("step").getAsLong(), Double.NaN);
    }

    private static long[] prepend(long n, long[] shape) {
        long[] s = new long[shape.length + 1];
        s[0] = n;
        System.arraycopy(shape, 0, s, 1, shape.length);
        return s;
    }

    /** The batch order of an epoch: a permutation drawn from (seed, epoch) alone. */
    int[] order(int n, int epoch) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        if (spec.batchSize == 0) {
            return p;
        }
        Random r = new Random(spec.seed * 1_000_003L + epoch);
        for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    private static int countCorrect(NDArray f, NDArray y) {
        if (f.getShape().get(1) == 1) {
            // ±1 binary target with one output: correct when the signs agree
            return (int) f.mul(y).gt(0).sum().getLong();
        }
        return (int) f.argMax(1).eq(y.argMax(1)).sum().getLong();
    }

    /**
     * [mean loss, accuracy] on a dataset, eval mode, in batches of the training batch size (at
     * least 64; 256 for full-batch runs): a scope holds a whole forward pass, and wide nets such as
     * DenseNet keep every concatenated feature map alive until it closes.
     */
    public double[] evaluate(Dataset data) {
        double lossSum = 0;
        long correct = 0;
        int n = data.size();
        int o = net.outputs();
        float[] t = targets(spec, data);
        int d = data.featureDim();
        int batch = spec.batchSize == 0 ? 256 : Math.max(64, spec.batchSize);
        for (int from = 0; from < n; from += batch) {
            int to = Math.min(n, from + batch);
            try (NDScope scope = new NDScope(); NDManager m = net.manager().newSubManager()) {
                NDArray x = Arrays2.fromFloats(m, java.util.Arrays.copyOfRange(data.features(), from * d, to * d),
                        new Shape(prepend(to - from, net.inputShape().getShape())), net.dataType());
                NDArray y = Arrays2.fromFloats(m, java.util.Arrays.copyOfRange(t, from * o, to * o), new Shape(to - from, o),
                        net.dataType());
                Forward ctx = Forward.eval(m);
                NDArray f = net.forward(x, ctx);
                lossSum += Arrays2.value(loss.evaluate(f, y, ctx)) * (to - from);
                if (!data.isRegression()) {
                    correct += countCorrect(f, y);
                }
            }
        }
        return new double[] {lossSum / n, data.isRegression() ? Double.NaN : (double) correct / n};
    }

    private void runProbes(long step, int epoch, boolean epochEnd) {
        for (Probe p : probes) {
            if (p.due(step, epochEnd)) {
                long t0 = System.nanoTime();
                Map<String, Object> r = p.run(net, step, epoch);
                JsonObject rec = Specs.GSON.toJsonTree(r).getAsJsonObject();
                rec.addProperty("kind", "probe");
                rec.addProperty("probe", p.name());
                rec.addProperty("step", step);
                rec.addProperty("epoch", epoch);
                rec.addProperty("probe_seconds", (System.nanoTime() - t0) / 1e9);
                run.log(rec);
            }
        }
    }

    /** Longest wall time between epoch-end checkpoints. */
    static final long CHECKPOINT_SECONDS = 30;
    private long lastCheckpointStep;
    private long lastCheckpointNanos = System.nanoTime();

    /** Where the run stands; saved in checkpoint/state.json. */
    static final class State {
        int epoch;
        int stepInEpoch;
        long step;
        double lossSum;
        long correct;
        long seen;
        double time;
        double seconds;
        int records;
    }

    /** Writes weights, optimizer state and {@link State} into checkpoint/, replacing the old one atomically. */
    private void checkpoint(Optimizer opt, State st, int epoch) {
        try {
            Path tmp = run.file("checkpoint.tmp");
            deleteTree(tmp);
            Files.createDirectories(tmp);
            net.saveParameters(tmp.resolve("weights.npz"));
            NDList os = opt.state();
            Files2.writeAtomically(tmp.resolve("optimizer.npz"), out -> os.encode(out, NDList.Encoding.NPZ));
            st.records = run.recordCount();
            Files2.writeString(tmp.resolve("state.json"), Specs.toJson(st));
            Path cur = run.file("checkpoint");
            Path old = run.file("checkpoint.old");
            deleteTree(old);
            if (Files.exists(cur)) {
                Files.move(cur, old, StandardCopyOption.ATOMIC_MOVE);
            }
            Files.move(tmp, cur, StandardCopyOption.ATOMIC_MOVE);
            deleteTree(old);
        } catch (IOException e) {
            throw new UserException(run.dir() + ": cannot write checkpoint (" + e.getMessage() + ")");
        }
    }

    private State restore(Optimizer opt) {
        Path cur = run.file("checkpoint");
        if (!Files.isDirectory(cur)) {
            // a crash between the two renames leaves only checkpoint.old
            if (Files.isDirectory(run.file("checkpoint.old"))) {
                cur = run.file("checkpoint.old");
            } else {
                throw new UserException(run.dir() + ": no checkpoint to resume from (expected " + cur + ")");
            }
        }
        State st = Specs.GSON.fromJson(readString(cur.resolve("state.json")), State.class);
        net.loadParameters(cur.resolve("weights.npz"));
        try (InputStream is = new BufferedInputStream(Files.newInputStream(cur.resolve("optimizer.npz")))) {
            NDList saved = NDList.decode(net.manager(), is);
            opt.restore(saved, st.step);
            saved.close();
        } catch (IOException | IllegalArgumentException e) {
            throw new UserException(cur.resolve("optimizer.npz") + ": cannot read (" + e.getMessage() + ")");
        }
        run.truncateRecords(st.records);
        if (!quiet) {
            System.err.printf("resuming %s at epoch %d, step %d%n", run.dir(), st.epoch + 1, st.step);
        }
        return st;
    }

    private static String readString(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UserException(p + ": cannot read (" + e.getMessage() + ")");
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (Files.exists(p)) {
            try (var s = Files.walk(p)) {
                for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(q);
                }
            }
        }
    }
}
