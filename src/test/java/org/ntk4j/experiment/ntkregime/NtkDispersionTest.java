package org.ntk4j.experiment.ntkregime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit, Thm. 3.2, at quick settings (width 50; L = 2, 5; σ_w²
 * = 1, 2; 500 initialisations per cell): the sampled dispersion and mean of Θ(x, x) agree with the closed form within 4
 * bootstrap standard errors (a false alarm has probability ~1e-4 per cell; the seeds are fixed, so the test is
 * deterministic), the dispersion grows with depth beyond the edge of chaos, and stays near 1 at
 * σ_w² = 1 (the "deterministic" zone of its Fig. 1).
 */
class NtkDispersionTest {
    @Test
    void sampledDispersionMatchesTheorem32(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            List<NtkDispersion.Row> rows = NtkDispersion.run(NtkDispersion.Settings.quick(), dir, m);
            assertEquals(4, rows.size());
            for (NtkDispersion.Row r : rows) {
                String at = "L = " + r.depth() + ", σw² = " + r.sigmaW2();
                assertEquals(r.dispersionTheory(), r.dispersion(), 4 * r.dispersionSe(), at + ": r");
                assertEquals(r.meanTheory(), r.mean(), 4 * r.meanSe(), at + ": E[Θ]");
            }
            NtkDispersion.Row shallow = rows.stream()
                    .filter(r -> r.depth() == 2 && r.sigmaW2() == 2.0)
                    .findFirst()
                    .orElseThrow();
            NtkDispersion.Row deep = rows.stream()
                    .filter(r -> r.depth() == 5 && r.sigmaW2() == 2.0)
                    .findFirst()
                    .orElseThrow();
            assertTrue(
                    deep.dispersion() - shallow.dispersion()
                            > 4 * Math.hypot(deep.dispersionSe(), shallow.dispersionSe()),
                    "dispersion grows with depth at the edge of chaos");
            rows.stream()
                    .filter(r -> r.sigmaW2() == 1.0)
                    .forEach(r -> assertTrue(r.dispersion() < 1.06, "σw² = 1 is near-deterministic"));
            assertTrue(Files.size(dir.resolve("dispersion.png")) > 1000);
        }
    }
}
