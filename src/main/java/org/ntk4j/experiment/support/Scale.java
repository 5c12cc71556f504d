package org.ntk4j.experiment.support;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.ntk4j.UserException;

/**
 * How big a reproduction runs: {@code quick} (the same checks in seconds, what the tests run), {@code cpu}
 * (the default: sized for a 2-core machine in minutes, with the reductions each study states) or
 * {@code paper} (the paper's own settings; most need a GPU and hours).
 */
public enum Scale {
    /** The same checks at the smallest settings that still measure them; run by the tests. */
    QUICK,
    /** Sized for a small CPU machine; each study's report says what differs from the paper. */
    CPU,
    /** The paper's settings (datasets, widths, depths, epochs); meant for a GPU. */
    PAPER;

    /**
     * The settings for this scale, built only for this scale: every study's {@code Settings.of} is
     * {@code scale.choose(Settings::quick, Settings::cpu, Settings::paper)}, and where two scales run the same
     * settings one of the three methods returns the other, with the reason in its Javadoc.
     */
    public <T> T choose(Supplier<T> quick, Supplier<T> cpu, Supplier<T> paper) {
        return switch (this) {
            case QUICK -> quick.get();
            case CPU -> cpu.get();
            case PAPER -> paper.get();
        };
    }

    /** The command-line spelling: {@code quick}, {@code cpu} or {@code paper}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code quick|cpu|paper} (any case), with a one-line error naming the value otherwise. */
    public static Scale parse(String s) {
        for (Scale v : values()) {
            if (v.label().equalsIgnoreCase(s.trim())) {
                return v;
            }
        }
        throw new UserException("unknown --scale '" + s + "'; expected one of "
                + Arrays.stream(values()).map(Scale::label).collect(Collectors.joining(", ")));
    }
}
