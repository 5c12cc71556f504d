package org.ntk4j.cli;

import ai.djl.ndarray.NDManager;
import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.ntk4j.job.TrainJob;
import org.ntk4j.job.TrainJobConfig;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.train.Trainer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ntk4j quickstart}: the first run, offline, on the bundled MNIST subset. */
@Command(
        name = "quickstart",
        mixinStandardHelpOptions = true,
        description = {
            "Train a ReLU MLP (784-256-256-10, models/mlp-quickstart.json) on the bundled MNIST subset"
                    + " (2000 train, 500 test) with SGD + momentum for a few epochs, measuring the NTK of a 100-image"
                    + " probe set at initialisation and after every epoch, with the neural feature ansatz and neural collapse.",
            "Prints the test accuracy and the kernel–target alignment of the NTK at init and at the end; writes a run"
                    + " folder with metrics.jsonl, the kernels (NPZ), loss/accuracy/alignment plots, NTK heatmaps sorted by"
                    + " class, and report.html. Needs no network access."
        })
public final class QuickstartCommand implements Callable<Integer> {
    @Option(
            names = "--out",
            paramLabel = "DIR",
            defaultValue = "runs/quickstart",
            description = "run folder (default ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--epochs", defaultValue = "5", description = "epochs (default ${DEFAULT-VALUE})")
    int epochs;

    @Option(
            names = "--force",
            description = "replace whatever run is in --out (by default only an earlier quickstart is replaced)")
    boolean force;

    @Mixin
    RuntimeOptions runtime;

    @Override
    public Integer call() throws Exception {
        long t0 = System.nanoTime();
        TrainSpec.Builder t = TrainSpec.builder();
        t.optimizer = "sgd";
        t.lr = 0.05;
        t.momentum = 0.9;
        t.batchSize = 64;
        t.epochs = epochs;
        t.loss = "ce";
        t.seed = 0;
        TrainJobConfig args = TrainJobConfig.of(
                        ModelSpec.resolve("mlp-quickstart"), t.validate("quickstart"), "mnist-subset")
                .withProbes("ntk,nc,nfa", 10, "epochs");
        if (RunFolder.hasContent(out) && !force && !isQuickstart(out)) {
            throw new org.ntk4j.UserException(
                    out + " is not empty and holds no earlier quickstart; use --force to replace it,"
                            + " or another --out");
        }
        Trainer.Result r;
        try (RunFolder run = new RunFolder(out)) {
            run.lock();
            run.clearRunFiles();
            run.writeJson("args.json", args);
            try (NDManager m = runtime.manager()) {
                r = TrainJob.run(args, run, runtime.dataDir(), m, false, false);
            }
        }
        RunFolder run = new RunFolder(out);
        List<JsonObject> all = run.records("probe");
        List<JsonObject> probes = all.stream()
                .filter(p -> "ntk".equals(p.get("probe").getAsString()))
                .toList();
        List<JsonObject> nc = all.stream()
                .filter(p -> "nc".equals(p.get("probe").getAsString()))
                .toList();
        List<JsonObject> nfa = all.stream()
                .filter(p -> "nfa".equals(p.get("probe").getAsString()))
                .toList();
        JsonObject first = probes.get(0);
        JsonObject last = probes.get(probes.size() - 1);
        System.out.printf(
                "test accuracy after %d epochs: %.4f (train %.4f)%n", r.epochs(), r.testAccuracy(), r.trainAccuracy());
        System.out.printf(
                "NTK–target alignment on 100 probe images: init %.4f -> end %.4f (centred %.4f -> %.4f)%n",
                first.get("alignment").getAsDouble(),
                last.get("alignment").getAsDouble(),
                first.get("centered_alignment").getAsDouble(),
                last.get("centered_alignment").getAsDouble());
        System.out.printf(
                "feature learning: NFC of dense1 %.4f -> %.4f; NTK moved %.4f from init (kernel distance); neural"
                        + " collapse NC1 %.3f -> %.3f, NC4 %.3f -> %.3f%n",
                nfa.get(0).get("nfc.dense1").getAsDouble(),
                nfa.get(nfa.size() - 1).get("nfc.dense1").getAsDouble(),
                last.get("kernel_distance_from_init").getAsDouble(),
                nc.get(0).get("nc1_papyan").getAsDouble(),
                nc.get(nc.size() - 1).get("nc1_papyan").getAsDouble(),
                nc.get(0).get("nc4").getAsDouble(),
                nc.get(nc.size() - 1).get("nc4").getAsDouble());
        System.out.printf(
                "done in %.1fs; report: %s%n",
                (System.nanoTime() - t0) / 1e9, out.resolve("report.html").toAbsolutePath());
        return 0;
    }

    /** Whether {@code dir} holds an earlier quickstart run (its args.json names mlp-quickstart on mnist-subset). */
    static boolean isQuickstart(Path dir) {
        Path a = dir.resolve("args.json");
        if (!java.nio.file.Files.isRegularFile(a)) {
            return false;
        }
        try {
            JsonObject o = com.google.gson.JsonParser.parseString(java.nio.file.Files.readString(a))
                    .getAsJsonObject();
            return "mnist-subset".equals(o.get("dataset").getAsString())
                    && "mlp-quickstart"
                            .equals(o.getAsJsonObject("model").get("name").getAsString())
                    && "ntk,nc,nfa".equals(o.get("probe").getAsString());
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        }
    }
}
