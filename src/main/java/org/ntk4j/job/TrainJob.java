package org.ntk4j.job;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ntk4j.UserException;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.model.Network;
import org.ntk4j.probe.Probe;
import org.ntk4j.probe.ProbeListener;
import org.ntk4j.report.ReportSection;
import org.ntk4j.report.RunFolder;
import org.ntk4j.report.RunReport;
import org.ntk4j.spec.Specs;
import org.ntk4j.train.TrainLoop;

/**
 * A training run into a run folder, callable from Java: loads and subsets the dataset, builds the
 * network, trains it with console output, metrics.jsonl and checkpoints ({@link TrainRun#trainer}) and the probes
 * of the config ({@link ProbeKind}, run by a {@link ProbeListener}), then writes the report. {@link TrainRun} adds
 * the folder's lifecycle (a fresh start, a resume).
 */
public final class TrainJob {
    private TrainJob() {}

    /** What a run produced: the trainer's final metrics, and every probe record in the order they were taken. */
    public record Outcome(TrainLoop.Result result, List<Map<String, Object>> probeRecords) {
        /** The records of one probe, in order. */
        public List<Map<String, Object>> records(ProbeKind kind) {
            return probeRecords.stream()
                    .filter(r -> kind.toString().equals(r.get("probe")))
                    .toList();
        }
    }

    /** A run's training and test sets, prepared as the run prepares them; test is null for a set without one. */
    public record Data(LabelledSet train, LabelledSet test) {}

    /**
     * Checks what can be checked before any work starts; returns the config with its training spec validated
     * (choices lower-cased).
     */
    public static TrainJobConfig validate(TrainJobConfig config) {
        TrainJobConfig c = config.withTrain(config.train().validate("training options"));
        if (c.perClass() != null && c.perClass() < 1) {
            throw new UserException(
                    "--per-class (old name --n) must be >= 1 sample per class (got " + c.perClass() + ")");
        }
        if (c.testPerClass() != null && c.testPerClass() < 1) {
            throw new UserException("--test must be >= 1 sample per class (got " + c.testPerClass() + ")");
        }
        if (c.probeSet() < 1) {
            throw new UserException("--probe-set must be >= 1 sample per class (got " + c.probeSet() + ")");
        }
        if (c.pad() != null && c.pad() < 0) {
            throw new UserException("--pad must be >= 0 (got " + c.pad() + ")");
        }
        if (c.layerCkaMax() != null && c.layerCkaMax() < 0) {
            throw new UserException("--layer-cka-max must be >= 0 (got " + c.layerCkaMax() + ")");
        }
        if (c.approx() != null) {
            if (c.approx().kind() != org.ntk4j.approx.ApproxSpec.Kind.PNTK) {
                throw new UserException(
                        "--approx " + c.approx() + ": the ntk probe takes pntk only (sketch and"
                                + " nystrom give low-rank features, not the probe set's kernel; ntk4j kernel --approx has them)");
            }
            if (!c.probes().contains(ProbeKind.NTK)) {
                throw new UserException("--approx applies to the ntk probe: add ntk to --probe (got '"
                        + ProbeKind.join(c.probes()) + "')");
            }
            if (c.layerCkaMax() != null && c.layerCkaMax() > 0) {
                throw new UserException("--layer-cka-max " + c.layerCkaMax() + " with --approx pntk: Eq. 5 layer CKA"
                        + " needs the per-output FULL kernel and the pNTK has one summed output (leave"
                        + " --layer-cka-max out)");
            }
        }
        return c;
    }

    /** The config a run folder was started with (its args.json). */
    public static TrainJobConfig load(Path dir) {
        Path f = dir.resolve("args.json");
        if (!Files.isRegularFile(f)) {
            throw new UserException(dir + ": not a run folder (no args.json)");
        }
        TrainJobConfig a = Specs.read(f, TrainJobConfig.class);
        a.model().validate(f.toString());
        return a;
    }

    /**
     * The training and test sets of a run: the dataset's splits with the config's class selection, padding and
     * per-class subsets (seeds: the run's seed for training, seed + 1 for test).
     */
    public static Data data(TrainJobConfig args, Path dataDir) {
        LabelledSet train = Datasets.load(args.dataset(), Split.TRAIN, dataDir);
        LabelledSet test = Datasets.load(args.dataset(), Split.TEST, dataDir);
        if (args.classes() != null) {
            train = Preprocess.classSubset(train, args.classes());
            test = Preprocess.classSubset(test, args.classes());
        }
        if (args.pad() != null) {
            train = Preprocess.pad(train, args.pad());
            test = Preprocess.pad(test, args.pad());
        }
        if (args.perClass() != null) {
            train = Preprocess.balancedSample(
                    train, args.perClass(), args.train().seed());
        }
        if (args.testPerClass() != null) {
            test = Preprocess.balancedSample(
                    test, args.testPerClass(), args.train().seed() + 1);
        }
        return new Data(train, test.size() == 0 ? null : test); // a synthetic set may have no test points
    }

    /**
     * Trains (or, with {@code resume}, continues from the last checkpoint in {@code run}) on a
     * manager the caller owns; {@code quiet} drops the progress bars and epoch lines.
     */
    public static Outcome run(
            TrainJobConfig args, RunFolder run, Path dataDir, NDManager m, boolean resume, boolean quiet) {
        boolean locked = run.lock(); // one run per folder; a no-op when the caller holds the lock
        try {
            return runLocked(args, run, dataDir, m, resume, quiet);
        } finally {
            if (locked) {
                run.unlock();
            }
        }
    }

    private static Outcome runLocked(
            TrainJobConfig args, RunFolder run, Path dataDir, NDManager m, boolean resume, boolean quiet) {
        args = validate(args);
        org.ntk4j.report.Plots.prepareInBackground(); // the report's charts come at the end
        Data data = data(args, dataDir);
        org.ntk4j.util.Phases.mark("data read");
        LabelledSet train = data.train();
        LabelledSet test = data.test();
        try (Network net = Network.build(args.model(), args.train().seed(), m)) {
            System.err.printf(
                    "%s: %,d parameters; %s: %d train, %d test; %s on %s%n",
                    args.model().name(),
                    net.parameterCount(),
                    args.dataset(),
                    train.size(),
                    test == null ? 0 : test.size(),
                    args.train().optimizer(),
                    m.getDevice());
            org.ntk4j.util.Phases.mark("network built");
            TrainLoop trainer =
                    TrainRun.trainer(net, args.train(), train, test, run).quiet(quiet);
            ProbeListener probes = new ProbeListener(run);
            List<Map<String, Object>> records = new ArrayList<>();
            ProbeKind.Setting setting = new ProbeKind.Setting(args, train, test, net, run);
            for (ProbeKind k : args.probes()) {
                probes.add(new Recorded(k.build(setting), records));
            }
            trainer.addListener(probes);
            TrainLoop.Result r = trainer.fit(resume);
            if (r == null) {
                return null; // a finished run resumed: nothing trained, its report stands
            }
            RunReport.write(run, args.model().name() + " on " + args.dataset(), reportOrder(probes));
            org.ntk4j.util.Phases.mark("report written");
            return new Outcome(r, Collections.unmodifiableList(records));
        }
    }

    /** The report lists the probes in {@link ProbeKind}'s order, whatever the --probe order. */
    private static Map<String, ReportSection> reportOrder(ProbeListener probes) {
        Map<String, ReportSection> all = probes.reportSections();
        Map<String, ReportSection> ordered = new LinkedHashMap<>();
        for (ProbeKind k : ProbeKind.values()) {
            if (all.containsKey(k.toString())) {
                ordered.put(k.toString(), all.get(k.toString()));
            }
        }
        return ordered;
    }

    /** A probe whose records (with its name and step) are also kept in memory, for the job's {@link Outcome}. */
    private record Recorded(Probe probe, List<Map<String, Object>> records) implements Probe {
        @Override
        public String name() {
            return probe.name();
        }

        @Override
        public boolean due(long step, boolean epochEnd) {
            return probe.due(step, epochEnd);
        }

        @Override
        public Map<String, Object> run(Network net, long step, int epoch) {
            Map<String, Object> r = probe.run(net, step, epoch);
            Map<String, Object> kept = new LinkedHashMap<>(r);
            kept.put("probe", probe.name());
            kept.put("step", step);
            kept.put("epoch", epoch);
            records.add(Collections.unmodifiableMap(kept));
            return r;
        }

        @Override
        public ReportSection report() {
            return probe.report();
        }
    }
}
