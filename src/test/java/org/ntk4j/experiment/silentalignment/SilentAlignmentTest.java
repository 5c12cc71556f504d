package org.ntk4j.experiment.silentalignment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, Fig. 3, reproduced at quick settings (σ = 1e-3, 1e-4;
 * dt = 0.01):
 * <ul>
 *   <li>t½ within 0.1 of (1/2s) ln((√2−1)(s/c₀−1)) with c₀ = (q₀ + r₀)/2 (measured 0.03–0.04 at dt = 0.01;
 *   Euler's O(dt) shift and the O(σ²) corrections stay well below 0.1);</li>
 *   <li>the final alignment equals 2/√(D+3) to 1e-4 (measured 1e-6: the σ² share of the initial kernel);</li>
 *   <li>the alignment is within 1% of its final value before half of t½, at the same time for both σ (±10%),
 *   while t½ grows by ln(10²)/2 = 2.3 between them.</li>
 * </ul>
 */
@Tag("slow")
class SilentAlignmentTest {
    @Test
    void quickReproductionMatchesTheClosedForms(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            List<SilentAlignment.Row> rows = SilentAlignment.run(SilentAlignment.Settings.quick(), dir, m);
            assertEquals(2, rows.size());
            for (SilentAlignment.Row r : rows) {
                String at = "σ = " + r.sigma();
                assertEquals(r.halfLossTimeTheory(), r.halfLossTime(), 0.1, at + ": t½");
                assertEquals(2 / Math.sqrt(28), r.finalAlignment(), 1e-4, at + ": final alignment");
                assertTrue(
                        r.alignTime() < 0.5 * r.halfLossTime(),
                        at + ": aligned at " + r.alignTime() + ", t½ " + r.halfLossTime());
            }
            assertEquals(
                    rows.get(0).alignTime(),
                    rows.get(1).alignTime(),
                    0.1 * rows.get(0).alignTime(),
                    "alignment time independent of σ");
            assertEquals(
                    Math.log(100) / 2,
                    rows.get(1).halfLossTime() - rows.get(0).halfLossTime(),
                    0.1,
                    "t½ ∝ −ln σ² / 2s");
            for (String f :
                    new String[] {"loss.png", "half-loss-time.png", "alignment.png", "results.json", "report.html"}) {
                assertTrue(Files.size(dir.resolve(f)) > 200, f);
            }
        }
    }
}
