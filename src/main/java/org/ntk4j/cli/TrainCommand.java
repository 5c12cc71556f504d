package org.ntk4j.cli;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.ntk4j.UserException;
import org.ntk4j.data.Dataset;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.kernel.NtkProbe;
import org.ntk4j.model.Network;
import org.ntk4j.report.RunFolder;
import org.ntk4j.report.RunReport;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.train.Trainer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ntk4j train}: trains a model on a dataset into a run folder. */
@Command(name = "train", mixinStandardHelpOptions = true,
        description = {"Train a network on a dataset; writes a run folder (model.json, train.json, metrics.jsonl,"
                + " checkpoint/, weights.npz, PNG plots, report.html).",
            "Example: ntk4j train --model mlp-relu --dataset mnist --epochs 10 --lr 0.05 --momentum 0.9 --out runs/mlp",
            "Resume a killed run: ntk4j train --resume runs/mlp"})
public final class TrainCommand implements Callable<Integer> {
    @Option(names = "--model", paramLabel = "SPEC|NAME", description = "model spec file, or a name in models/")
    String model;

    @Option(names = "--dataset", paramLabel = "NAME", defaultValue = "mnist-subset",
            description = "mnist, fashion-mnist, cifar10 or mnist-subset (bundled; default)")
    String dataset;

    @Option(names = "--n", paramLabel = "N", description = "train on N samples per class (balanced, seeded); default all")
    Integer perClass;

    @Option(names = "--test", paramLabel = "M", description = "evaluate on M test samples per class; default all")
    Integer testPerClass;

    @Option(names = "--classes", paramLabel = "C,C,...", split = ",",
            description = "train on these classes only, relabelled 0..k-1 (e.g. 0,1 for a binary task)")
    int[] classes;

    @Option(names = "--pad", paramLabel = "P", description = "zero-pad images by P pixels per side (MNIST 28→32 with 2)")
    Integer pad;

    @Option(names = "--outputs", paramLabel = "O", description = "override the model spec's number of outputs")
    Integer outputs;

    @Option(names = "--train-spec", paramLabel = "FILE", description = "training settings as JSON (TrainSpec); options below override it")
    Path trainSpec;

    @Option(names = "--optimizer", description = "sgd or adam") String optimizer;
    @Option(names = "--lr", description = "learning rate") Double lr;
    @Option(names = "--momentum", description = "SGD momentum") Double momentum;
    @Option(names = "--nesterov", description = "Nesterov momentum") Boolean nesterov;
    @Option(names = "--weight-decay", description = "L2 weight decay") Double weightDecay;
    @Option(names = "--epochs", description = "epochs") Integer epochs;
    @Option(names = "--batch-size", description = "mini-batch size; 0 = full-batch gradient descent") Integer batchSize;
    @Option(names = "--loss", description = "ce or mse") String loss;
    @Option(names = "--target", description = "MSE targets: onehot, pm1 or centered") String target;
    @Option(names = "--schedule", description = "constant, cosine, step or warmup-cosine") String schedule;
    @Option(names = "--checkpoint-every", paramLabel = "STEPS", description = "checkpoint every STEPS steps (default: each epoch)")
    Integer checkpointEvery;

    @Option(names = "--seed", defaultValue = "0", description = "seed for the initialisation, sampling and batch order (default 0)")
    long seed;

    @Option(names = "--out", paramLabel = "DIR", description = "run folder (default runs/<model>-<dataset>)")
    Path out;

    @Option(names = "--resume", paramLabel = "RUN_DIR", description = "continue the run in RUN_DIR from its last checkpoint")
    Path resume;

    @Option(names = "--probe", paramLabel = "LIST", description = "measure during training, comma-separated: ntk = the traced"
                    + " NTK of a test-set probe set (per layer), logging kernel-target alignment (total and per layer), relative"
                    + " change and kernel distance from init, kernel velocity, effective rank and leading eigenvalues (kernels kept"
                    + " as ntk-step<k>.npz); nc = neural-collapse statistics NC1-NC4 of the penultimate features of a training-set"
                    + " probe set; nfa = the neural feature ansatz per dense layer, NFC rho(W'W, AGOP) and the centred C-NFC"
                    + " (seed 002) on training images. All are logged to metrics.jsonl and plotted in report.html")
    String probe;

    @Option(names = "--probe-set", paramLabel = "N", defaultValue = "10",
            description = "probe-set size per class (default ${DEFAULT-VALUE})")
    int probeSet;

    @Option(names = "--probe-every", paramLabel = "SCHEDULE", defaultValue = "epochs",
            description = "when probes run: epochs (default), every:K steps, or log:N:MAX (N log-spaced steps up to MAX)")
    String probeEvery;

    @Mixin
    RuntimeOptions runtime;

    @Override
    public Integer call() {
        TrainArgs args = resume != null ? TrainArgs.load(resume) : new TrainArgs();
        if (resume == null) {
            if (model == null) {
                throw new UserException("--model is required (a spec file or one of " + ModelSpec.available() + ")");
            }
            args.model = ModelSpec.resolve(model);
            if (outputs != null) {
                args.model.outputs = outputs;
                args.model.validate("--outputs");
            }
            args.classes = classes;
            args.pad = pad;
            args.train = trainSpec != null ? Specs.read(trainSpec, TrainSpec.class) : new TrainSpec();
            args.dataset = dataset;
            args.perClass = perClass;
            args.testPerClass = testPerClass;
            args.probe = probe;
            args.probeSet = probeSet;
            args.probeEvery = probeEvery;
            args.train.seed = seed;
        }
        TrainSpec t = args.train;
        if (optimizer != null) t.optimizer = optimizer;
        if (lr != null) t.lr = lr;
        if (momentum != null) t.momentum = momentum;
        if (nesterov != null) t.nesterov = nesterov;
        if (weightDecay != null) t.weightDecay = weightDecay;
        if (epochs != null) t.epochs = epochs;
        if (batchSize != null) t.batchSize = batchSize;
        if (loss != null) t.loss = loss;
        if (target != null) t.target = target;
        if (schedule != null) t.schedule = schedule;
        if (checkpointEvery != null) t.checkpointEvery = checkpointEvery;
        t.validate("training options");
        probes(args.probe); // validated before any work starts
        org.ntk4j.train.Schedule.parse(args.probeEvery);
        Path dir = resume != null ? resume : out != null ? out : Path.of("runs", args.model.name + "-" + args.dataset);
        if (resume == null && Files.exists(dir.resolve("checkpoint"))) {
            throw new UserException(dir + " already holds a run; use --resume " + dir + " or another --out");
        }
        RunFolder run = new RunFolder(dir);
        if (resume == null) {
            run.writeJson("args.json", args);
        }
        runTraining(args, run, runtime, resume != null, false);
        System.out.println("run folder: " + dir.toAbsolutePath());
        return 0;
    }

    static final java.util.List<String> PROBES = java.util.List.of("ntk", "nc", "nfa");

    /** The probes named in a comma-separated --probe list, validated. */
    static java.util.List<String> probes(String list) {
        java.util.List<String> out = new java.util.ArrayList<>();
        if (list == null || list.isBlank()) {
            return out;
        }
        for (String p : list.split(",")) {
            String q = p.trim();
            if (!PROBES.contains(q)) {
                throw new UserException("--probe: unknown probe '" + q + "'; expected a comma-separated list of " + PROBES);
            }
            if (!out.contains(q)) {
                out.add(q);
            }
        }
        return out;
    }

    /** What a run was started with; saved as args.json so --resume needs nothing else. */
    static final class TrainArgs {
        ModelSpec model;
        TrainSpec train;
        String dataset;
        Integer perClass;
        Integer testPerClass;
        String probe;
        int probeSet = 10;
        String probeEvery = "epochs";
        int[] classes;
        Integer pad;

        static TrainArgs load(Path dir) {
            Path f = dir.resolve("args.json");
            if (!Files.isRegularFile(f)) {
                throw new UserException(dir + ": not a run folder (no args.json)");
            }
            TrainArgs a = Specs.read(f, TrainArgs.class);
            a.model.validate(f.toString());
            return a;
        }
    }

    static Trainer.Result runTraining(TrainArgs args, RunFolder run, RuntimeOptions runtime, boolean resume, boolean quiet) {
        Dataset train = Datasets.load(args.dataset, Split.TRAIN, runtime.dataDir());
        Dataset test = Datasets.load(args.dataset, Split.TEST, runtime.dataDir());
        if (args.classes != null) {
            train = Preprocess.classSubset(train, args.classes);
            test = Preprocess.classSubset(test, args.classes);
        }
        if (args.pad != null) {
            train = Preprocess.pad(train, args.pad);
            test = Preprocess.pad(test, args.pad);
        }
        if (args.perClass != null) {
            train = Preprocess.balancedSample(train, args.perClass, args.train.seed);
        }
        if (args.testPerClass != null) {
            test = Preprocess.balancedSample(test, args.testPerClass, args.train.seed + 1);
        }
        if (test.size() == 0) {
            test = null; // a synthetic set generated without test points
        }
        try (NDManager m = runtime.manager(); Network net = Network.build(args.model, args.train.seed, m)) {
            System.err.printf("%s: %,d parameters; %s: %d train, %d test; %s on %s%n", args.model.name, net.parameterCount(),
                    args.dataset, train.size(), test == null ? 0 : test.size(), args.train.optimizer, m.getDevice());
            Trainer trainer = new Trainer(net, args.train, train, test, run).quiet(quiet);
            org.ntk4j.train.Schedule when = org.ntk4j.train.Schedule.parse(args.probeEvery);
            for (String p : probes(args.probe)) {
                switch (p) {
                    case "ntk":
                        // classification: held-out images; regression (seeds 001, 004): the training points themselves
                        Dataset from = train.isRegression() || test == null ? train : test;
                        trainer.addProbe(new NtkProbe(Preprocess.balancedSample(from, args.probeSet, 7), run, when));
                        break;
                    case "nc":
                        if (train.isRegression()) {
                            throw new UserException("--probe nc: neural collapse needs class labels; " + args.dataset
                                    + " is a regression set");
                        }
                        net.features(); // fails now, with its message, if the model has no dense classifier
                        trainer.addProbe(new org.ntk4j.metrics.NeuralCollapseProbe(
                                Preprocess.balancedSample(train, args.probeSet, 7), when));
                        break;
                    case "nfa":
                        trainer.addProbe(new org.ntk4j.metrics.FeatureAnsatzProbe(
                                Preprocess.balancedSample(train, args.probeSet, 7), when));
                        break;
                    default:
                        throw new IllegalStateException(p);
                }
            }
            Trainer.Result r = trainer.fit(resume);
            RunReport.write(run, args.model.name + " on " + args.dataset);
            return r;
        }
    }
}
