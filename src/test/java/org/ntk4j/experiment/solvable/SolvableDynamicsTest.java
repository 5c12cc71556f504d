package org.ntk4j.experiment.solvable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.experiment.support.Scale;

/**
 * Xu &amp; Ziyin, "When Does Feature Learning Happen? Perspective from an Analytically Solvable Model", Figs 1 and 5 at
 * quick settings (widths 256/128, GD step 0.005; ReLU step 0.05).
 */
class SolvableDynamicsTest {
    @Test
    void quickReproduction(@TempDir Path dir) throws Exception {
        SolvableDynamics.Result r = SolvableDynamics.run(SolvableDynamics.Settings.of(Scale.QUICK), dir);
        for (SolvableDynamics.Curve c : r.curves()) {
            if (!Double.isNaN(c.maxDeviation())) {
                // GD with step s = 0.005 follows the flow (eq. 21) to O(s); the exact GD map to float rounding of the
                // data
                assertTrue(c.maxDeviation() < 0.01, c.name() + ": eq. 21 deviation " + c.maxDeviation());
                assertTrue(c.maxDeviationExactGd() < 1e-4, c.name() + ": exact GD " + c.maxDeviationExactGd());
            }
        }
        SolvableDynamics.Curve fl = r.curve("1a Gaussian init, xavier+");
        SolvableDynamics.Curve ntk = r.curve("1a Gaussian init, ntk");
        assertEquals("feature learning", fl.phase());
        assertEquals("kernel", ntk.phase());
        assertTrue(fl.last() - fl.first() > 0.3, "FL alignment rises: " + fl.first() + " -> " + fl.last());
        assertEquals(0, fl.monotoneViolations(), "ζ monotone (eq. 23)");
        assertTrue(Math.abs(ntk.last()) < 3 / Math.sqrt(256), "kernel ζ = O(d^-1/2): " + ntk.last());
        SolvableDynamics.Curve dis = r.curve("1b near-parallel init, xavier+");
        assertTrue(
                dis.first() > 0.9 && dis.last() < dis.first() - 0.1,
                "disalignment " + dis.first() + " -> " + dis.last());
        SolvableDynamics.Curve par = r.curve("1d ReLU exactly parallel");
        assertEquals(par.first(), par.last(), 1e-9, "exactly parallel ReLU init keeps ζ");
        SolvableDynamics.Curve pert = r.curve("1d ReLU parallel + perturbation");
        assertTrue(pert.last() < pert.first(), "perturbed parallel ReLU init disaligns");
        SolvableDynamics.Curve rf = r.curve("1c ReLU Gaussian init, xavier+");
        SolvableDynamics.Curve rk = r.curve("1c ReLU Gaussian init, ntk");
        assertTrue(rf.last() - rf.first() > Math.abs(rk.last() - rk.first()), "ReLU: FL moves ζ more than NTK");
        for (String f :
                new String[] {"fig1a.png", "fig1b.png", "fig1c.png", "fig1d.png", "results.json", "report.html"}) {
            assertTrue(Files.size(dir.resolve(f)) > 200, f);
        }
    }
}
