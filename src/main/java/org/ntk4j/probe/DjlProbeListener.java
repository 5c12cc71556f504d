package org.ntk4j.probe;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.Trainer;
import ai.djl.training.listener.TrainingListenerAdapter;
import ai.djl.util.Pair;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.ntk4j.model.Network;
import org.ntk4j.report.Provenance;
import org.ntk4j.report.ReportSection;
import org.ntk4j.report.RunFolder;
import org.ntk4j.report.RunReport;
import org.ntk4j.spec.Specs;
import org.ntk4j.train.Arrays2;

/**
 * Runs ntk4j {@link Probe}s (e.g. an {@link NtkProbe} on a fixed probe set) inside DJL's own
 * {@link Trainer} / {@code EasyTrain.fit}, on each probe's schedule: at step s (after s optimizer
 * updates) where a probe is {@code due(s, false)}, and at every epoch end where it is
 * {@code due(s, true)}; each step is measured once. The block is measured through
 * {@link Network#ofBlock} (a live view of its parameters).
 *
 * <p>DJL notifies {@code onTrainingBatch} after the batch's backward pass but before
 * {@code trainer.step()}, so the parameters then hold the weights after s = (batches before) updates and
 * their gradients are pending. Measuring a kernel runs backward passes of its own, which would add to
 * those gradients; the listener therefore saves every parameter's gradient before the probes and
 * writes it back after them, so training proceeds exactly as without the listener.
 *
 * <p>Each record (the probe's values, arrays as lists, plus {@code probe}, {@code step}, {@code epoch},
 * {@code probe_seconds}) is kept in memory ({@link #records()}) and passed to the sinks, e.g.
 * {@link #jsonl(RunFolder)} for a metrics.jsonl. With {@link #runFolder(RunFolder)} the listener keeps a whole run
 * folder instead: the probe records, the training loss of every step, the provenance of the session, and
 * {@link #report(String)} writes its report.html:
 * <pre>{@code
 * DjlProbeListener probes = new DjlProbeListener(block, new Shape(1, 28, 28), manager)
 *         .add(NtkProbe.builder(probeSet).runFolder(run).build())
 *         .add(new NeuralCollapseProbe(probeSet, Schedule.parse("epochs")))
 *         .add(new FeatureAnsatzProbe(probeSet, Schedule.parse("epochs")))
 *         .runFolder(run);
 * config.addTrainingListeners(probes);
 * EasyTrain.fit(trainer, epochs, trainSet, testSet);
 * probes.report("my CNN on MNIST");
 * }</pre>
 */
public final class DjlProbeListener extends TrainingListenerAdapter {
    private final Block block;
    private final Shape inputShape;
    private final NDManager manager;
    private final List<Probe> probes = new ArrayList<>();
    private final List<Consumer<Map<String, Object>>> sinks = new ArrayList<>();
    private final List<Map<String, Object>> records = new ArrayList<>();
    private RunFolder run;
    private boolean sessionLogged;
    private long batches;
    private int epochs;
    private long lastProbed = -1;

    /**
     * @param block the model's block (initialised before training starts)
     * @param inputShape the shape of one sample, without the batch axis
     * @param manager where the probe's view of the block and its temporary arrays live
     */
    public DjlProbeListener(Block block, Shape inputShape, NDManager manager) {
        this.block = block;
        this.inputShape = inputShape;
        this.manager = manager;
    }

    public DjlProbeListener add(Probe p) {
        probes.add(p);
        return this;
    }

    /** Also hands every record to {@code sink}. */
    public DjlProbeListener sink(Consumer<Map<String, Object>> sink) {
        sinks.add(sink);
        return this;
    }

    /**
     * Keeps the run in {@code run}: probe records, the training loss of every step ({@code "kind": "step"}) and the
     * session's provenance go to its metrics.jsonl, so {@link #report(String)} (or {@code ntk4j report DIR}) can
     * write its report.html.
     */
    public DjlProbeListener runFolder(RunFolder run) {
        this.run = run;
        return sink(jsonl(run));
    }

    /** Writes the run folder's report.html (needs {@link #runFolder(RunFolder)}): loss per step and every probe's section. */
    public void report(String title) {
        if (run == null) {
            throw new IllegalStateException("no run folder: call runFolder(run) before training");
        }
        RunReport.write(run, title, reportSections());
    }

    /** The probes' report sections by probe name, in the order they were added. */
    public Map<String, ReportSection> reportSections() {
        Map<String, ReportSection> m = new LinkedHashMap<>();
        probes.forEach(p -> m.put(p.name(), p.report()));
        return m;
    }

    /** A sink that logs records as {@code "kind": "probe"} lines of a run folder's metrics.jsonl, as {@link ProbeListener} does. */
    public static Consumer<Map<String, Object>> jsonl(RunFolder run) {
        return r -> {
            JsonObject rec = Specs.GSON.toJsonTree(r).getAsJsonObject();
            rec.addProperty("kind", "probe");
            run.log(rec);
        };
    }

    /** Every record so far, in order. */
    public List<Map<String, Object>> records() {
        return Collections.unmodifiableList(records);
    }

    @Override
    public void onTrainingBegin(Trainer trainer) {
        if (run != null && !sessionLogged) {
            run.log(Provenance.record(manager.getDevice(), false));
            sessionLogged = true;
        }
    }

    @Override
    public void onTrainingBatch(Trainer trainer, BatchData batchData) {
        if (run != null) {
            logLoss(trainer, batchData, batches + 1);
        }
        runDue(batches, false);
        batches++;
    }

    /** The batch's training loss under the trainer's loss (mean over its devices' splits), as a step record. */
    private void logLoss(Trainer trainer, BatchData batch, long step) {
        double sum = 0;
        int parts = 0;
        for (var e : batch.getPredictions().entrySet()) {
            NDList labels = batch.getLabels().get(e.getKey());
            try (NDArray l = trainer.getLoss().evaluate(labels, e.getValue())) {
                sum += Arrays2.value(l);
                parts++;
            }
        }
        if (parts > 0) {
            JsonObject rec = new JsonObject();
            rec.addProperty("kind", RunReport.STEP);
            rec.addProperty("step", step);
            rec.addProperty("epoch", epochs + 1); // the epoch the step belongs to, 1-based (as ntk4j's trainer logs it)
            rec.addProperty("loss", sum / parts);
            run.log(rec);
        }
    }

    @Override
    public void onEpoch(Trainer trainer) {
        epochs++;
        runDue(batches, true);
    }

    private void runDue(long step, boolean epochEnd) {
        if (step == lastProbed) {
            return;
        }
        List<Probe> due = probes.stream().filter(p -> p.due(step, epochEnd)).toList();
        if (due.isEmpty()) {
            return;
        }
        lastProbed = step;
        List<Pair<NDArray, NDArray>> saved = saveGradients();
        try (NDManager m = manager.newSubManager()) {
            Network net = Network.ofBlock(block, inputShape, m);
            for (Probe p : due) {
                long t0 = System.nanoTime();
                Map<String, Object> r = ProbeRecords.readable(p.run(net, step, epochs));
                r.put("probe", p.name());
                r.put("step", step);
                r.put("epoch", epochs);
                r.put("probe_seconds", (System.nanoTime() - t0) / 1e9);
                records.add(r);
                sinks.forEach(s -> s.accept(r));
            }
        } finally {
            restoreGradients(saved);
        }
    }

    /** (parameter array, a copy of its gradient) for every trainable parameter of the block. */
    private List<Pair<NDArray, NDArray>> saveGradients() {
        List<Pair<NDArray, NDArray>> saved = new ArrayList<>();
        for (Pair<String, Parameter> e : block.getParameters()) {
            Parameter p = e.getValue();
            if (p.requiresGradient() && p.isInitialized()) {
                NDArray a = p.getArray();
                NDArray g = a.getGradient();
                NDArray copy = g.duplicate();
                copy.detach(); // owned here, closed on restore
                g.close(); // the wrapper only (the gradient itself stays)
                saved.add(new Pair<>(a, copy));
            }
        }
        return saved;
    }

    private static void restoreGradients(List<Pair<NDArray, NDArray>> saved) {
        for (Pair<NDArray, NDArray> s : saved) {
            NDArray a = s.getKey();
            JniUtils.zeroGrad((PtNDArray) a);
            NDArray g = a.getGradient(); // shares the gradient's storage: in-place ops write it
            g.addi(s.getValue());
            g.close();
            s.getValue().close();
        }
    }
}
