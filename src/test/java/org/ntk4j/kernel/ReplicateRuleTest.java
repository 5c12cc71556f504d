package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The automatic choice between the replicated and the per-output probe pass (TangentFactors.replicate). */
class ReplicateRuleTest {
    @Test
    void replicatesSmallTilesOnlyWhenTheCopiesFit() {
        long gib = 1L << 30;
        // the measured wins: FCN N = 16, O = 8; ResNet-20 N = 64, O = 10 (its plan: 10.9 MB per sample, 6 GiB budget)
        assertTrue(TangentFactors.replicate(16, 8, 100_000, gib));
        assertTrue(TangentFactors.replicate(64, 10, 10_924_152, 6 * gib));
        // the measured loss: MLP N = 256, O = 10 (2560 rows)
        assertFalse(TangentFactors.replicate(256, 10, 10_000, gib));
        // one output: nothing to batch
        assertFalse(TangentFactors.replicate(16, 1, 100, gib));
        // the O - 1 extra copies must fit the budget: 9 · 64 · 10.9 MB = 6.3 GB > 1 GiB
        assertFalse(TangentFactors.replicate(64, 10, 10_924_152, gib));
    }
}
