package org.ntk4j.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.ntk4j.job.Quickstart;
import org.ntk4j.train.TrainLoop;
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
    public Integer call() {
        long t0 = System.nanoTime();
        Quickstart.Summary s = Quickstart.run(out, force, epochs, runtime.dataDir(), runtime::manager);
        TrainLoop.Result r = s.result();
        System.out.printf(
                "test accuracy after %d epochs: %.4f (train %.4f)%n", r.epochs(), r.testAccuracy(), r.trainAccuracy());
        System.out.printf(
                "NTK–target alignment on 100 probe images: init %.4f -> end %.4f (centred %.4f -> %.4f)%n",
                s.alignment()[0], s.alignment()[1], s.centredAlignment()[0], s.centredAlignment()[1]);
        System.out.printf(
                "feature learning: NFC of dense1 %.4f -> %.4f; NTK moved %.4f from init (kernel distance); neural"
                        + " collapse NC1 %.3f -> %.3f, NC4 %.3f -> %.3f%n",
                s.nfcDense1()[0], s.nfcDense1()[1], s.kernelDistance(), s.nc1()[0], s.nc1()[1], s.nc4()[0], s.nc4()[1]);
        System.out.printf(
                "done in %.1fs; report: %s%n",
                (System.nanoTime() - t0) / 1e9, out.resolve("report.html").toAbsolutePath());
        return 0;
    }
}
