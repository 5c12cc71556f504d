package org.ntk4j.experiment.solvable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.experiment.support.Scale;

/**
 * Xu &amp; Ziyin, "When Does Feature Learning Happen? Perspective from an Analytically Solvable Model", Table 1 at quick
 * settings (γ = 16, 64, 256; 3×8×8 synthetic inputs, 128 points, 6 epochs): the phase measured from the trained
 * networks (NTK-speed exponent and relative kernel change, criteria in {@link PhaseDiagram}) equals the theory's
 * label for all 20 configurations (measured 20/20), with the measured quantities behind it.
 */
class PhaseDiagramTest {
    @Test
    void measuredPhasesMatchTable1(@TempDir Path dir) throws Exception {
        List<PhaseDiagram.Row> rows = PhaseDiagram.run(PhaseDiagram.Settings.of(Scale.QUICK), dir);
        assertEquals(20, rows.size());
        for (PhaseDiagram.Row r : rows) {
            assertEquals(r.theory(), r.measured(), r.preset() + "/" + r.rate());
        }
        // the speed exponents: NTK-scaled nets Θ(1) (slope 0), plain mean field τ ∝ γ (slope −1), plain Kaiming τ ∝ 1/γ
        assertEquals(0, PhaseDiagram.find(rows, "ntk", "plain").thetaSlope(), 0.1);
        assertEquals(-1, PhaseDiagram.find(rows, "mean-field", "plain").thetaSlope(), 0.1);
        assertEquals(1, PhaseDiagram.find(rows, "kaiming", "plain").thetaSlope(), 0.1);
        // kernel: δK shrinks ≥ 4× over the 16× range of γ (measured 16×); feature learning (mean field, Cor. 1)
        // keeps more than half of it (measured 0.61)
        PhaseDiagram.Row ntk = PhaseDiagram.find(rows, "ntk", "plain");
        assertTrue(ntk.last().kernelChange() < 0.25 * ntk.points().get(0).kernelChange());
        PhaseDiagram.Row mf = PhaseDiagram.find(rows, "mean-field", "cor1");
        assertTrue(mf.last().kernelChange() > 0.5 * mf.points().get(0).kernelChange());
        assertTrue(mf.last().bestTestAcc() > ntk.last().bestTestAcc(), "mean field above NTK (Fig. 3)");
        for (String f : new String[] {"kernel-change.png", "ntk-scale.png", "results.json", "report.html"}) {
            assertTrue(Files.size(dir.resolve(f)) > 200, f);
        }
    }
}
