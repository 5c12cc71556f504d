package org.ntk4j.experiment.solvable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.experiment.support.Scale;

/**
 * Xu &amp; Ziyin, "When Does Feature Learning Happen? Perspective from an Analytically Solvable Model", Fig. 2 at quick
 * settings (ResNet-18 blocks with channels 4/8/16/32 on 128 synthetic 3×16×16 images, 3 epochs, α = 0.5, 1, 4).
 * Measured: final Σ‖θ_l‖ 105 / 124 / 258 (grows with α, the paper's claim); the test-accuracy claim is not reproduced
 * at this scale (0.21 / 0.23 / 0.25) and is only reported.
 */
class InitScaleTest {
    @Test
    void finalNormGrowsWithTheInitScale(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            List<InitScale.Row> rows = InitScale.run(InitScale.Settings.of(Scale.QUICK), dir, m);
            assertEquals(3, rows.size());
            for (int i = 1; i < rows.size(); i++) {
                assertTrue(rows.get(i).finalNorm() > rows.get(i - 1).finalNorm(), "norm grows with α at " + i);
            }
            for (InitScale.Row r : rows) {
                // training moved the weights, and fit the training set above chance (10 classes)
                assertTrue(Math.abs(r.finalNorm() - r.initialNorm()) > 1e-3 * r.initialNorm(), "weights moved");
                assertTrue(r.trainAccuracy() > 0.2, "α = " + r.alpha() + ": train accuracy " + r.trainAccuracy());
            }
            // the weight tensors scale with α at init: Σ‖θ‖ at α = 4 exceeds twice that at α = 0.5 (BN γ = 1 untouched)
            assertTrue(rows.get(2).initialNorm() > 2 * rows.get(0).initialNorm());
            assertTrue(Files.size(dir.resolve("norm.png")) > 200);
            assertTrue(Files.readString(dir.resolve("report.html")).contains("Verdict"));
        }
    }
}
