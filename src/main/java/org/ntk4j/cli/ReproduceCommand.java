package org.ntk4j.cli;

import ai.djl.ndarray.NDManager;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.ntk4j.UserException;
import org.ntk4j.experiment.DeepLinearTimescales;
import org.ntk4j.experiment.LayerwiseLearningRates;
import org.ntk4j.experiment.SilentAlignment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ntk4j reproduce STUDY}: one command per reproduced figure set, a report with theory beside. */
@Command(name = "reproduce", mixinStandardHelpOptions = true,
        description = {"Reproduce a study of the seed papers and write its report (plots, results.json, report.html),"
                + " with the closed-form predictions beside the measurements.",
            "Studies: silent-alignment (seed 001, Fig. 3: two-layer linear networks from small init; loss vs eqs. 27-28,"
                + " half-loss time vs its closed form, NTK alignment reaching 2/sqrt(D+3) before the loss moves; ~25 s);"
                + " layerwise-lr (seed 001, Fig. D.1b: the final NTK of a two-layer linear net trained with per-layer learning"
                + " rates, eigenvalue ratio 1 + eta1/eta2 and smallest eigenvalue s/sqrt(eta1/eta2), with the lr-weighted"
                + " kernel beside it; ~10 s); deep-linear (seed 001, Fig. 4b/c: three-layer linear nets, half-loss time and"
                + " first-layer alignment time both scale as 1/sigma, weights align first; ~60 s)."})
public final class ReproduceCommand implements Callable<Integer> {
    static final List<String> STUDIES = List.of("silent-alignment", "layerwise-lr", "deep-linear");

    @Parameters(index = "0", paramLabel = "STUDY", description = "one of: silent-alignment, layerwise-lr, deep-linear")
    String study;

    @Option(names = "--out", paramLabel = "DIR", description = "output folder (default runs/<study>)")
    Path out;

    @Option(names = "--quick", description = "fewer settings and a coarser step: the same checks in seconds")
    boolean quick;

    @Mixin
    RuntimeOptions runtime;

    @Override
    public Integer call() {
        if (!STUDIES.contains(study)) {
            throw new UserException("unknown study '" + study + "'; expected one of " + STUDIES);
        }
        Path dir = out != null ? out : Path.of("runs", study);
        long t0 = System.nanoTime();
        try (NDManager m = runtime.manager()) {
            if ("deep-linear".equals(study)) {
                var set = quick ? DeepLinearTimescales.Settings.quick() : DeepLinearTimescales.Settings.paper();
                DeepLinearTimescales.Result res = DeepLinearTimescales.run(set, dir, m);
                System.out.printf("%-8s %8s %12s %8s %12s %12s%n", "sigma", "t_half", "t(cos>=1/2)", "ratio", "alignment",
                        "sigma->0");
                for (DeepLinearTimescales.Row r : res.rows()) {
                    System.out.printf("%-8.3g %8.2f %12.2f %8.2f %12.4f %12.4f%n", r.sigma(), r.halfLossTime(), r.weightAlignTime(),
                            r.weightAlignTime() / r.halfLossTime(), r.finalAlignment(), r.finalAlignmentTheory());
                }
                System.out.printf("log-log slope of t_half vs sigma: %.3f (theory %.0f)%n", res.slope(), res.slopeTheory());
                System.out.printf("done in %.1fs; report: %s%n", (System.nanoTime() - t0) / 1e9,
                        dir.resolve("report.html").toAbsolutePath());
                return 0;
            }
            if ("layerwise-lr".equals(study)) {
                var set = quick ? LayerwiseLearningRates.Settings.quick() : LayerwiseLearningRates.Settings.paper();
                System.out.printf("%-9s %9s %9s %9s %10s | %-20s %9s %9s %10s%n", "eta1/eta2", "NTK", "1+ratio", "smallest",
                        "s/sqrt(r)", "lr-weighted max/min", "smallest", "s*sqrt(r)", "final loss");
                for (LayerwiseLearningRates.Row r : LayerwiseLearningRates.run(set, dir, m)) {
                    System.out.printf("%-9.3g %9.4f %9.4f %9.4f %10.4f | %-20.4f %9.4f %9.4f %10.2g%n", r.ratio(), r.eigenRatio(),
                            r.eigenRatioTheory(), r.smallest(), r.smallestTheory(), r.weightedEigenRatio(), r.weightedSmallest(),
                            r.weightedSmallestTheory(), r.finalLoss());
                }
                System.out.printf("done in %.1fs; report: %s%n", (System.nanoTime() - t0) / 1e9,
                        dir.resolve("report.html").toAbsolutePath());
                return 0;
            }
            SilentAlignment.Settings set = quick ? SilentAlignment.Settings.quick() : SilentAlignment.Settings.paper();
            System.out.printf("%-8s %10s %10s %10s %12s %10s %10s%n", "sigma", "t_half", "theory", "t_align99", "alignment",
                    "final", "theory");
            for (SilentAlignment.Row r : SilentAlignment.run(set, dir, m)) {
                System.out.printf("%-8.0e %10.3f %10.3f %10.2f %12.4f %10.6f %10.6f%n", r.sigma(), r.halfLossTime(),
                        r.halfLossTimeTheory(), r.alignTime(), r.initialAlignment(), r.finalAlignment(), r.finalAlignmentTheory());
            }
        }
        System.out.printf("done in %.1fs; report: %s%n", (System.nanoTime() - t0) / 1e9, dir.resolve("report.html").toAbsolutePath());
        return 0;
    }
}
