package org.ntk4j.experiment.solvable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.experiment.support.Verdicts.Outcome;
import org.ntk4j.experiment.support.Verdicts.Verdict;

/**
 * Xu &amp; Ziyin §2.2 at quick settings: GD ends at eq. 21's ζ(∞) (the area D conserved), SGD with label noise aligns
 * (ζ → 1) from every init, an order-1 difference.
 */
class SgdAlignmentTest {
    @Test
    void quickStudy(@TempDir Path dir) throws Exception {
        List<SgdAlignment.Run> runs = SgdAlignment.run(SgdAlignment.Settings.quick(), dir, null);
        assertEquals(4, runs.size());
        for (SgdAlignment.Run r : runs) {
            assertEquals(r.gdTheory(), r.gdFinal(), 0.02, "GD against eq. 21");
            assertEquals(r.areaInit(), r.areaGd(), 0.1 * r.areaInit(), "GD keeps the area");
            assertTrue(r.areaSgd() < 1e-3 * r.areaInit(), "SGD shrinks it: " + r.areaSgd());
        }
        for (Verdict v : SgdAlignment.verdicts(runs)) {
            assertEquals(Outcome.REPRODUCED, v.outcome(), v.toString());
        }
        assertTrue(Files.size(dir.resolve("final-zeta.png")) > 200);
        assertTrue(Files.size(dir.resolve("report.html")) > 200);
    }

    @Test
    void alignmentAndAreaOfTheReducedState() {
        double[] u = {1, 0};
        double[] v = {1, 1};
        assertEquals(1 / Math.sqrt(2), SgdAlignment.zeta(u, v), 1e-15);
        assertEquals(1, SgdAlignment.area(u, v), 1e-15); // |u||v| sin 45° = √2 · √2/2
        double[] s = SgdAlignment.logSteps(1000, 10);
        assertEquals(0, s[0]);
        assertEquals(1000, s[s.length - 1]);
        for (int i = 1; i < s.length; i++) {
            assertTrue(s[i] > s[i - 1]);
        }
    }
}
