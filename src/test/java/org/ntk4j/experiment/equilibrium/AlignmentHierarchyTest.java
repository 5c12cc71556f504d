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
 * The alignment hierarchy of "The Equilibrium Hypothesis" at quick settings: depth-10 width-100 FFNN on the
 * bundled MNIST subset, lr 0.003 and 0.05, 4 epochs, Eq. 5 on 100 class-balanced training images. The
 * checks are the notes' robust small-scale ones (notes 000 §9: every A_l rises from init, the peak is
 * interior, the last layers lowest). Quick-run values measured: A_l at the end 0.064, 0.076, 0.072, …, 0.017
 * (peak layer 2), traced-centred peak layer 7, 56% of the 4-epoch rise by epoch 2, test accuracy 0.856
 * (lr 0.003) and 0.696 (lr 0.05). Four epochs are too few to show the plateau (the full run does), so the
 * rise is only checked to be no slower than linear (≥ 45%: a margin for thread-count rounding). A traced or
 * per-output centring, or test images, would not give these values.
 */
class AlignmentHierarchyTest {
    @Test
    void quickRunShowsTheHierarchy(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            List<AlignmentHierarchy.Row> rows = AlignmentHierarchy.run(AlignmentHierarchy.Settings.quick(), dir, m);
            assertEquals(2, rows.size());
            AlignmentHierarchy.Row r = rows.get(0);
            assertEquals(0.003, r.lr());
            int layers = r.finalCka().length;
            assertEquals(10, layers);
            for (int l = 0; l < layers; l++) {
                assertTrue(r.finalCka()[l] > r.initial()[l], "layer " + (l + 1) + " rises");
                assertTrue(r.initial()[l] < 0.03, "near zero at init: " + r.initial()[l]);
            }
            double mean = AlignmentHierarchy.mean(r.finalCka());
            assertTrue(mean > 0.03 && mean < 0.2, "mean final A_l " + mean);
            assertTrue(r.peakLayer() > 1 && r.peakLayer() < 6, "interior, early-middle peak: " + r.peakLayer());
            double peak = r.finalCka()[r.peakLayer() - 1];
            assertTrue(r.finalCka()[layers - 1] < 0.5 * peak, "last layer lowest");
            assertTrue(r.riseByEpoch2() > 0.45, "rise by the half-way point " + r.riseByEpoch2());
            assertTrue(
                    r.tracedPeak() > r.peakLayer() + 1,
                    "the traced-centred variant on test images peaks deeper: " + r.tracedPeak());
            assertTrue(r.testAccuracy() > 0.8, "trains: " + r.testAccuracy());
            assertTrue(rows.get(1).testAccuracy() < r.testAccuracy(), "lr 0.05 generalises worse here");
            String html = Files.readString(dir.resolve("report.html"));
            assertTrue(html.contains("<h2>Verdict</h2>"));
            assertTrue(Files.size(dir.resolve("cka-mnist-subset-lr0.003.png")) > 1000);
        }
    }
}
