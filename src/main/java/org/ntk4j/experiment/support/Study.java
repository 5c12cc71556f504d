package org.ntk4j.experiment.support;

import ai.djl.ndarray.NDManager;
import io.soabase.recordbuilder.core.RecordBuilder;
import java.nio.file.Path;

/**
 * A reproduced figure set and its catalogue entry: the command-line name, the paper, the figures and the claim it
 * checks, a one-line summary for {@code --help}, and the body that runs it into a folder (plots, results.json,
 * report.html) and returns a printable table with the verdicts. Built by name, e.g.
 * {@code StudyBuilder.builder().name("silent-alignment").paper(Paper.SILENT_ALIGNMENT).figures("Fig. 3")...}.
 *
 * @param name    the name used on the command line, e.g. {@code silent-alignment}
 * @param paper   the seed paper
 * @param figures the paper's figures, tables or theorems the study reproduces
 * @param claim   the claim checked, in one line
 * @param summary one line for {@code --help}: the source figure, what is compared, and the CPU-scale run time
 * @param runner  what the study does when run
 */
@RecordBuilder
@RecordBuilder.Options(builderMode = RecordBuilder.BuilderMode.STAGED)
public record Study(String name, Paper paper, String figures, String claim, String summary, Runner runner) {
    /** What a study does when run: the body of {@link #run}. */
    @FunctionalInterface
    public interface Runner {
        /** Runs at {@code scale} into {@code out}; returns the results as a text table (with the verdicts). */
        String run(Scale scale, Path out, NDManager manager);
    }

    /**
     * Runs at the given scale (quick: the tests' settings; cpu: the default; paper: the paper's settings) into
     * {@code out}; returns the results as a text table (with the verdicts).
     */
    public String run(Scale scale, Path out, NDManager manager) {
        return runner.run(scale, out, manager);
    }

    @Override
    public String toString() {
        return name;
    }
}
