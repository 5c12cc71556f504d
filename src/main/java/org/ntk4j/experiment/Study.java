package org.ntk4j.experiment;

import ai.djl.ndarray.NDManager;
import java.nio.file.Path;
import java.util.List;

/** A reproduced figure set: runs into a folder (plots, results.json, report.html) and returns a printable table. */
public interface Study {
    /** The name used on the command line, e.g. {@code silent-alignment}. */
    String name();

    /** One line for {@code --help}: the source figure and what is compared. */
    String summary();

    /** Runs at the paper's settings, or at quick settings with the same checks; returns the results as a text table. */
    String run(boolean quick, Path out, NDManager manager);

    /** Every study, in the order they are listed. */
    static List<Study> all() {
        return List.of(
                SilentAlignment.STUDY,
                LayerwiseLearningRates.STUDY,
                DeepLinearTimescales.STUDY,
                NtkDispersion.STUDY,
                NfaChainMonomial.STUDY,
                TargetCorrelation.STUDY,
                AlignmentHierarchy.STUDY);
    }
}
