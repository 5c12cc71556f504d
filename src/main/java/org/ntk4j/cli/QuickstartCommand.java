package org.ntk4j.cli;

import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ntk4j quickstart}: the first run, offline, on the bundled MNIST subset. */
@Command(name = "quickstart", mixinStandardHelpOptions = true,
        description = {"Train a ReLU MLP (784-256-256-10, models/mlp-quickstart.json) on the bundled MNIST subset"
                + " (2000 train, 500 test) with SGD + momentum for a few epochs, measuring the NTK of a 100-image"
                + " probe set at initialisation and after every epoch.",
            "Prints the test accuracy and the kernel–target alignment of the NTK at init and at the end; writes a run"
                + " folder with metrics.jsonl, the kernels (NPZ), loss/accuracy/alignment plots, NTK heatmaps sorted by"
                + " class, and report.html. Needs no network access."})
public final class QuickstartCommand implements Callable<Integer> {
    @Option(names = "--out", paramLabel = "DIR", defaultValue = "runs/quickstart", description = "run folder (default ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--epochs", defaultValue = "5", description = "epochs (default ${DEFAULT-VALUE})")
    int epochs;

    @Mixin
    RuntimeOptions runtime;

    @Override
    public Integer call() throws Exception {
        long t0 = System.nanoTime();
        TrainCommand.TrainArgs args = new TrainCommand.TrainArgs();
        args.model = ModelSpec.resolve("mlp-quickstart");
        TrainSpec t = new TrainSpec();
        t.optimizer = "sgd";
        t.lr = 0.05;
        t.momentum = 0.9;
        t.batchSize = 64;
        t.epochs = epochs;
        t.loss = "ce";
        t.seed = 0;
        args.train = t.validate("quickstart");
        args.dataset = "mnist-subset";
        args.probe = "ntk";
        args.probeSet = 10;
        RunFolder run = new RunFolder(out);
        deleteOld(out);
        run.writeJson("args.json", args);
        var r = TrainCommand.runTraining(args, run, runtime, false, false);
        List<JsonObject> probes = run.records("probe");
        JsonObject first = probes.get(0);
        JsonObject last = probes.get(probes.size() - 1);
        System.out.printf("test accuracy after %d epochs: %.4f (train %.4f)%n", r.epochs(), r.testAccuracy(), r.trainAccuracy());
        System.out.printf("NTK–target alignment on 100 probe images: init %.4f -> end %.4f (centred %.4f -> %.4f)%n",
                first.get("alignment").getAsDouble(), last.get("alignment").getAsDouble(),
                first.get("centered_alignment").getAsDouble(), last.get("centered_alignment").getAsDouble());
        System.out.printf("done in %.1fs; report: %s%n", (System.nanoTime() - t0) / 1e9, out.resolve("report.html").toAbsolutePath());
        return 0;
    }

    private static void deleteOld(Path dir) throws java.io.IOException {
        for (String f : new String[] {"metrics.jsonl"}) {
            java.nio.file.Files.deleteIfExists(dir.resolve(f));
        }
        try (var s = java.nio.file.Files.list(dir)) {
            for (Path p : s.filter(p -> p.getFileName().toString().startsWith("ntk-step")).toList()) {
                java.nio.file.Files.delete(p);
            }
        }
        Path cp = dir.resolve("checkpoint");
        if (java.nio.file.Files.isDirectory(cp)) {
            try (var s = java.nio.file.Files.walk(cp)) {
                for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    java.nio.file.Files.delete(p);
                }
            }
        }
    }
}
