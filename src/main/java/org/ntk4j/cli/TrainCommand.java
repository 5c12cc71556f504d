package org.ntk4j.cli;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.ntk4j.UserException;
import org.ntk4j.job.TrainJob;
import org.ntk4j.job.TrainJobConfig;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;
import org.ntk4j.spec.TrainSpec;
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
        TrainJobConfig args;
        if (resume != null) {
            args = TrainJob.load(resume);
        } else {
            if (model == null) {
                throw new UserException("--model is required (a spec file or one of " + ModelSpec.available() + ")");
            }
            ModelSpec spec = ModelSpec.resolve(model);
            if (outputs != null) {
                spec.outputs = outputs;
                spec.validate("--outputs");
            }
            TrainSpec ts = trainSpec != null ? Specs.read(trainSpec, TrainSpec.class) : new TrainSpec();
            ts.seed = seed;
            args = new TrainJobConfig(spec, ts, dataset, perClass, testPerClass, probe, probeSet, probeEvery, classes, pad);
        }
        TrainSpec t = args.train();
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
        TrainJob.validate(args); // before any work starts
        Path dir = resume != null ? resume : out != null ? out : Path.of("runs", args.model().name + "-" + args.dataset());
        if (resume == null && Files.exists(dir.resolve("checkpoint"))) {
            throw new UserException(dir + " already holds a run; use --resume " + dir + " or another --out");
        }
        RunFolder run = new RunFolder(dir);
        if (resume == null) {
            run.writeJson("args.json", args);
        }
        try (NDManager m = runtime.manager()) {
            TrainJob.run(args, run, runtime.dataDir(), m, resume != null, false);
        }
        System.out.println("run folder: " + dir.toAbsolutePath());
        return 0;
    }
}
