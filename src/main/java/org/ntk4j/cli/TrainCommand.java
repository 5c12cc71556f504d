package org.ntk4j.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.ntk4j.UserException;
import org.ntk4j.approx.ApproxSpec;
import org.ntk4j.job.ProbeKind;
import org.ntk4j.job.TrainJob;
import org.ntk4j.job.TrainJobConfig;
import org.ntk4j.job.TrainJobConfig.ProbePoints;
import org.ntk4j.job.TrainRun;
import org.ntk4j.probe.NtkProbe;
import org.ntk4j.probe.ProbeReports;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.train.Schedule;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ntk4j train}: trains a model on a dataset into a run folder. */
@Command(
        name = "train",
        mixinStandardHelpOptions = true,
        description = {
            "Train a network on a dataset; writes a run folder (model.json, train.json, metrics.jsonl,"
                    + " checkpoint/, weights.npz, PNG plots, report.html).",
            "Example: ntk4j train --model mlp-relu --dataset mnist --epochs 10 --lr 0.05 --momentum 0.9 --out runs/mlp",
            "Resume a killed run: ntk4j train --resume runs/mlp (the run continues as started: options that change it"
                    + " are refused, except --epochs to extend a constant or step schedule; the thread count of args.json is reused)",
            "Training-option defaults (TrainSpec): --optimizer sgd, --lr 0.1, --momentum 0, --weight-decay 0, --epochs 1,"
                    + " --batch-size 64, --loss ce, --target onehot, --schedule constant, --checkpoint-every 0 (each epoch end)"
        })
public final class TrainCommand implements Callable<Integer> {
    @Option(names = "--model", paramLabel = "SPEC|NAME", description = "model spec file, or a name in models/")
    String model;

    @Option(
            names = "--dataset",
            paramLabel = "NAME",
            description =
                    "mnist, fashion-mnist, cifar10, mnist-subset (bundled; the default) or a synthetic spec (ntk4j datasets)")
    String dataset;

    @Option(
            names = "--per-class",
            paramLabel = "N",
            description = "train on N samples per class (balanced, seeded; as kernel --per-class); default all")
    Integer perClass;

    @Option(
            names = "--n",
            paramLabel = "N",
            description = "deprecated name of --per-class (kernel --n means the first N images, not N per class)")
    Integer perClassOldName;

    @Option(names = "--test", paramLabel = "M", description = "evaluate on M test samples per class; default all")
    Integer testPerClass;

    @Option(
            names = "--classes",
            paramLabel = "C,C,...",
            split = ",",
            description = "train on these classes only, relabelled 0..k-1 (e.g. 0,1 for a binary task)")
    int[] classes;

    @Option(
            names = "--pad",
            paramLabel = "P",
            description = "zero-pad images by P pixels per side (MNIST 28→32 with 2)")
    Integer pad;

    @Option(names = "--outputs", paramLabel = "O", description = "override the model spec's number of outputs")
    Integer outputs;

    @Option(
            names = "--train-spec",
            paramLabel = "FILE",
            description = "training settings as JSON (TrainSpec); options below override it")
    Path trainSpec;

    @Option(
            names = "--optimizer",
            description = "sgd, adam or slo (speed-limited: per-layer steps η·C_l·∇/(ε + ‖∇‖); speeds C_l = layerLr,"
                    + " ε = eps of --train-spec)")
    String optimizer;

    @Option(names = "--lr", description = "learning rate")
    Double lr;

    @Option(names = "--momentum", description = "SGD momentum")
    Double momentum;

    @Option(names = "--nesterov", description = "Nesterov momentum")
    Boolean nesterov;

    @Option(names = "--weight-decay", description = "L2 weight decay")
    Double weightDecay;

    @Option(names = "--epochs", description = "epochs")
    Integer epochs;

    @Option(names = "--batch-size", description = "mini-batch size; 0 = full-batch gradient descent")
    Integer batchSize;

    @Option(names = "--loss", description = "ce or mse")
    String loss;

    @Option(names = "--target", description = "MSE targets: onehot, pm1 or centered")
    String target;

    @Option(names = "--schedule", description = "constant, cosine, step or warmup-cosine")
    String schedule;

    @Option(
            names = "--milestones",
            paramLabel = "M,M,...",
            split = ",",
            description =
                    "step schedule: multiply lr by 0.1 at these points, as fractions of --epochs (< 1, e.g. 0.5,0.75)"
                            + " or epoch numbers (>= 1); default 0.5,0.75 of the epochs")
    double[] milestones;

    @Option(
            names = "--force",
            description = "start a fresh run in a non-empty --out folder, deleting the earlier run's files")
    boolean force;

    @Option(
            names = "--checkpoint-every",
            paramLabel = "STEPS",
            description = "checkpoint every STEPS steps (default: each epoch)")
    Integer checkpointEvery;

    @Option(
            names = "--seed",
            defaultValue = "0",
            description = "seed for the initialisation, sampling and batch order (default 0)")
    long seed;

    @Option(names = "--out", paramLabel = "DIR", description = "run folder (default runs/<model>-<dataset>)")
    Path out;

    @Option(
            names = "--resume",
            paramLabel = "RUN_DIR",
            description = "continue the run in RUN_DIR from its last checkpoint")
    Path resume;

    @Option(
            names = "--probe",
            paramLabel = "LIST",
            description = "measure during training, comma-separated: ntk = the NTK"
                    + " of a probe set (--probe-points) per layer, logging the layer CKA of Lou, Mingard & Hayou (Equilibrium"
                    + " Hypothesis, Eq. 5: full per-layer kernel, global centring, one-hot labels; layer_cka.<layer>), the"
                    + " traced-centred kernel-target alignment of the traced kernel (Cortes et al. 2012; not Eq. 5;"
                    + " traced_centred_alignment.<layer>, also under the older centered_alignment keys), relative"
                    + " change and kernel distance from init, kernel velocity, effective rank and leading eigenvalues (kernels kept"
                    + " as ntk-step<k>.npz); nc = neural-collapse statistics NC1-NC4 of the penultimate features of a training-set"
                    + " probe set; nfa = the neural feature ansatz per dense layer, NFC rho(W'W, AGOP) and the centred C-NFC"
                    + " (Feature Learning as Alignment (anon.), eq. NFC and §3) on training images. All are logged to metrics.jsonl"
                    + " and plotted in report.html")
    String probe;

    @Option(
            names = "--probe-set",
            paramLabel = "N",
            defaultValue = "10",
            description = "probe-set size per class (default ${DEFAULT-VALUE})")
    int probeSet;

    @Option(
            names = "--probe-points",
            paramLabel = "train|test",
            description =
                    "where the ntk probe takes its --probe-set points per class: train (default; Eq. 5 layer CKA is"
                            + " defined on training data) or test images (held out; runs started before this option used test)."
                            + " A regression set always uses its training points. Kept in args.json for --resume")
    String probePoints;

    @Option(
            names = "--layer-cka-max",
            paramLabel = "N*O",
            description =
                    "the ntk probe computes Eq. 5 layer CKA (a second, FULL (N*O)x(N*O) kernel per layer) only while"
                            + " probe points N times outputs O is at most this; 0 = never (default "
                            + NtkProbe.LAYER_CKA_MAX
                            + ": 100 points x 10 outputs = 1000 is a 4 MB float matrix per layer)")
    Integer layerCkaMax;

    @Option(
            names = "--approx",
            paramLabel = "pntk",
            description =
                    "the kernel the ntk probe measures: pntk = the pseudo-NTK of the summed logits, (1/O) J_S J_S^T"
                            + " (Mohamadi, Bae & Sutherland, ICML 2023), per layer and in total, one backward pass per tile"
                            + " instead of O; the same metrics under the same keys, each record saying \"kernel\": \"pntk\","
                            + " and the first probe its error against the traced kernel / O (approx_error.*); without it,"
                            + " the traced NTK. Only pntk (sketch and nystrom are kernel --approx's); no Eq. 5 layer CKA"
                            + " with it. Kept in args.json for --resume")
    String approx;

    @Option(
            names = "--probe-every",
            paramLabel = "SCHEDULE",
            defaultValue = "epochs",
            description =
                    "when probes run: epochs (default), every:K steps, or log:N:MAX (N log-spaced steps up to MAX)")
    String probeEvery;

    @Mixin
    RuntimeOptions runtime;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (perClassOldName != null) {
            if (perClass != null && !perClass.equals(perClassOldName)) {
                throw new UserException("--n " + perClassOldName + " and --per-class " + perClass
                        + " disagree; --n is the old name of --per-class (samples per class): give one");
            }
            System.err.println("ntk4j: warning: train --n is deprecated: it means samples per class; use --per-class "
                    + perClassOldName);
            perClass = perClassOldName;
        }
        TrainJobConfig args;
        TrainJobConfig started = null;
        checkOptionsApply();
        if (resume != null) {
            started = TrainJob.load(resume);
            args = started;
            refuseChanges(started);
        } else {
            if (model == null) {
                throw new UserException("--model is required (a spec file or one of " + ModelSpec.available() + ")");
            }
            ModelSpec spec = ModelSpec.resolve(model);
            if (outputs != null) {
                spec = spec.toBuilder().outputs(outputs).validate("--outputs");
            }
            TrainSpec ts = (trainSpec != null ? Specs.read(trainSpec, TrainSpec.Builder.class) : TrainSpec.builder())
                    .seed(seed)
                    .build();
            args = TrainJobConfig.builder(spec, ts, dataset != null ? dataset : "mnist-subset")
                    .perClass(perClass)
                    .testPerClass(testPerClass)
                    .probes(ProbeKind.parse(probe))
                    .probeSet(probeSet)
                    .probeEvery(Schedule.parse(probeEvery))
                    .classes(classes)
                    .pad(pad)
                    .probePoints(ProbePoints.parse(probePoints != null ? probePoints : "train"))
                    .layerCkaMax(layerCkaMax)
                    .approx(approx == null ? null : ApproxSpec.parse(approx))
                    .build();
        }
        TrainSpec.Builder t = args.train().toBuilder();
        int epochsBefore = t.epochs;
        overrideTrainSpec(t);
        if (resume == null && "step".equalsIgnoreCase(t.schedule) && (milestones != null || t.milestones.length == 0)) {
            t.milestones = milestones(milestones == null ? new double[] {0.5, 0.75} : milestones, t.epochs);
        }
        args = TrainJob.validate(args.withTrain(t.build())); // before any work starts
        Path dir;
        if (resume != null) {
            dir = resume;
            TrainRun.resume(dir, args, epochsBefore, threadsFor(started), runtime.dataDir(), runtime::manager, false);
        } else {
            dir = out != null ? out : TrainRun.defaultDir(args);
            TrainRun.start(args, dir, force, threadsFor(null), runtime.dataDir(), runtime::manager, false);
        }
        ProbeReports.summary(new RunFolder(dir)).forEach(System.out::println);
        System.out.println("run folder: " + dir.toAbsolutePath());
        return 0;
    }

    /** The training options given on the command line replace the spec's (or the resumed run's) values. */
    private void overrideTrainSpec(TrainSpec.Builder t) {
        if (optimizer != null) {
            t.optimizer = optimizer;
        }
        if (lr != null) {
            t.lr = lr;
        }
        if (momentum != null) {
            t.momentum = momentum;
        }
        if (nesterov != null) {
            t.nesterov = nesterov;
        }
        if (weightDecay != null) {
            t.weightDecay = weightDecay;
        }
        if (epochs != null) {
            t.epochs = epochs;
        }
        if (batchSize != null) {
            t.batchSize = batchSize;
        }
        if (loss != null) {
            t.loss = loss;
        }
        if (target != null) {
            t.target = target;
        }
        if (schedule != null) {
            t.schedule = schedule;
        }
        if (checkpointEvery != null) {
            t.checkpointEvery = checkpointEvery;
        }
    }

    /**
     * Options that would do nothing are mistakes: --milestones without --schedule step, the probe options without
     * --probe (a fresh run), an empty --probe list, more than a million --outputs.
     */
    private void checkOptionsApply() {
        if (milestones != null && (schedule == null || !"step".equalsIgnoreCase(schedule)) && resume == null) {
            throw new UserException("--milestones applies to --schedule step");
        }
        if (approx != null) {
            ApproxSpec.parse(approx); // a malformed value is named before anything else
        }
        if (probe != null && probe.isBlank()) {
            throw new UserException("--probe: empty list; name the probes (ntk, nc, nfa) or leave the option out");
        }
        if (resume == null && probe == null) {
            for (String o :
                    new String[] {"--probe-set", "--probe-every", "--probe-points", "--layer-cka-max", "--approx"}) {
                if (spec != null
                        && spec.commandLine().getParseResult() != null
                        && spec.commandLine().getParseResult().hasMatchedOption(o)) {
                    throw new UserException(o + " applies with --probe");
                }
            }
        }
        if (outputs != null && (outputs < 1 || outputs > 1_000_000)) {
            throw new UserException("--outputs must be in 1..1000000 (got " + outputs + ")");
        }
    }

    /** Milestone epochs from fractions of the run (< 1) or epoch numbers (>= 1). */
    static int[] milestones(double[] m, int epochs) {
        int[] out = new int[m.length];
        for (int i = 0; i < m.length; i++) {
            if (!(m[i] > 0) || !Double.isFinite(m[i])) {
                throw new UserException("--milestones: expected fractions in (0, 1) or epochs >= 1 (got " + m[i] + ")");
            }
            out[i] = m[i] < 1 ? (int) Math.max(1, Math.round(m[i] * epochs)) : (int) Math.round(m[i]);
            if (m[i] >= 1 && m[i] > epochs) {
                throw new UserException("--milestones: epoch " + m[i] + " is past the run's " + epochs + " epochs");
            }
        }
        return out;
    }

    /**
     * The thread count to run with and record: --threads, else (on resume) the count the run started
     * with, else the default (RuntimeOptions.effectiveThreads).
     */
    private Integer threadsFor(TrainJobConfig started) {
        Integer saved = started == null ? null : started.threads();
        if (runtime.threads() != null) {
            if (saved != null && !saved.equals(runtime.threads())) {
                System.err.println(
                        "ntk4j: warning: --threads " + runtime.threads() + " differs from the " + saved + " this run"
                                + " started with; the resumed run may differ from an uninterrupted one in the last bits");
            }
            return runtime.threads();
        }
        if (saved != null) {
            if (saved != runtime.effectiveThreads()) {
                System.err.println("ntk4j: resuming with --threads " + saved + ", as the run started (args.json)");
            }
            runtime.threads(saved);
            return saved;
        }
        return runtime.effectiveThreads();
    }

    /**
     * --resume continues the run as started (args.json): any option that would change it is refused
     * (only --epochs, --checkpoint-every and the runtime options may be given).
     */
    private void refuseChanges(TrainJobConfig a) {
        TrainSpec t = a.train();
        java.util.List<String> bad = new java.util.ArrayList<>();
        if (model != null) {
            ModelSpec asked = ModelSpec.resolve(model);
            if (!asked.toJson().equals(a.model().toJson())) {
                bad.add("--model " + model + " (run: " + a.model().name() + ")");
            }
        }
        differs(bad, "--dataset", dataset, a.dataset());
        differs(bad, "--per-class", perClass, a.perClass());
        differs(bad, "--test", testPerClass, a.testPerClass());
        differs(bad, "--pad", pad, a.pad());
        differs(bad, "--outputs", outputs, a.model().outputs());
        differs(
                bad,
                "--probe",
                probe == null ? null : ProbeKind.join(ProbeKind.parse(probe)),
                ProbeKind.join(a.probes()));
        differs(bad, "--probe-points", probePoints, a.probePointsOrDefault());
        differs(
                bad,
                "--layer-cka-max",
                layerCkaMax,
                a.layerCkaMax() != null ? a.layerCkaMax() : a.approx() != null ? 0 : NtkProbe.LAYER_CKA_MAX);
        differs(
                bad,
                "--approx",
                approx == null ? null : ApproxSpec.parse(approx),
                a.approx() == null ? "traced" : a.approx());
        differs(bad, "--optimizer", optimizer, t.optimizer());
        differs(bad, "--lr", lr, t.lr());
        differs(bad, "--momentum", momentum, t.momentum());
        differs(bad, "--nesterov", nesterov, t.nesterov());
        differs(bad, "--weight-decay", weightDecay, t.weightDecay());
        differs(bad, "--batch-size", batchSize, t.batchSize());
        differs(bad, "--loss", loss, t.loss());
        differs(bad, "--target", target, t.target());
        differs(bad, "--schedule", schedule, t.schedule());
        if (classes != null && !java.util.Arrays.equals(classes, a.classes())) {
            bad.add("--classes");
        }
        if (milestones != null || trainSpec != null || force) {
            bad.add(milestones != null ? "--milestones" : trainSpec != null ? "--train-spec" : "--force");
        }
        if (!bad.isEmpty()) {
            throw new UserException("--resume continues the run as started (" + resume.resolve("args.json") + "); "
                    + String.join(", ", bad) + " would change it: start a new run with --out instead");
        }
    }

    private static void differs(java.util.List<String> bad, String option, Object asked, Object run) {
        if (asked != null && !asked.toString().equalsIgnoreCase(String.valueOf(run))) {
            bad.add(option + " " + asked + " (run: " + run + ")");
        }
    }
}
