package org.ntk4j.experiment.support;

import ai.djl.ndarray.NDManager;
import java.nio.file.Path;

/** A reproduced figure set: runs into a folder (plots, results.json, report.html) and returns a printable table. */
public interface Study {
    /** The name used on the command line, e.g. {@code silent-alignment}. */
    String name();

    /** One line for {@code --help}: the source figure, what is compared, and the CPU-scale run time. */
    String summary();

    /**
     * Runs at the given scale (quick: the tests' settings; cpu: the default; paper: the paper's settings) into
     * {@code out}; returns the results as a text table (with the verdicts).
     */
    String run(Scale scale, Path out, NDManager manager);

    /** What a study does when run: the body of {@link #run}. */
    @FunctionalInterface
    interface Runner {
        String run(Scale scale, Path out, NDManager manager);
    }

    /** A study from its name, its one-line summary and its body (instead of an anonymous class per study). */
    static Study of(String name, String summary, Runner runner) {
        return new Study() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String summary() {
                return summary;
            }

            @Override
            public String run(Scale scale, Path out, NDManager manager) {
                return runner.run(scale, out, manager);
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }
}
