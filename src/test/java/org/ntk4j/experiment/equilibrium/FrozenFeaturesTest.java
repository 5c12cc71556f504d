package org.ntk4j.experiment.equilibrium;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fig. 12 of "The Equilibrium Hypothesis" at quick settings (bundled MNIST subset, depth 10, width 100, all
 * but the last layer frozen, s ∈ {0.01, 1}, 4 epochs). Exact checks [derived]: the frozen weights do not
 * move; δ^a_l is linear in W_L, so A_l at init is the same for both s; the last layer's kernel G_f ⊗ I has
 * no trainable input, so A_L keeps its init value. Measured: QUICK_VALUES below.
 */
class FrozenFeaturesTest {
    @Test
    void frozenLayersCkaEvolvesThroughTheBackwardKernel(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            List<FrozenFeatures.Run> runs = FrozenFeatures.run(FrozenFeatures.Settings.quick(), dir, m);
            assertEquals(2, runs.size());
            FrozenFeatures.Run small = runs.get(0);
            FrozenFeatures.Run large = runs.get(1);
            assertEquals(0.01, small.scale());
            for (FrozenFeatures.Run r : runs) {
                assertEquals(0.0, r.frozenDrift(), "frozen weights stay at init");
                int last = r.finalCka().length - 1;
                assertEquals(r.initial()[last], r.finalCka()[last], 1e-5, "A_L has no trainable input");
                assertTrue(r.frozenCkaChange() > 0.005, "frozen layers' CKA evolves: " + r.frozenCkaChange());
            }
            for (int l = 0; l < small.initial().length; l++) {
                assertEquals(small.initial()[l], large.initial()[l], 1e-5, "A_l(0) does not depend on s, layer " + l);
            }
            System.out.println("QUICK_VALUES " + runs);
            assertTrue(Files.readString(dir.resolve("report.html")).contains("<h2>Verdict</h2>"));
        }
    }
}
