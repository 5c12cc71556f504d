package org.ntk4j.cli;

import ai.djl.ndarray.NDManager;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.ntk4j.UserException;
import org.ntk4j.experiment.Study;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ntk4j reproduce STUDY}: one command per reproduced figure set, a report with theory beside. */
@Command(
        name = "reproduce",
        mixinStandardHelpOptions = true,
        description = {
            "Reproduce a study of the cited papers and write its report (plots, results.json, report.html,"
                    + " one run folder per setting), with the closed-form predictions beside the measurements.",
            "Studies: %n  silent-alignment: Atanasov, Bordelon & Pehlevan, Silent Alignment, Fig. 3"
                    + " (two-layer linear nets from small init; loss vs eqs. 27-28,"
                    + " half-loss time vs its closed form, NTK alignment reaching 2/sqrt(D+3) before the loss moves; ~25 s)"
                    + "%n  layerwise-lr: Atanasov et al., Silent Alignment, Fig. D.1b"
                    + " (final NTK under per-layer learning rates: eigenvalue ratio"
                    + " 1 + eta1/eta2, smallest eigenvalue s/sqrt(eta1/eta2); ~10 s)"
                    + "%n  deep-linear: Atanasov et al., Silent Alignment, Fig. 4b/c"
                    + " (three-layer linear nets: t_half and the first layer's alignment time"
                    + " scale as 1/sigma, weights align first; ~30 s)"
                    + "%n  ntk-dispersion: Seleznova & Kutyniok, NTK Beyond the Infinite-Width Limit, Thm. 3.2 / Fig. 1"
                    + " (E[Θ²]/E[Θ]² of the NTK over initialisations of width-50"
                    + " ReLU nets, sampled with the kernel engine against the closed form; ~40 s)"
                    + "%n  nfa-chain-monomial: Feature Learning as Alignment (anon.), Fig. 1 (first-layer NFC of a net trained on"
                    + " the chain monomial, the random-eigenvector control, K's eigenvalue spread; ~15 s)"
                    + "%n  target-correlation: Lou, Mingard & Hayou, Equilibrium Hypothesis, Figs. 3, 6 (-corr of the output"
                    + " gradient with the centred labels during the first epoch; 20-80 s)"
                    + "%n  alignment-hierarchy: Lou, Mingard & Hayou, Equilibrium Hypothesis, Figs. 1, 5, 7 (Eq. 5 layer CKA"
                    + " of a depth-10 net against SGD steps, peak layer, lr sweep; 4-7 min)",
            "Each study prints a verdict table (measured beside the paper's number: reproduced / partly / not)."
        })
public final class ReproduceCommand implements Callable<Integer> {
    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "STUDY",
            description = "a built study (above); --list shows every study of the five papers, built or not")
    String study;

    @Option(
            names = "--list",
            description = "list every study of the five seed papers with its claim, figures and status")
    boolean list;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "output folder (default runs/reproduce/<study>: never a train run's folder)")
    Path out;

    @Option(names = "--quick", description = "fewer settings and a coarser step: the same checks in seconds")
    boolean quick;

    @Mixin
    RuntimeOptions runtime;

    @Override
    public Integer call() {
        if (list) {
            System.out.print(org.ntk4j.experiment.StudyCatalog.list());
            return 0;
        }
        if (study == null) {
            throw new UserException("name a study (ntk4j reproduce --list shows them)");
        }
        Study s = Study.all().stream()
                .filter(x -> x.name().equals(study))
                .findFirst()
                .orElseThrow(() -> new UserException("unknown study '" + study + "'; expected one of "
                        + Study.all().stream().map(Study::name).collect(Collectors.joining(", "))));
        Path dir = out != null ? out : defaultDir(study);
        long t0 = System.nanoTime();
        System.out.println(s.name() + ": " + s.summary());
        try (NDManager m = runtime.manager()) {
            System.out.print(s.run(quick, dir, m));
        }
        System.out.printf(
                "done in %.1fs; report: %s%n",
                (System.nanoTime() - t0) / 1e9, dir.resolve("report.html").toAbsolutePath());
        return 0;
    }

    /** Where a study writes by default: under runs/reproduce/, never into a train run's runs/<name>. */
    static Path defaultDir(String study) {
        return Path.of("runs", "reproduce", study);
    }
}
