package org.ntk4j.cli;

import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.ntk4j.UserException;
import org.ntk4j.data.DataFetcher;
import org.ntk4j.data.DataPaths;
import org.ntk4j.data.Datasets;
import org.ntk4j.spec.DatasetSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code ntk4j datasets}: every dataset name ntk4j accepts, with its kind, sizes and where it is. */
@Command(
        name = "datasets",
        mixinStandardHelpOptions = true,
        description = "List the datasets: the image sets (fetched with `ntk4j data fetch`, or bundled) and the"
                + " synthetic specs (datasets/*.json, also bundled in the jar), with kind, sizes and status.")
public final class DatasetsCommand implements Callable<Integer> {
    @Option(names = "--dir", paramLabel = "DIR", description = "data directory (default: see `ntk4j data --help`)")
    Path dir;

    @Spec
    CommandSpec cmd;

    @Override
    public Integer call() {
        java.io.PrintWriter out = cmd.commandLine().getOut();
        Path root = DataPaths.existingDataDir(dir, "--dir");
        String fmt = "%-26s %-22s %-14s %s%n";
        out.printf(Locale.ROOT, fmt, "NAME", "KIND", "TRAIN/TEST", "STATUS");
        out.printf(
                Locale.ROOT, fmt, Datasets.MNIST, "images 1x28x28, 10 cl", "60000/10000", status(root, Datasets.MNIST));
        out.printf(
                Locale.ROOT,
                fmt,
                Datasets.FASHION_MNIST,
                "images 1x28x28, 10 cl",
                "60000/10000",
                status(root, Datasets.FASHION_MNIST));
        out.printf(
                Locale.ROOT,
                fmt,
                Datasets.CIFAR10,
                "images 3x32x32, 10 cl",
                "50000/10000",
                status(root, Datasets.CIFAR10));
        out.printf(Locale.ROOT, fmt, Datasets.MNIST_SUBSET, "images 1x28x28, 10 cl", "2000/500", "bundled");
        for (String name : DatasetSpec.available()) {
            try {
                DatasetSpec s = DatasetSpec.resolve(name);
                out.printf(
                        Locale.ROOT,
                        fmt,
                        name,
                        "synthetic " + s.kind() + ", d=" + s.d(),
                        s.train() + "/" + s.test(),
                        "generated");
            } catch (UserException e) {
                out.printf(Locale.ROOT, fmt, name, "invalid", "", e.getMessage());
            }
        }
        out.flush();
        return 0;
    }

    private static String status(Path root, String name) {
        Path d = DataPaths.datasetDir(root, name);
        return DataFetcher.checksumsMatch(DataFetcher.source(name), d)
                ? "present"
                : "absent (ntk4j data fetch " + name + ")";
    }
}
