package org.ntk4j.cli;

import ai.djl.ndarray.NDManager;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.ntk4j.UserException;
import org.ntk4j.experiment.Studies;
import org.ntk4j.experiment.support.Scale;
import org.ntk4j.experiment.support.Study;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ntk4j reproduce STUDY}: one command per reproduced figure set, a report with theory beside. */
@Command(
        name = "reproduce",
        mixinStandardHelpOptions = true,
        description = {
            "Reproduce a study of the cited papers and write its report (plots, results.json, report.html,"
                    + " one run folder per setting), with the closed-form predictions beside the measurements.",
            "Each study prints a verdict table (measured beside the paper's number: reproduced / partly / not)."
        })
public final class ReproduceCommand implements Callable<Integer> {
    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "STUDY",
            description = "a study (above); --list shows every study of the five papers with its claim")
    String study;

    @Option(names = "--list", description = "list every study of the five seed papers with its claim and figures")
    boolean list;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "output folder (default runs/reproduce/<study>, with --scale quick or paper"
                    + " runs/reproduce/<study>-quick or -paper: never a train run's folder)")
    Path out;

    @Option(
            names = "--force",
            description = "replace an earlier reproduce run in the output folder (deleting its files); without it a"
                    + " non-empty folder is refused")
    boolean force;

    @Option(names = "--quick", description = "the same checks at the smallest settings, in seconds (= --scale quick)")
    boolean quick;

    @Option(
            names = "--scale",
            paramLabel = "SCALE",
            description = "quick, cpu or paper (default cpu: sized for a small CPU machine, each report says what"
                    + " differs from the paper; paper: the paper's settings, meant for a GPU)")
    String scale;

    @Mixin
    RuntimeOptions runtime;

    @Override
    public Integer call() {
        if (list) {
            System.out.print(Studies.list());
            return 0;
        }
        if (study == null) {
            throw new UserException("name a study (ntk4j reproduce --list shows them)");
        }
        Study s = Studies.named(study)
                .orElseThrow(() -> new UserException("unknown study '" + study + "'; expected one of "
                        + Studies.all().stream().map(Study::name).collect(Collectors.joining(", "))));
        Scale sc = scale();
        if (runtime.dataDir != null) {
            // the studies find their datasets through DataPaths.dataDir(), which reads this property
            System.setProperty(
                    org.ntk4j.data.DataPaths.PROPERTY, runtime.dataDir().toString());
        }
        Path dir = out != null ? out : defaultDir(study, sc);
        long t0 = System.nanoTime();
        try (StudyFolder folder = StudyFolder.open(dir, study, sc.name().toLowerCase(java.util.Locale.ROOT), force)) {
            System.out.println(s.name() + ": " + s.summary());
            try (NDManager m = runtime.manager()) {
                System.out.print(s.run(sc, dir, m));
            }
        }
        System.out.printf(
                "done in %.1fs; report: %s%n",
                (System.nanoTime() - t0) / 1e9, dir.resolve("report.html").toAbsolutePath());
        return 0;
    }

    /** The scale asked for: {@code --quick}, {@code --scale}, or cpu. */
    Scale scale() {
        if (quick && scale != null && Scale.parse(scale) != Scale.QUICK) {
            throw new UserException("--quick and --scale " + scale + " disagree; give one of them");
        }
        return quick ? Scale.QUICK : scale == null ? Scale.CPU : Scale.parse(scale);
    }

    /**
     * Puts the list of built studies (name: summary) into the command's help, from {@link Study#all()}, so a new
     * study appears in {@code reproduce --help} by being registered.
     */
    static void describeStudies(CommandSpec spec) {
        List<String> lines = new ArrayList<>(List.of(spec.usageMessage().description()));
        StringBuilder b = new StringBuilder("Studies:");
        for (Study s : Studies.all()) {
            b.append("%n  ").append(s.name()).append(": ").append(s.summary().replace("%", "%%"));
        }
        lines.add(1, b.toString());
        spec.usageMessage().description(lines.toArray(String[]::new));
    }

    /** Where a study writes by default: under runs/reproduce/, never into a train run's runs/<name>. */
    static Path defaultDir(String study) {
        return defaultDir(study, Scale.CPU);
    }

    /** The default folder of a study at a scale: runs/reproduce/<study> (cpu), <study>-quick, <study>-paper. */
    static Path defaultDir(String study, Scale scale) {
        return Path.of(
                "runs",
                "reproduce",
                scale == Scale.CPU ? study : study + "-" + scale.name().toLowerCase(java.util.Locale.ROOT));
    }
}
