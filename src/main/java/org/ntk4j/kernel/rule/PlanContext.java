package org.ntk4j.kernel.rule;

import org.ntk4j.kernel.factor.Mode;

/**
 * The kernel a rule is asked to estimate: N1×N2 samples, O outputs, the output mode, and the user's
 * forced convolution contraction ({@code convPairs}: true pairs, false rows, null cheaper).
 */
public record PlanContext(int outputs, long n1, long n2, Mode mode, Boolean convPairs) {
    /** Output pairs each Gram entry contracts: O² for FULL, O otherwise. */
    public long contracted() {
        return mode == Mode.FULL ? (long) outputs * outputs : outputs;
    }

    /** FLOPs of the Gram J1 J2ᵀ of per-sample rows of length {@code p}: 2·N1·N2·P·(contracted outputs). */
    public double rowGramFlops(long p) {
        return 2.0 * n1 * n2 * p * contracted();
    }
}
