package org.ntk4j.job;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.ntk4j.UserException;
import org.ntk4j.data.Dataset;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.model.Network;
import org.ntk4j.probe.FeatureAnsatzProbe;
import org.ntk4j.probe.NeuralCollapseProbe;
import org.ntk4j.probe.NtkProbe;
import org.ntk4j.probe.ProbeListener;
import org.ntk4j.report.ReportSection;
import org.ntk4j.report.RunFolder;
import org.ntk4j.report.RunReport;
import org.ntk4j.spec.Specs;
import org.ntk4j.train.Schedule;
import org.ntk4j.train.Trainer;

/**
 * A training run into a run folder, callable from Java: loads and subsets the dataset, builds the
 * network, trains it with console output, metrics.jsonl and checkpoints ({@link Trainer}'s
 * listeners) and the probes of the config ({@link ProbeListener}), then writes the report.
 */
public final class TrainJob {
    /** The probes {@code --probe} accepts. */
    public static final List<String> PROBES = List.of("ntk", "nc", "nfa");

    private TrainJob() {}

    /** The probes named in a comma-separated list, validated, without repeats. */
    public static List<String> probes(String list) {
        List<String> out = new ArrayList<>();
        if (list == null || list.isBlank()) {
            return out;
        }
        for (String p : list.split(",")) {
            String q = p.trim();
            if (!PROBES.contains(q)) {
                throw new UserException(
                        "--probe: unknown probe '" + q + "'; expected a comma-separated list of " + PROBES);
            }
            if (!out.contains(q)) {
                out.add(q);
            }
        }
        return out;
    }

    /**
     * Checks what can be checked before any work starts: the probe list and its schedule; returns
     * the config with its training spec validated (choices lower-cased).
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
        probes(c.probe());
        Schedule.parse(c.probeEvery());
        if (c.probePoints() != null && !TrainJobConfig.PROBE_POINTS.contains(c.probePoints())) {
            throw new UserException(
                    "--probe-points must be one of " + TrainJobConfig.PROBE_POINTS + " (got " + c.probePoints() + ")");
        }
        if (c.layerCkaMax() != null && c.layerCkaMax() < 0) {
            throw new UserException("--layer-cka-max must be >= 0 (got " + c.layerCkaMax() + ")");
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
     * Trains (or, with {@code resume}, continues from the last checkpoint in {@code run}) on a
     * manager the caller owns; {@code quiet} drops the progress bars and epoch lines.
     */
    public static Trainer.Result run(
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

    private static Trainer.Result runLocked(
            TrainJobConfig args, RunFolder run, Path dataDir, NDManager m, boolean resume, boolean quiet) {
        args = validate(args);
        Dataset train = Datasets.load(args.dataset(), Split.TRAIN, dataDir);
        Dataset test = Datasets.load(args.dataset(), Split.TEST, dataDir);
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
        if (test.size() == 0) {
            test = null; // a synthetic set generated without test points
        }
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
            Trainer trainer = new Trainer(net, args.train(), train, test, run).quiet(quiet);
            Schedule when = Schedule.parse(args.probeEvery());
            ProbeListener probes = new ProbeListener(run);
            for (String p : probes(args.probe())) {
                switch (p) {
                    case "ntk":
                        // --probe-points train (Eq. 5 is defined on training data) or test (held-out images; the
                        // behaviour of runs started before the option); regression (seeds 001, 004) and a set without
                        // test points: the training points themselves
                        boolean onTest =
                                "test".equals(args.probePointsOrDefault()) && !train.isRegression() && test != null;
                        Dataset from = onTest ? test : train;
                        probes.add(NtkProbe.builder(Preprocess.balancedSample(from, args.probeSet(), 7))
                                .runFolder(run)
                                .schedule(when)
                                .layerCkaMax(args.layerCkaMax() == null ? NtkProbe.LAYER_CKA_MAX : args.layerCkaMax())
                                .build());
                        break;
                    case "nc":
                        if (train.isRegression()) {
                            throw new UserException("--probe nc: neural collapse needs class labels; " + args.dataset()
                                    + " is a regression set");
                        }
                        net.features(); // fails now, with its message, if the model has no dense classifier
                        probes.add(new NeuralCollapseProbe(Preprocess.balancedSample(train, args.probeSet(), 7), when));
                        break;
                    case "nfa":
                        probes.add(new FeatureAnsatzProbe(Preprocess.balancedSample(train, args.probeSet(), 7), when));
                        break;
                    default:
                        throw new IllegalStateException(p);
                }
            }
            trainer.addListener(probes);
            Trainer.Result r = trainer.fit(resume);
            if (r == null) {
                return null; // a finished run resumed: nothing trained, its report stands
            }
            RunReport.write(run, args.model().name() + " on " + args.dataset(), reportOrder(probes));
            return r;
        }
    }

    /** The report lists neural collapse and the feature ansatz before the NTK, whatever the --probe order. */
    private static java.util.Map<String, ReportSection> reportOrder(ProbeListener probes) {
        java.util.Map<String, ReportSection> all = probes.reportSections();
        java.util.Map<String, ReportSection> ordered = new java.util.LinkedHashMap<>();
        for (String p : List.of("nc", "nfa", "ntk")) {
            if (all.containsKey(p)) {
                ordered.put(p, all.get(p));
            }
        }
        return ordered;
    }
}
