package org.ntk4j.probe;

import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ntk4j.report.ProgressBar;
import org.ntk4j.report.ReportSection;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.Specs;
import org.ntk4j.train.TrainListener;
import org.ntk4j.train.TrainLoop;
import org.ntk4j.train.TrainProgress;

/**
 * Runs {@link Probe}s inside an ntk4j {@link TrainLoop}: at initialisation (a fresh run), after each
 * step within an epoch, and at each epoch end, whenever a probe is due; logs each record, with its
 * probe name, step, epoch and time, as {@code "kind": "probe"} to the run's metrics.jsonl.
 */
public final class ProbeListener implements TrainListener {
    private final RunFolder run;
    private final List<Probe> probes = new ArrayList<>();

    public ProbeListener(RunFolder run) {
        this.run = run;
    }

    public ProbeListener add(Probe p) {
        probes.add(p);
        return this;
    }

    public List<Probe> probes() {
        return List.copyOf(probes);
    }

    /** The probes' report sections by probe name, in the order they were added. */
    public Map<String, ReportSection> reportSections() {
        Map<String, ReportSection> m = new LinkedHashMap<>();
        probes.forEach(p -> m.put(p.name(), p.report()));
        return m;
    }

    @Override
    public void onStart(TrainProgress p) {
        if (!p.resumed()) {
            runProbes(p, 0, 0, false);
        }
    }

    @Override
    public void onStep(TrainProgress p) {
        if (!p.endOfEpoch()) {
            runProbes(p, p.step(), p.epoch(), false);
        }
    }

    @Override
    public void onEpoch(TrainProgress p, TrainLoop.EpochRecord e) {
        runProbes(p, p.step(), e.epoch(), true);
    }

    private void runProbes(TrainProgress tp, long step, int epoch, boolean epochEnd) {
        for (Probe p : probes) {
            if (p.due(step, epochEnd)) {
                long t0 = System.nanoTime();
                Map<String, Object> r;
                try (ProgressBar.Activity a = ProgressBar.activity("probe " + p.name() + " at step " + step)) {
                    r = ProbeRecords.readable(p.run(tp.net(), step, epoch));
                }
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
}
