package org.ntk4j.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The kernel job's memory preflight reserves what {@link KernelMetrics#of} allocates: nothing where metrics are
 * skipped (a 10,000-image traced kernel within 4 GiB was refused for 4.5 GiB of metrics it never computes).
 */
class KernelMetricsBudgetTest {
    @Test
    void reservesOnlyWhatTheMetricsAllocate() {
        assertEquals(48L * 2048 * 2048, KernelMetrics.workingBytes(KernelMetrics.SPECTRUM_MAX_N));
        assertEquals(24L * 4096 * 4096, KernelMetrics.workingBytes(KernelMetrics.METRICS_MAX_N));
        assertEquals(0, KernelMetrics.workingBytes(KernelMetrics.METRICS_MAX_N + 1));
        assertEquals(0, KernelMetrics.workingBytes(10_000));
    }
}
