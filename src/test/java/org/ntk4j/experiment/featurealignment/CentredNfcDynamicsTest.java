package org.ntk4j.experiment.featurealignment;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.experiment.support.Scale;

/**
 * Figs 2, 5, 6, 8–10 of "Feature learning as alignment" at quick settings: a 5-hidden-layer MLP of width 128 on
 * the bundled MNIST subset (2 SGD epochs) and a 2-hidden-layer MLP on 1/(1+k)-spectrum Gaussian data at init
 * scales 1 and 0.1 (300 GD steps). Measured at these settings: C ≥ UC at every point (share 1.000), early C − UC
 * gap 0.41 (layer 1) and 0.56 (last hidden layer), double/centred ratio at init 1 growing with training to 0.96.
 * The paper gives no numbers; the bounds test its claims with margins of about half the measured effects.
 */
class CentredNfcDynamicsTest {
    @Test
    void quickRunShowsCentredAboveUncentred(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            CentredNfcDynamics.Result r = CentredNfcDynamics.run(CentredNfcDynamics.Settings.of(Scale.QUICK), dir, m);
            CentredNfcDynamics.DataRun mnist = r.mlp().get(0);
            assertTrue(mnist.fractionCAboveUc() >= 0.9, "C ≥ UC share " + mnist.fractionCAboveUc());
            int last = mnist.layers().size() - 2; // last hidden layer
            double gap1 = mnist.firstC()[0] - mnist.firstUc()[0];
            double gapDeep = mnist.firstC()[last] - mnist.firstUc()[last];
            assertTrue(gap1 > 0.2, "early gap, layer 1: " + gap1);
            assertTrue(gapDeep > gap1, "deeper layers have the larger gap: " + gapDeep + " vs " + gap1);
            CentredNfcDynamics.ScaleRun s1 =
                    r.scales().stream().filter(s -> s.scale() == 1).findFirst().orElseThrow();
            assertTrue(
                    s1.doubleRatioEnd()[0] > s1.doubleRatioEarly()[0] + 0.2,
                    "double/centred ratio grows: " + s1.doubleRatioEarly()[0] + " → " + s1.doubleRatioEnd()[0]);
            for (CentredNfcDynamics.ScaleRun s : r.scales()) {
                assertTrue(s.ptkFirst()[0] > 0 && s.ptkFirst()[0] <= 1, "PTK-centred ρ in (0, 1]");
                assertTrue(s.cEnd()[0] >= s.ucEnd()[0] - 0.02, "C ≥ UC at the end, init " + s.scale());
            }
            assertTrue(Files.size(dir.resolve("report.html")) > 200);
            assertTrue(Files.size(dir.resolve("fig2-mnist-subset.png")) > 200);
        }
    }
}
