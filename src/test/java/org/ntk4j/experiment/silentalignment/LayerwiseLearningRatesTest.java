package org.ntk4j.experiment.silentalignment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, Fig. D.1b, at quick settings (η₁/η₂ = 1, 4): the final NTK's
 * eigenvalue ratio is 1 + η₁/η₂ and its smallest eigenvalue s/√(η₁/η₂) (eqs. 10, 35–37); the lr-weighted kernel's are 2
 * and s√(η₁/η₂) (derived in {@link LayerwiseLearningRates}). Measured relative errors are ≤ 4e-6: the
 * O(σ²) = 1e-6 share of the initial kernel and float32 arithmetic; 1e-4 leaves room for neither a
 * wrong kernel (the two differ by a factor 5/2 at ρ = 4) nor a lost learning rate.
 */
class LayerwiseLearningRatesTest {
    @Test
    void finalKernelsHaveTheirClosedFormSpectra(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            List<LayerwiseLearningRates.Row> rows =
                    LayerwiseLearningRates.run(LayerwiseLearningRates.Settings.quick(), dir, m);
            assertEquals(2, rows.size());
            for (LayerwiseLearningRates.Row r : rows) {
                String at = "η₁/η₂ = " + r.ratio();
                assertTrue(r.finalLoss() < 1e-8, at + ": converged, loss " + r.finalLoss());
                assertEquals(1 + r.ratio(), r.eigenRatioTheory(), 1e-12);
                assertEquals(1 + r.ratio(), r.eigenRatio(), 1e-4 * (1 + r.ratio()), at + ": NTK max/min");
                assertEquals(1 / Math.sqrt(r.ratio()), r.smallest(), 1e-4, at + ": NTK smallest eigenvalue");
                assertEquals(2, r.weightedEigenRatio(), 2e-4, at + ": lr-weighted max/min");
                assertEquals(
                        Math.sqrt(r.ratio()),
                        r.weightedSmallest(),
                        1e-4 * Math.sqrt(r.ratio()),
                        at + ": lr-weighted smallest");
            }
            assertTrue(Files.size(dir.resolve("eigenvalue-ratio.png")) > 1000);
            assertTrue(Files.size(dir.resolve("report.html")) > 500);
        }
    }
}
