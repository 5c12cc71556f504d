package org.ntk4j.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.ntk4j.UserException;
import org.ntk4j.probe.ProbeReports;
import org.ntk4j.report.RunComparison;
import org.ntk4j.report.RunFolder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ntk4j report}: a run's report written again, or several runs compared on one page. */
@Command(
        name = "report",
        mixinStandardHelpOptions = true,
        description = {
            "Write the interactive report of run folders (offline HTML: hover values, zoom, series toggles; PNGs"
                    + " for papers).",
            "One RUN without --out: rewrites RUN/report.html and its plots from RUN/metrics.jsonl (e.g. after"
                    + " updating ntk4j, or for a run whose training was killed).",
            "RUN [RUN...] --out DIR: DIR/report.html puts the runs side by side: the same metric of every run on one"
                    + " chart, their final values and their configurations' differences in tables.",
            "Example: ntk4j report runs/lr0.05 runs/lr0.1 --out runs/compare-lr"
        })
public final class ReportCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "RUN", description = "run folders (each with a metrics.jsonl)")
    List<Path> runs;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "folder of the comparison page (required with several runs; never one of the runs)")
    Path out;

    @Override
    public Integer call() {
        for (Path r : runs) {
            RunFolder.existing(r); // each named folder is a run, before anything is written
        }
        if (out == null) {
            if (runs.size() > 1) {
                throw new UserException(
                        "report: " + runs.size() + " runs need --out DIR, the folder of the page that compares them");
            }
            try (RunFolder run = RunFolder.existing(runs.get(0))) {
                run.lock(); // not while a training run writes this folder
                System.out.println("report: " + ProbeReports.write(run).toAbsolutePath());
            }
            return 0;
        }
        Path o = out.toAbsolutePath().normalize();
        for (Path r : runs) {
            if (r.toAbsolutePath().normalize().equals(o)) {
                throw new UserException("--out " + out + " is one of the runs; the comparison needs its own folder");
            }
        }
        System.out.println("report: " + RunComparison.write(runs, out).toAbsolutePath());
        return 0;
    }
}
