package org.ntk4j.experiment.equilibrium;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.experiment.support.Tables;

/**
 * App. E of "The Equilibrium Hypothesis" at quick settings (bundled MNIST subset, depth 6, width 32, 3 LFM
 * epochs per layer). QUICK_VALUES below.
 */
class LayerwiseFeatureMaximisationTest {
    @Test
    void quickLfmAgainstEndToEnd(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            List<LayerwiseFeatureMaximisation.Run> runs =
                    LayerwiseFeatureMaximisation.run(LayerwiseFeatureMaximisation.Settings.quick(), dir, m);
            for (var r : runs) {
                System.out.println("QUICK_VALUES " + r.method() + " " + r.width() + " cka " + Tables.fmt(r.cka())
                        + " val " + Tables.fmt(r.lfmValidationLoss()) + " acc " + r.testAccuracy());
            }
            assertEquals(2, runs.size());
            var e2e = runs.get(0);
            var lfm = runs.get(1);
            assertEquals("LFM", lfm.method());
            for (int l = 0; l < lfm.lfmValidationLoss().length; l++) {
                assertTrue(
                        lfm.lfmValidationLoss()[l] < 0.7 * lfm.lfmInitialLoss()[l],
                        "LFM lowers layer " + (l + 1) + "'s held-out loss: " + lfm.lfmInitialLoss()[l] + " → "
                                + lfm.lfmValidationLoss()[l]);
                // the loss cannot fall below the diagonal's: K(x, x) = 1 against ½, 0.25 per sample of a batch of 100
                assertTrue(lfm.lfmValidationLoss()[l] > 25 - 1e-3);
            }
            assertTrue(e2e.testAccuracy() > 0.75, "end-to-end trains: " + e2e.testAccuracy());
            assertTrue(lfm.testAccuracy() > 0.2, "LFM's last layer learns: " + lfm.testAccuracy());
            assertTrue(lfm.testAccuracy() < e2e.testAccuracy(), "LFM generalises worse (Figs 10–11)");
            assertTrue(Files.readString(dir.resolve("report.html")).contains("<h2>Verdict</h2>"));
        }
    }
}
