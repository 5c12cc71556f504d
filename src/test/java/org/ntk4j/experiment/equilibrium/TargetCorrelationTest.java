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
 * Approximation 1 of "The Equilibrium Hypothesis": the exact case (equal logits give corr(Ỹ, w) = −1) and
 * the quick run on the bundled MNIST subset (depth-10 width-100 FFNN, 2 epochs). Quick-run values measured:
 * −corr at He init 0.934, with the last layer ×0.1 0.999; epoch-1 mean 0.876 / 0.962; after 2 epochs
 * 0.52 / 0.56. The bounds leave ≥ 0.03 of room and fail for a wrong w (e.g. without the softmax, or
 * per-class centring: −corr ≤ 0.5) or a network that does not train.
 */
class TargetCorrelationTest {
    @Test
    void equalLogitsGiveExactlyMinusOne() {
        int[] labels = {0, 2, 1, 1, 2};
        double[] f = new double[15];
        java.util.Arrays.fill(f, 0.37);
        assertEquals(-1.0, EquilibriumSetup.correlation(f, labels, 3), 1e-14);
        // logits that favour the true class make w anti-collinear with Ỹ still, but no longer exactly
        for (int i = 0; i < labels.length; i++) {
            f[i * 3 + labels[i]] += 0.5 * i;
        }
        double c = EquilibriumSetup.correlation(f, labels, 3);
        assertTrue(c < -0.5 && c > -1, "corr " + c);
    }

    @Test
    void quickRunStaysAntiCollinearEarly(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            List<TargetCorrelation.Row> rows = TargetCorrelation.run(TargetCorrelation.Settings.quick(), dir, m);
            assertEquals(2, rows.size());
            TargetCorrelation.Row he = rows.get(0);
            TargetCorrelation.Row small = rows.get(1);
            assertTrue(he.atInit() > 0.9, "He init " + he.atInit());
            assertTrue(
                    small.atInit() > 0.99 && small.atInit() > he.atInit(),
                    "smaller last layer, closer to 1: " + small.atInit());
            assertTrue(he.firstEpochMean() > 0.84 && small.firstEpochMean() > 0.93, he + " " + small);
            assertTrue(
                    he.atEnd() < he.firstEpochMean() - 0.2, "the collinearity fades once the net fits: " + he.atEnd());
            assertTrue(he.testAccuracy() > 0.7, "trains: " + he.testAccuracy());
            assertTrue(Files.readString(dir.resolve("report.html")).contains("<h2>Verdict</h2>"));
            assertTrue(Files.size(dir.resolve("results.json")) > 200);
        }
    }
}
