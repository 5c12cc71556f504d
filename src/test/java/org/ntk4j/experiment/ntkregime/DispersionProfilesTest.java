package org.ntk4j.experiment.ntkregime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.experiment.support.Verdicts.Outcome;
import org.ntk4j.experiment.support.Verdicts.Verdict;

/**
 * Seleznova's thesis §3.2 Figs 2, 5–8 at quick settings (M = 30, 200 initialisations): the sampled dispersion for
 * α₀ = 2 and 0.1 against Thm 3.2, the ordered-phase peak for α₀ &lt; 1, the off-diagonal entries following the
 * diagonal, the Thm 3.1 limits and the width profiles.
 */
@Tag("slow")
class DispersionProfilesTest {
    @Test
    void quickStudy(@TempDir Path dir) throws Exception {
        DispersionProfiles.Result r = DispersionProfiles.run(DispersionProfiles.Settings.quick(), dir, null);
        assertEquals(16, r.cells().size());
        List<Verdict> v = DispersionProfiles.verdicts(r);
        // sampled against Thm 3.2, growth to the EOC, the α₀ < 1 peak, off-diagonal like diagonal, Fig. 5
        for (int i : new int[] {0, 1, 2, 3, 5}) {
            assertEquals(Outcome.REPRODUCED, v.get(i).outcome(), v.get(i).toString());
        }
        assertNotEquals(Outcome.NOT, v.get(6).outcome(), v.get(6).toString());
        for (DispersionProfiles.Cell c : r.cells()) {
            assertTrue(c.theory() >= 1 && c.dispersion() > 0.9, c.toString());
        }
        assertTrue(Files.size(dir.resolve("width-profiles.png")) > 200);
        assertTrue(Files.size(dir.resolve("dispersion-alpha0-0.1.png")) > 200);
    }
}
