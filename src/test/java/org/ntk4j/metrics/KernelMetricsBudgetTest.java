package org.ntk4j.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The kernel job's memory preflight reserves what the metrics allocate beyond the kernel: O(N·k) for the subspace
 * iteration and three row slabs at every N (no N × N copy), and six N × N float64 matrices only for the exact
 * spectrum on request (which replaces the subspace iteration).
 */
class KernelMetricsBudgetTest {
    @Test
    void reservesOnlyWhatTheMetricsAllocate() {
        long slabs = 3 * TracedKernel.SLAB_ENTRIES * 8;
        // k = 32, l = 64: eight N × l float64 arrays and the N × k eigenvectors
        assertEquals(slabs + (8L * 64 + 32) * 8 * 10_000, KernelMetrics.workingBytes(10_000));
        assertEquals(
                slabs + (8L * 128 + 64) * 8 * 10_000,
                KernelMetrics.workingBytes(10_000, new KernelMetrics.Options(64, false)));
        assertTrue(KernelMetrics.workingBytes(100_000) < 8L * 100_000 * 100_000 / 50, "far below one N × N copy");
        // a small traced kernel's row slabs are the kernel's size, not a full slab each
        assertEquals(
                3L * 1000 * 1000 * 8 + (8L * 64 + 32) * 8 * 1000,
                KernelMetrics.workingBytes(1000, 1, KernelMetrics.Options.DEFAULT));
        assertEquals(slabs, KernelMetrics.workingBytes(10_000, new KernelMetrics.Options(0, false)));
        assertEquals(slabs + 48L * 2048 * 2048, KernelMetrics.workingBytes(2048, new KernelMetrics.Options(64, true)));
    }
}
