package org.ntk4j.cli;

import java.nio.file.Path;
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
        Path root = DataPaths.existingDataDir(dir, "--dir");
        TextTable t = new TextTable(new String[] {"NAME", "KIND", "TRAIN/TEST", "STATUS"}, false, false, true, false);
        t.row(Datasets.MNIST, "images 1x28x28, 10 classes", "60000/10000", status(root, Datasets.MNIST));
        t.row(
                Datasets.FASHION_MNIST,
                "images 1x28x28, 10 classes",
                "60000/10000",
                status(root, Datasets.FASHION_MNIST));
        t.row(Datasets.CIFAR10, "images 3x32x32, 10 classes", "50000/10000", status(root, Datasets.CIFAR10));
        t.row(Datasets.MNIST_SUBSET, "images 1x28x28, 10 classes", "2000/500", "bundled");
        for (String name : DatasetSpec.available()) {
            try {
                DatasetSpec s = DatasetSpec.resolve(name);
                t.row(name, "synthetic " + s.kind() + ", d=" + s.d(), s.train() + "/" + s.test(), "generated");
            } catch (UserException e) {
                t.row(name, "invalid", "", e.getMessage());
            }
        }
        t.print(cmd.commandLine().getOut());
        return 0;
    }

    private static String status(Path root, String name) {
        Path d = DataPaths.datasetDir(root, name);
        return DataFetcher.checksumsMatch(DataFetcher.source(name), d)
                ? "present"
                : "absent (ntk4j data fetch " + name + ")";
    }
}
