package org.ntk4j.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The kernel job's memory preflight reserves what the metrics allocate beyond the kernel: O(N·k) for the subspace
 * eigen-solve (its block Krylov start and subspace iteration) and three row slabs at every N (no N × N copy), and six N × N float64 matrices only for the exact
 * spectrum on request (which replaces the subspace iteration).
 */
class KernelMetricsBudgetTest {
    @Test
    void reservesOnlyWhatTheMetricsAllocate() {
        long slabs = 3 * TracedKernel.SLAB_ENTRIES * 8;
        // k = 32, l = 64, b = 32: the block Krylov start's Q and TQ (256 columns each), five blocks of temporaries, the
        // l hand-over vectors and the N × k eigenvectors (more than the subspace iteration's eight N × l arrays)
        assertEquals(slabs + (2L * 256 + 5 * 32 + 64 + 32) * 8 * 10_000, KernelMetrics.workingBytes(10_000));
        assertEquals(
                slabs + (2L * 512 + 5 * 64 + 128 + 64) * 8 * 10_000,
                KernelMetrics.workingBytes(10_000, new KernelMetrics.Options(64, false)));
        // below 8 l samples, the subspace iteration alone: eight N × l arrays and the N × k eigenvectors
        assertEquals(
                3L * 500 * 500 * 8 + (8L * 64 + 32) * 8 * 500,
                KernelMetrics.workingBytes(500, 1, KernelMetrics.Options.DEFAULT));
        assertTrue(KernelMetrics.workingBytes(100_000) < 8L * 100_000 * 100_000 / 50, "far below one N × N copy");
        // a small traced kernel's row slabs are the kernel's size, not a full slab each
        assertEquals(
                3L * 1000 * 1000 * 8 + (2L * 256 + 5 * 32 + 64 + 32) * 8 * 1000,
                KernelMetrics.workingBytes(1000, 1, KernelMetrics.Options.DEFAULT));
        assertEquals(slabs, KernelMetrics.workingBytes(10_000, new KernelMetrics.Options(0, false)));
        assertEquals(slabs + 48L * 2048 * 2048, KernelMetrics.workingBytes(2048, new KernelMetrics.Options(64, true)));
    }
}
