package org.ntk4j.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, Figs 5a, 6, D.4 at quick settings. Measured (seed 0): final
 * traced alignment 0.5269 vs eq. 53 (corrected) 0.5269 (multi-output, L = 2); MNIST 0/1 final alignment 0.1980 /
 * 0.5037 / 0.6492 vs eq. 42 at the min-norm interpolant 0.1980 / 0.5035 / 0.6525 (γ = 0, 0.25 at L = 2; γ = 0.25 at
 * L = 3); the whitened data's alignment settles at 0.35 t½, the γ = 0.25 data's at 1.5 t½. Tolerances: 0.01 on the
 * final alignments (O(σ²) at σ = 0.1, L = 3: 0.0033 measured), the ordering of the settle times strict.
 */
class MulticlassAnisotropicTest {
    @Test
    void finalKernelsMatchTheClosedFormsAndAnisotropyDelaysTheAlignment(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            List<MulticlassAnisotropic.Row> rows =
                    MulticlassAnisotropic.run(MulticlassAnisotropic.Settings.quick(), dir, m);
            assertEquals(4, rows.size());
            for (MulticlassAnisotropic.Row r : rows) {
                assertEquals(r.finalAlignmentTheory(), r.finalAlignment(), 0.01, r.c().tag());
                assertTrue(r.finalLossRatio() < 1e-5, r.c().tag() + " converged: " + r.finalLossRatio());
                assertTrue(r.riseDoneAtLossDrop() >= 0.9, r.c().tag() + " aligned before the loss falls 10%");
            }
            MulticlassAnisotropic.Row white = rows.get(1);
            MulticlassAnisotropic.Row aniso = rows.get(2);
            assertEquals(0.0, white.c().gamma());
            assertEquals(0.25, aniso.c().gamma());
            double wr = white.settleTime() / white.halfLossTime();
            double ar = aniso.settleTime() / aniso.halfLossTime();
            assertTrue(wr < 0.6, "whitened: settles well before t½: " + wr);
            assertTrue(ar > 1 && ar > 2 * wr, "anisotropic: settles after t½: " + ar + " vs " + wr);
            assertTrue(rows.get(3).finalAlignment() > aniso.finalAlignment() + 0.1, "D.4b: rises with L");
            assertTrue(Files.readString(dir.resolve("report.html")).contains("<h2>Verdict</h2>"));
        }
    }
}
