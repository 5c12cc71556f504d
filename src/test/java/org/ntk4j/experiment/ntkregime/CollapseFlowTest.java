package org.ntk4j.experiment.ntkregime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.ejml.dense.row.NormOps_DDRM;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.experiment.support.Verdicts.Outcome;
import org.ntk4j.experiment.support.Verdicts.Verdict;
import org.ntk4j.theory.BlockNtk;

/**
 * Seleznova's thesis Thm 5.2 at quick settings: the E = 0, centred init meets the theorem's conditions, and the
 * flow collapses (NC1 as 1/t, NC2, NC3, b = 1/C, WWᵀ at its limit) with E conserved; the generic init does not.
 */
class CollapseFlowTest {
    @Test
    void theInitMeetsTheConditions() {
        CollapseFlow.Settings set = CollapseFlow.Settings.quick();
        BlockNtk.State s = CollapseFlow.zeroInvariantInit(set);
        double e = NormOps_DDRM.normF(BlockNtk.invariant(s, set.kappaD(), set.kappaC(), set.kappaN(), set.perClass()));
        assertTrue(e < 1e-12, "E = " + e);
        for (int r = 0; r < set.features(); r++) {
            double mean = 0;
            for (int c = 0; c < set.classes(); c++) {
                mean += s.h1().get(r, c);
            }
            assertEquals(0, mean, 1e-12, "centred class means");
        }
        assertTrue(NormOps_DDRM.normF(s.w()) > 0.1, "W is not trivial");
    }

    @Test
    void quickFlowCollapses(@TempDir Path dir) throws Exception {
        List<CollapseFlow.Run> runs = CollapseFlow.run(CollapseFlow.Settings.quick(), dir, null);
        for (Verdict v : CollapseFlow.verdicts(runs)) {
            assertEquals(Outcome.REPRODUCED, v.outcome(), v.toString());
        }
        CollapseFlow.Run z = runs.get(0);
        assertEquals(-1, CollapseFlow.lateSlope(z.times(), z.nc1()), 0.1, "NC1 ~ 1/t");
        assertTrue(Files.size(dir.resolve("collapse.png")) > 200);
    }
}
