package org.ntk4j.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.ntk4j.UserException;
import org.ntk4j.job.RegressJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ntk4j regress}: kernel regression with the NPZ that {@code ntk4j kernel} wrote. */
@Command(
        name = "regress",
        mixinStandardHelpOptions = true,
        description = {
            "Kernel regression with a kernel file from 'ntk4j kernel' (traced mode; --test M for test predictions).",
            "Uses ntk (N x N), ntk_test (M x N), y1 and y2 of the file; labels become one-hot targets.",
            "f(x*) = K(x*, X) K^-1 (I - exp(-lr K t)) Y with f0 = 0; t = inf: K(x*, X) (K + ridge I)^+ Y.",
            "Prints and writes results.json (train/test MSE, accuracy), predictions.npz and report.html."
        })
public final class RegressCommand implements Callable<Integer> {
    @Option(
            names = "--kernel",
            required = true,
            paramLabel = "FILE",
            description = "the NPZ (or .npy directory) written by 'ntk4j kernel'")
    Path kernel;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "output folder (default: beside the kernel file, its name without .npz plus -regress:"
                    + " K.npz -> K-regress)")
    Path out;

    @Option(names = "--ridge", paramLabel = "L", description = "ridge added to the train kernel (default 0)")
    double ridge = 0;

    @Option(names = "--lr", paramLabel = "ETA", description = "learning rate of the gradient flow (default 1)")
    double lr = 1;

    @Option(
            names = "--time",
            paramLabel = "T",
            description = "training time of the gradient flow, or inf for the converged predictor (default inf)")
    String time = "inf";

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        double t;
        try {
            t = time.equalsIgnoreCase("inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(time);
        } catch (NumberFormatException e) {
            throw new UserException("--time must be a number or inf (got '" + time + "')");
        }
        if (Double.isInfinite(t)
                && spec != null
                && spec.commandLine().getParseResult() != null
                && spec.commandLine().getParseResult().hasMatchedOption("--lr")) {
            throw new UserException("--lr applies with a finite --time (--time inf is the converged predictor,"
                    + " which no learning rate changes)");
        }
        Path dir = out != null ? out : defaultOut(kernel);
        RegressJob.Result r = RegressJob.run(new RegressJob.Config(kernel, dir, ridge, lr, t));
        r.metrics().asText().forEach((k, v) -> System.out.println(k + ": " + v));
        System.out.println("report: " + dir.resolve("report.html").toAbsolutePath());
        return 0;
    }

    /** {@code K.npz} (or an NPY directory {@code K}) → {@code K-regress} beside it. */
    static Path defaultOut(Path kernel) {
        String name = kernel.getFileName().toString();
        String stem =
                name.toLowerCase(java.util.Locale.ROOT).endsWith(".npz") ? name.substring(0, name.length() - 4) : name;
        return kernel.toAbsolutePath().resolveSibling(stem + "-regress");
    }
}
