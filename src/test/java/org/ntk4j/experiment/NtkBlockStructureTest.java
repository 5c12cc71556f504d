package org.ntk4j.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Label awareness and block structure during training at quick settings (ReLU MLP of depth 3, width 16, on 30
 * images per class of the bundled MNIST subset, 6 epochs; kernels on 3 per class).
 */
class NtkBlockStructureTest {
    @Test
    void ntkBecomesLabelAwareDuringTraining(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            NtkBlockStructure.Result r = NtkBlockStructure.run(NtkBlockStructure.Settings.of(Scale.QUICK), dir, m);
            assertEquals(1, r.runs().size());
            NtkBlockStructure.Run w = r.runs().get(0);
            int last = w.epochs().length - 1;
            assertEquals(4, w.epochs().length);
            for (int k = 0; k <= last; k++) {
                // balanced classes: γ_c/γ_d and γ_n/γ_d of the FULL kernel equal eq. (23)'s Θ̄_c/Θ̄_d and Θ̄_n/Θ̄_d of
                // the traced one (both are plain means over the same entries; BlockStructure's javadoc)
                assertEquals(w.cOverD()[k], w.gammaC()[k] / w.gammaD()[k], 1e-9);
                assertEquals(w.nOverD()[k], w.gammaN()[k] / w.gammaD()[k], 1e-9);
                assertTrue(w.alignment()[k] > 0 && w.alignment()[k] <= 1);
            }
            // measured (deterministic seeds): Θ̄c/Θ̄d 0.303 → 0.473 (Fig. 4: the within-class ratio rises), and the
            // end-of-training order γ 5.63 > 2.66 > 2.11, κ 3.34 > 1.18 > 0.85 of Def. 3.1
            assertTrue(w.cOverD()[last] > w.cOverD()[0] + 0.1, "Θ̄c/Θ̄d rises");
            assertTrue(w.gammaD()[last] > w.gammaC()[last] && w.gammaC()[last] > w.gammaN()[last]);
            assertTrue(w.kappaD()[last] > w.kappaC()[last] && w.kappaC()[last] > w.kappaN()[last]);
            // the diagonal output blocks dominate the C×C norm matrix (measured 2.8×), and Θ^h's n×n (12×)
            assertTrue(w.outputDominance()[last] > 1.5 && w.featureDominance()[last] > 1.5);
            assertEquals(5, r.verdicts().size());
            assertTrue(Files.size(dir.resolve("mlp-mnist-subset-output-norms-end.png")) > 1000);
            assertTrue(Files.readString(dir.resolve("report.html")).contains("Verdict"));
        }
    }
}
