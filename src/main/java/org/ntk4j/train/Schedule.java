package org.ntk4j.train;

import java.util.Locale;
import java.util.TreeSet;
import org.ntk4j.UserException;

/**
 * When a probe runs: {@code epochs} (initialisation and every epoch end), {@code every:K} (every K
 * steps and at step 0), or {@code log:N:MAX} (about N steps log-spaced in [1, MAX] plus step 0, for
 * gradient-flow studies where early times matter most).
 */
public final class Schedule {
    private final String text;
    private final int every;
    private final TreeSet<Long> steps;

    private Schedule(String text, int every, TreeSet<Long> steps) {
        this.text = text;
        this.every = every;
        this.steps = steps;
    }

    public static Schedule parse(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.equals("epochs")) {
                return new Schedule(t, 0, null);
            }
            if (t.startsWith("every:")) {
                int k = Integer.parseInt(t.substring(6));
                if (k < 1) {
                    throw new NumberFormatException();
                }
                return new Schedule(t, k, null);
            }
            if (t.startsWith("log:")) {
                String[] p = t.split(":");
                int n = Integer.parseInt(p[1]);
                long max = Long.parseLong(p[2]);
                if (n < 1 || max < 1) {
                    throw new NumberFormatException();
                }
                TreeSet<Long> steps = new TreeSet<>();
                steps.add(0L);
                for (int i = 0; i < n; i++) {
                    steps.add(Math.round(Math.pow(max, n == 1 ? 1 : (double) i / (n - 1))));
                }
                return new Schedule(t, 0, steps);
            }
        } catch (RuntimeException e) {
            // fall through to the error below
        }
        throw new UserException(
                "probe schedule '" + s + "' not understood; expected epochs, every:K or log:N:MAX_STEP");
    }

    /** Whether to run after {@code step} steps ({@code epochEnd} at the end of an epoch). */
    public boolean due(long step, boolean epochEnd) {
        if (steps != null) {
            return steps.contains(step);
        }
        if (every > 0) {
            return step % every == 0;
        }
        return step == 0 || epochEnd;
    }

    @Override
    public String toString() {
        return text;
    }
}
