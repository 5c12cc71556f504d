package org.ntk4j.train;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.ntk4j.UserException;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Network;
import org.ntk4j.spec.LossKind;
import org.ntk4j.spec.TargetEncoding;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.util.NativeWork;
import org.ntk4j.util.Phases;

/**
 * The training loop: mini-batch SGD / Adam or full-batch GD on a {@link LabelledSet} held in the engine, one NDScope
 * per step (native memory stays flat). Everything else is a {@link TrainListener}: console output, per-epoch
 * metrics, probes on their schedule (org.ntk4j.probe), and {@link Checkpoints} from which a killed run resumes
 * with exactly the weights and metrics of an uninterrupted one (the batch order is a function of (seed, epoch),
 * so resuming mid-epoch replays the same batches). The listeners that write a run folder are in org.ntk4j.job
 * ({@code TrainRun.trainer}).
 */
public final class TrainLoop {
    private final Network net;
    private final TrainSpec spec;
    private final LabelledSet train;
    private final LabelledSet test;
    private final List<TrainListener> listeners = new ArrayList<>();
    private final LossFunction loss;
    private Checkpoints checkpoints;
    private TrainListener console;
    private AdaptiveSpeeds.Source ucSource;
    private StepPhases phases;

    /** A bare training loop: no output at all until listeners are added. */
    public TrainLoop(Network net, TrainSpec spec, LabelledSet train, LabelledSet test) {
        this.net = net;
        this.spec = spec;
        this.train = train;
        this.test = test;
        this.loss = LossFunction.parse(spec.loss().json());
        if (train.isRegression() && spec.loss() != LossKind.MSE) {
            throw new UserException(train.name() + " is a regression set (real-valued targets): it needs loss mse (got "
                    + spec.loss() + ")");
        }
        int need = train.isRegression() ? train.targetOutputs() : targetWidth(spec, train.numClasses());
        if (net.outputs() != need) {
            throw new UserException("model " + net.spec().name() + " has " + net.outputs() + " outputs but "
                    + train.name() + " with loss " + spec.loss() + " and target " + spec.target() + " needs " + need);
        }
        long d = 1;
        for (long s : net.inputShape().getShape()) {
            d *= s;
        }
        if (d != train.featureDim()) {
            throw new UserException("model " + net.spec().name() + " expects inputs of shape " + net.inputShape()
                    + " but " + train.name() + " samples have shape " + java.util.Arrays.toString(train.sampleShape()));
        }
    }

    /** Adds a listener; it runs after those added before it (and before the checkpoints). */
    public TrainLoop addListener(TrainListener l) {
        listeners.add(l);
        return this;
    }

    /**
     * The per-layer UC-NFC that adaptive SLO (TrainSpec.sloAdaptive > 0) reads before every step; see
     * {@link AdaptiveSpeeds}.
     */
    public TrainLoop adaptiveSpeeds(AdaptiveSpeeds.Source source) {
        this.ucSource = source;
        return this;
    }

    /** Marks each step's phases for a profiler (null: none, the default). */
    public TrainLoop phases(StepPhases p) {
        this.phases = p;
        return this;
    }

    private void phase(StepPhases.Phase p) {
        if (phases != null) {
            phases.begin(p);
        }
    }

    /** Where checkpoints are written and resumed from (null: none); runs after every other listener. */
    public TrainLoop checkpoints(Checkpoints c) {
        this.checkpoints = c;
        return this;
    }

    /** The listener that writes to the console (e.g. progress bars); it runs first, and {@link #quiet} drops it. */
    public TrainLoop console(TrainListener c) {
        listeners.remove(console);
        this.console = c;
        listeners.add(0, c);
        return this;
    }

    /** Without console output (removes the {@link #console} listener; false puts it back). */
    public TrainLoop quiet(boolean q) {
        if (q) {
            listeners.remove(console);
        } else if (console != null && !listeners.contains(console)) {
            listeners.add(0, console);
        }
        return this;
    }

    static int targetWidth(TrainSpec spec, int classes) {
        if (spec.loss() == LossKind.MSE && spec.target() == TargetEncoding.PM1) {
            return Preprocess.plusMinusOneOutputs(classes);
        }
        return classes;
    }

    /** Targets as float rows (N, O): a regression set's own targets, else encoded from the labels. */
    static float[] targets(TrainSpec spec, LabelledSet data) {
        return data.isRegression() ? data.targets() : targets(spec, data.labels(), data.numClasses());
    }

    /** Targets as float rows (N, O) from class labels, per loss and target encoding. */
    static float[] targets(TrainSpec spec, int[] labels, int classes) {
        if (spec.loss() == LossKind.CE) {
            return Preprocess.oneHot(labels, classes);
        }
        switch (spec.target()) {
            case PM1:
                return Preprocess.plusMinusOne(labels, classes);
            case CENTERED:
                return Preprocess.centredOneHot(labels, classes);
            default:
                return Preprocess.oneHot(labels, classes);
        }
    }

    /** Final metrics of a run. */
    public record Result(
            double trainLoss,
            double trainAccuracy,
            double testLoss,
            double testAccuracy,
            int epochs,
            long steps,
            double secondsPerEpoch) {}

    /** One epoch's numbers, as logged to metrics.jsonl and printed (NaN where not measured). */
    public record EpochRecord(
            int epoch,
            long step,
            double lr,
            double t,
            double trainLoss,
            double trainAccuracy,
            double testLoss,
            double testAccuracy,
            double seconds,
            boolean classify,
            boolean fullBatch,
            boolean hasTest) {}

    /**
     * Trains from scratch, or from the last checkpoint (see {@link #checkpoints}) when {@code resume}; resuming a run
     * that has finished all its epochs says so and returns null (nothing is trained or written).
     */
    public Result fit(boolean resume) {
        NDManager m = net.manager().newSubManager();
        try (m) {
            int n = train.size();
            int o = net.outputs();
            Shape xs = new Shape(prepend(n, net.inputShape().getShape()));
            // held open by m for the whole fit (8-bit images as bytes); each epoch gathers its own copy in its batch
            // order (below), a full batch is the features themselves
            HeldFeatures x = HeldFeatures.of(m, train, xs, net.dataType(), spec.batchSize() != 0);
            NDArray y = Arrays2.held(m, targets(spec, train), new Shape(n, o), net.dataType());
            int batch = spec.batchSize() == 0 ? n : Math.min(spec.batchSize(), n);
            int stepsPerEpoch = (n + batch - 1) / batch;
            UpdateRule opt = new UpdateRule(spec, net.trainableParams(), m)
                    .fuse(UpdateRule.fuseByDefault(net.trainableParams())); // the net's own parameters
            applyLayerLearningRates(opt);
            if (spec.sloAdaptive() > 0 && ucSource == null) {
                throw new UserException("sloAdaptive = " + spec.sloAdaptive() + " needs the layers' UC-NFC at every"
                        + " step, which only the `slo` study supplies so far; set sloAdaptive to 0");
            }

            State st = new State();
            boolean classify = !train.isRegression(); // a regression run has no accuracy
            Running running = new Running(st, classify);
            TrainProgress p = new TrainProgress(net, spec, opt, st, resume, stepsPerEpoch, running::read);
            if (resume) {
                if (checkpoints == null) {
                    throw new UserException("cannot resume: this trainer keeps no checkpoints");
                }
                checkpoints.restore(p);
                if (st.epoch >= spec.epochs()) {
                    System.err.println("ntk4j: the run has finished its " + spec.epochs() + " epochs (step " + st.step
                            + "); nothing to resume (--epochs N extends a run with a constant or step schedule)");
                    return null;
                }
            }
            double secondsTotal = st.seconds;
            p.secondsBefore = secondsTotal;
            p.epoch = st.epoch;
            p.stepInEpoch = st.stepInEpoch;
            Phases.mark("training set in engine");
            each(l -> l.onStart(p));
            HeldSet heldTest = null; // the test set in the engine, held once for the run's evaluations
            NDArray[] lossScale = new NDArray[2]; // -1/B or 1/(2B) for a full batch and for the last, shorter one
            for (int epoch = st.epoch; epoch < spec.epochs(); epoch++) {
                long t0 = System.nanoTime();
                p.epoch = epoch;
                p.secondsBefore = secondsTotal;
                p.epochStartNanos = t0;
                // the epoch's samples in its batch order, gathered once in the engine, so that each batch is a slice
                // of them (one gather per epoch instead of two per step); a full-batch run takes the set as it is
                HeldFeatures xe = null;
                NDArray ye = null;
                NDArray labels = null; // the epoch's target classes in batch order, for the running accuracy
                if (spec.batchSize() != 0) {
                    try (NDArray order = epochOrder(m, n, epoch)) {
                        NDIndex inOrder = new NDIndex("{}", order);
                        xe = x.gather(inOrder);
                        ye = y.get(inOrder);
                    }
                    if (classify && o > 1) {
                        labels = ye.argMax(1);
                    }
                }
                running.begin(epoch, labels, (long) st.stepInEpoch * batch);
                for (int s = st.stepInEpoch; s < stepsPerEpoch; s++) {
                    int from = s * batch;
                    int to = Math.min(n, from + batch);
                    double lr = spec.lrAt(epoch + (double) s / stepsPerEpoch);
                    if (spec.sloAdaptive() > 0) {
                        applyAdaptiveSpeeds(opt);
                    }
                    int last = to - from == batch ? 0 : 1;
                    if (lossScale[last] == null) {
                        lossScale[last] = Arrays2.scalar(m, loss.scale(to - from), net.dataType(), m.getDevice());
                    }
                    try (NDScope scope = new NDScope();
                            NativeWork.Section nw = NativeWork.section()) {
                        phase(StepPhases.Phase.BATCH);
                        NDArray xb;
                        NDArray yb = y;
                        if (xe != null) {
                            xb = xe.range(from, to);
                            yb = ye.get(new NDIndex().addSliceDim(from, to));
                        } else {
                            xb = x.all();
                        }
                        Forward ctx = Forward.trainStep(m);
                        phase(StepPhases.Phase.FORWARD);
                        opt.beginStep(); // fresh leaves: the gradients need no zeroing after the update
                        try {
                            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                                NDArray f = net.forward(xb, ctx);
                                phase(StepPhases.Phase.LOSS);
                                NDArray lv = loss.evaluate(f, yb, lossScale[last]);
                                phase(StepPhases.Phase.BACKWARD);
                                gc.backward(lv);
                                phase(StepPhases.Phase.METRICS);
                                running.add(lv, f, yb, to - from);
                            }
                            phase(StepPhases.Phase.OPTIMIZER);
                            opt.update(lr);
                        } finally {
                            phase(StepPhases.Phase.ZERO_GRAD);
                            opt.endStep();
                        }
                        phase(StepPhases.Phase.CLEANUP);
                    }
                    st.seen += to - from;
                    st.time += lr;
                    st.step++;
                    st.stepInEpoch = s + 1;
                    p.stepInEpoch = s + 1;
                    if (st.step % READ_EVERY == 0) {
                        running.read(); // a diverged run stops within READ_EVERY steps
                    }
                    phase(StepPhases.Phase.LISTENERS);
                    each(h -> h.onStep(p));
                    if (phases != null) {
                        phases.endStep();
                    }
                }
                running.read();
                running.end();
                if (xe != null) {
                    xe.close();
                    ye.close();
                }
                double secs = (System.nanoTime() - t0) / 1e9;
                secondsTotal += secs;
                Phases.mark("epoch " + (epoch + 1));
                if (test != null && heldTest == null) {
                    heldTest = HeldSet.of(m, test, net.inputShape(), spec, o, net.dataType()); // for every epoch
                }
                double[] te = test == null ? new double[] {Double.NaN, Double.NaN} : evaluate(test, heldTest);
                Phases.mark("test evaluation");
                EpochRecord rec = new EpochRecord(
                        epoch + 1,
                        st.step,
                        spec.lrAt(epoch + 1.0 - 1e-9),
                        st.time,
                        st.lossSum / st.seen,
                        classify ? (double) st.correct / st.seen : Double.NaN,
                        te[0],
                        classify ? te[1] : Double.NaN,
                        secs,
                        classify,
                        spec.batchSize() == 0,
                        test != null);
                p.result = new Result(
                        st.lossSum / st.seen,
                        classify ? (double) st.correct / st.seen : Double.NaN,
                        te[0],
                        classify ? te[1] : Double.NaN,
                        epoch + 1,
                        st.step,
                        secondsTotal / (epoch + 1 - 0.0));
                st.epoch = epoch + 1;
                st.stepInEpoch = 0;
                st.lossSum = 0;
                st.correct = 0;
                st.seen = 0;
                st.seconds = secondsTotal;
                p.epochStartNanos = 0;
                p.secondsBefore = secondsTotal;
                each(l -> l.onEpoch(p, rec));
                Phases.mark("epoch listeners");
            }
            Result last = p.result;
            each(l -> l.onEnd(p, last));
            Phases.mark("end listeners");
            return last;
        }
    }

    /** Runs a hook on every listener, then on the checkpoints (always last). */
    private void each(java.util.function.Consumer<TrainListener> hook) {
        for (TrainListener l : listeners) {
            hook.accept(l);
        }
        if (checkpoints != null) {
            hook.accept(checkpoints);
        }
    }

    /**
     * Per-layer learning rates: multiplier η_l/η for every parameter of layer l (TrainSpec.layerLr; SLO's speeds
     * C_l), and the per-layer parameter groups whose gradient norm SLO fixes.
     */
    private void applyLayerLearningRates(UpdateRule opt) {
        java.util.Set<String> layers = new java.util.LinkedHashSet<>();
        net.parameterLayers().forEach(l -> layers.add(l.name()));
        for (String name : spec.layerLr().keySet()) {
            if (!layers.contains(name)) {
                throw new UserException("layerLr names unknown layer '" + name + "'; layers of "
                        + net.spec().name() + ": " + layers);
            }
        }
        List<org.ntk4j.model.Param> params = net.trainableParams();
        int group = 0;
        for (org.ntk4j.model.Module l : net.parameterLayers()) {
            for (org.ntk4j.model.Param p : l.ownParams()) {
                int k = params.indexOf(p);
                if (k >= 0) {
                    opt.setGroup(k, params.size() + group); // SLO: one norm per layer
                }
            }
            group++;
            Double mult = spec.layerLr().get(l.name());
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

    /** Adaptive SLO: every parameter of layer l gets the speed C_l of {@link AdaptiveSpeeds#speeds}. */
    private void applyAdaptiveSpeeds(UpdateRule opt) {
        List<String> names = new ArrayList<>();
        net.parameterLayers().forEach(l -> names.add(l.name()));
        java.util.Map<String, Double> c = AdaptiveSpeeds.speeds(names, ucSource.ucNfc(net), spec.sloAdaptive());
        List<org.ntk4j.model.Param> params = net.trainableParams();
        for (org.ntk4j.model.Module l : net.parameterLayers()) {
            for (org.ntk4j.model.Param p : l.ownParams()) {
                int k = params.indexOf(p);
                if (k >= 0) {
                    opt.setSpeed(k, c.get(l.name()));
                }
            }
        }
    }

    private static long[] prepend(long n, long[] shape) {
        long[] s = new long[shape.length + 1];
        s[0] = n;
        System.arraycopy(shape, 0, s, 1, shape.length);
        return s;
    }

    /** The batch order of an epoch as int64 row indices in the engine (one upload per epoch). */
    private NDArray epochOrder(NDManager m, int n, int epoch) {
        int[] o = order(n, epoch);
        long[] rows = new long[n];
        for (int i = 0; i < n; i++) {
            rows[i] = o[i];
        }
        try (NDArray tmp = m.create(rows)) {
            return tmp.duplicate(); // native memory of its own (the Java buffer may be collected)
        }
    }

    /** The batch order of an epoch: a permutation drawn from (seed, epoch) alone. */
    int[] order(int n, int epoch) {
        return batchOrder(spec, n, epoch);
    }

    /**
     * The order in which epoch {@code epoch} (0-based) of a run with {@code spec} visits the {@code n} training
     * samples: a permutation drawn from (seed, epoch) alone (so a resumed run replays it), the identity for
     * full-batch runs. Peers that train the same batches use it (benchmarks/peer/TrainBench.java).
     */
    public static int[] batchOrder(TrainSpec spec, int n, int epoch) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        if (spec.batchSize() == 0) {
            return p;
        }
        Random r = new Random(spec.seed() * 1_000_003L + epoch);
        for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    private static int countCorrect(NDArray f, NDArray y) {
        return (int) correct(f, y).getLong();
    }

    /** The number of correct predictions in a batch, as an int64 scalar in the engine. */
    static NDArray correct(NDArray f, NDArray y) {
        if (f.getShape().get(1) == 1) {
            // ±1 binary target with one output: correct when the signs agree
            return f.mul(y).gt(0).sum();
        }
        return f.argMax(1).eq(y.argMax(1)).sum();
    }

    /** Steps between reads of the running loss (the check for a diverged run) when no listener asks sooner. */
    static final int READ_EVERY = 64;

    /**
     * The epoch's running loss sum Σ_b ℓ_b·|b| (float64) and correct count, copied into the {@link State} only when
     * read: at the epoch end, every {@link #READ_EVERY} steps, and when a listener asks for the state or the running
     * loss; a GPU is not made to wait for the host after every step. A step adds one engine call: the predicted
     * classes (argmax of the outputs); its loss is kept as the detached scalar the step computed. A read stacks the
     * kept losses (one call) and sums ℓ_b·|b| on the host in step order, in float64 (a float32 loss times a batch size
     * is exact in float64, so the sum does not depend on when it is read), and compares the kept predictions with the
     * epoch's target classes at once (concatenate, compare, sum). A run without the epoch's target classes in batch
     * order (a full batch, one ±1 output) keeps each step's correct count instead.
     */
    private final class Running {
        private final State st;
        private final boolean classify;
        private final List<NDArray> losses = new ArrayList<>();
        private final List<Integer> sizes = new ArrayList<>();
        private final List<NDArray> marks = new ArrayList<>(); // predicted classes, or correct counts without labels
        private NDArray labels; // the epoch's target classes in batch order, or null
        private long labelsFrom; // the epoch row of the first kept prediction
        private int epoch;

        Running(State st, boolean classify) {
            this.st = st;
            this.classify = classify;
        }

        /**
         * Starts an epoch whose steps' losses add to the state's sums (zero, or a resumed run's partial epoch);
         * {@code epochLabels} are its target classes in batch order (owned here from now on), or null, and
         * {@code firstRow} the row its first step starts at.
         */
        void begin(int e, NDArray epochLabels, long firstRow) {
            epoch = e;
            labels = epochLabels;
            labelsFrom = firstRow;
        }

        /** Adds one step: its mean loss {@code lv} over {@code size} samples, outputs {@code f}, targets {@code y}. */
        void add(NDArray lv, NDArray f, NDArray y, int size) {
            losses.add(kept(lv.stopGradient()));
            sizes.add(size);
            if (classify) {
                marks.add(kept(labels != null ? f.argMax(1) : TrainLoop.correct(f, y)));
            }
        }

        private NDArray kept(NDArray a) {
            NDScope.unregister(a); // kept until the next read, past the step's scope
            return a;
        }

        /** Copies the sums into the state; a non-finite loss stops the run. */
        void read() {
            if (losses.isEmpty()) {
                return;
            }
            try (NDScope scope = new NDScope()) { // the read's own arrays
                // float32 → float64 is exact: the same products ℓ_b·|b| and sums as on the host
                double[] l = NDArrays.stack(new NDList(losses))
                        .toType(DataType.FLOAT64, false)
                        .toDoubleArray();
                for (int i = 0; i < l.length; i++) {
                    st.lossSum += l[i] * sizes.get(i);
                }
                if (classify) {
                    // the predictions end to end (1-d each), or the steps' counts (0-d each) side by side
                    NDArray all =
                            labels != null ? NDArrays.concat(new NDList(marks)) : NDArrays.stack(new NDList(marks));
                    if (labels != null) {
                        long rows = all.getShape().get(0);
                        all = all.eq(labels.get(new NDIndex().addSliceDim(labelsFrom, labelsFrom + rows)));
                        labelsFrom += rows;
                    }
                    st.correct += all.sum().getLong();
                }
            }
            close(losses);
            close(marks);
            sizes.clear();
            if (!Double.isFinite(st.lossSum)) {
                throw new UserException("training diverged in epoch " + (epoch + 1) + " by step " + st.stepInEpoch
                        + " (loss " + st.lossSum + "); lower the learning rate (lr = " + spec.lr() + ")");
            }
        }

        void end() {
            close(losses);
            close(marks);
            sizes.clear();
            if (labels != null) {
                labels.close();
                labels = null;
            }
        }

        private void close(List<NDArray> arrays) {
            for (NDArray a : arrays) {
                a.close();
            }
            arrays.clear();
        }
    }

    /**
     * [mean loss, accuracy] on a dataset, eval mode, in batches of the training batch size (at
     * least 64; 256 for full-batch runs): a scope holds a whole forward pass, and wide nets such as
     * DenseNet keep every concatenated feature map alive until it closes. The set goes into the engine once per call
     * ({@link #fit} keeps its test set there for the whole run) and each batch is a slice of it: a fresh Java direct
     * buffer per batch cost 3-4 ms of page faults (the buffers are freed only when the garbage collector runs),
     * 0.25-0.33 s of a 10,000-image MNIST evaluation.
     */
    public double[] evaluate(LabelledSet data) {
        try (NDManager held = net.manager().newSubManager()) {
            return evaluate(data, HeldSet.of(held, data, net.inputShape(), spec, net.outputs(), net.dataType()));
        }
    }

    /** A labelled set's inputs and targets held in the engine for evaluations. */
    private record HeldSet(HeldFeatures x, NDArray y) {
        static HeldSet of(NDManager m, LabelledSet data, Shape inputShape, TrainSpec spec, int outputs, DataType t) {
            int n = data.size();
            return new HeldSet(
                    HeldFeatures.of(m, data, new Shape(prepend(n, inputShape.getShape())), t, true),
                    Arrays2.held(m, targets(spec, data), new Shape(n, outputs), t));
        }
    }

    private double[] evaluate(LabelledSet data, HeldSet h) {
        double lossSum = 0;
        long correct = 0;
        int n = data.size();
        int batch = spec.batchSize() == 0 ? 256 : Math.max(64, spec.batchSize());
        for (int from = 0; from < n; from += batch) {
            int to = Math.min(n, from + batch);
            try (NDScope scope = new NDScope();
                    NDManager m = net.manager().newSubManager()) {
                NDArray x = h.x().range(from, to); // a view of a float block, closed with the batch's scope
                NDArray y = h.y().get(new NDIndex().addSliceDim(from, to));
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

    /** Where the run stands; saved in checkpoint/state.json (its fields are that file's names). */
    public static final class State {
        int epoch;
        int stepInEpoch;
        long step;
        double lossSum;
        long correct;
        long seen;
        double time;
        double seconds;
        int records;

        /** Epochs completed. */
        public int epoch() {
            return epoch;
        }

        /** Global steps done. */
        public long step() {
            return step;
        }

        /** Steps done in the current epoch. */
        public int stepInEpoch() {
            return stepInEpoch;
        }

        /** The epoch's summed loss so far (Σ over its steps of the mini-batch mean loss × batch size). */
        public double lossSum() {
            return lossSum;
        }

        /** Samples seen in the epoch so far. */
        public long seen() {
            return seen;
        }

        /** The metrics records the run had logged when this state was saved. */
        public int records() {
            return records;
        }

        public void records(int n) {
            records = n;
        }

        /** Training seconds so far. */
        public void seconds(double s) {
            seconds = s;
        }

        /** Whether the counters are possible (a state read back from a damaged file may not be). */
        public boolean valid() {
            return epoch >= 0 && step >= 0 && records >= 0;
        }

        public void copyFrom(State o) {
            epoch = o.epoch;
            stepInEpoch = o.stepInEpoch;
            step = o.step;
            lossSum = o.lossSum;
            correct = o.correct;
            seen = o.seen;
            time = o.time;
            seconds = o.seconds;
            records = o.records;
        }
    }
}
