package org.ntk4j.experiment.silentalignment;

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
 * final alignments (O(σ²) at σ = 0.1, L = 3: 0.0033 measured), the ordering of the settle times strict. Fig. 6 with
 * the paper's two-layer ReLU net and Adam (step 1e-3, σ = 0.01, 100 MNIST digits 0/1, 1200 steps): whitened
 * t_A90/t_L10 = 0.30, raw 3.1; rise done at the 10% loss drop 1.02 (whitened) vs 0.78 (raw); corr(NN, KR K_T) 0.9994 /
 * 0.9996 against corr(NN, KR K_0) 0.81 / 0.98.
 */
class MulticlassAnisotropicTest {
    @Test
    void finalKernelsMatchTheClosedFormsAndAnisotropyDelaysTheAlignment(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            MulticlassAnisotropic.Result res =
                    MulticlassAnisotropic.run(MulticlassAnisotropic.Settings.quick(), dir, m);
            List<MulticlassAnisotropic.Row> rows = res.rows();
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
            // Fig. 6, ReLU / Adam: whitened data align well before the loss moves, raw data only after it has
            List<MulticlassAnisotropic.ReluRow> relu = res.relu();
            assertEquals(2, relu.size());
            MulticlassAnisotropic.ReluRow rw = relu.get(0);
            MulticlassAnisotropic.ReluRow rr = relu.get(1);
            assertEquals(0.0, rw.gamma());
            assertEquals(1.0, rr.gamma());
            assertTrue(rw.lead() < 0.5, "whitened t_A90/t_L10 " + rw.lead());
            assertTrue(rr.lead() > 2 && rr.lead() > 4 * rw.lead(), "raw t_A90/t_L10 " + rr.lead());
            assertTrue(rw.riseDoneAtLossDrop() >= 0.95, "whitened rise done " + rw.riseDoneAtLossDrop());
            assertTrue(rr.riseDoneAtLossDrop() < 0.9, "raw rise done " + rr.riseDoneAtLossDrop());
            for (MulticlassAnisotropic.ReluRow r : relu) {
                // Fig. 6f: the final kernel predicts the trained (interpolating) net, better than K_0
                assertTrue(
                        r.run().finalLoss() < 1e-6,
                        r.gamma() + ": final loss " + r.run().finalLoss());
                assertTrue(
                        r.run().corrFinal() > 0.99,
                        r.gamma() + ": corr K_T " + r.run().corrFinal());
                assertTrue(r.run().corrFinal() > r.run().corrInitial(), r.gamma() + ": K_T beats K_0");
            }
            // K_0 of whitened data is a poor predictor (the kernel must align); raw data's K_0 already aligned (A₀
            // 0.63)
            assertTrue(
                    rw.run().corrInitial() < 0.9,
                    "whitened corr K_0 " + rw.run().corrInitial());
            assertTrue(rr.run().alignment()[0] > 5 * rw.run().alignment()[0], "raw data start aligned");
            assertTrue(Files.exists(dir.resolve("fig6-relu-adam.png")));
            assertTrue(Files.readString(dir.resolve("report.html")).contains("<h2>Verdict</h2>"));
        }
    }
}
