package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The automatic choice between the replicated and the per-output probe pass (TangentFactors.replicate). */
class ReplicateRuleTest {
    @Test
    void replicatesSmallTilesOnlyWhenTheCopiesFit() {
        long gib = 1L << 30;
        // the measured win: FCN N = 16, O = 8 (128 rows)
        assertTrue(TangentFactors.replicate(16, 8, 100_000, gib));
        // the measured losses: MLP N = 256, O = 10 (2560 rows); ResNet-20 N = 64, O = 10 (640 rows)
        assertFalse(TangentFactors.replicate(256, 10, 10_000, gib));
        assertFalse(TangentFactors.replicate(64, 10, 10_924_152, 6 * gib));
        // a small tile of the same ResNet would be replicated if it fits: 25 · 10 = 250 rows, 9 · 25 · 10.9 MB = 2.5 GB
        assertTrue(TangentFactors.replicate(25, 10, 10_924_152, 6 * gib));
        // one output: nothing to batch
        assertFalse(TangentFactors.replicate(16, 1, 100, gib));
        // the O - 1 extra copies must fit the budget: 2.5 GB > 1 GiB
        assertFalse(TangentFactors.replicate(25, 10, 10_924_152, gib));
    }
}
