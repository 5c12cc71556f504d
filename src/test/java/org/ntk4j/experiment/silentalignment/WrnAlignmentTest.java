package org.ntk4j.experiment.silentalignment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;

/**
 * Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, Fig. 1d/e at quick settings: WRN-10-1 (σ = 0.3, first conv
 * σ = 6, no biases) on 24 whitened MNIST 0/1 images, full-batch Adam 1e-4, 150 steps. Measured (seed 0): alignment
 * 0.124 → 0.159, 90% of its rise at step 5, the kernel starting to grow (10% of the rise of ln λ_max) at step 9, the
 * loss down 10% at step 28 (127% of the rise done then: it overshoots),
 * corr(NN, KR with K_∞) 0.975 against 0.889 with K₀ on 60 test images. The bounds keep the ordering (alignment
 * before the kernel's growth and the loss) and "strongly correlated" (≥ 0.9, above K₀).
 */
class WrnAlignmentTest {
    @Test
    void wideResNetAlignsBeforeTheLossFallsAndTheFinalKernelPredictsIt(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            List<WrnAlignment.Row> rows = WrnAlignment.run(WrnAlignment.Settings.quick(), dir, m);
            assertEquals(1, rows.size());
            WrnAlignment.Row r = rows.get(0);
            assertTrue(r.finalAlignment() > r.initialAlignment() + 0.02, "alignment rises: " + r);
            assertTrue(r.riseDoneAtLossDrop() >= 0.9, "aligned before the loss falls 10%: " + r);
            assertTrue(r.alignTime() < r.lossDropTime(), "alignment first: " + r);
            assertTrue(r.alignTime() < r.growTime(), "aligned before the kernel grows: " + r);
            assertTrue(r.finalLossRatio() < 0.2, "trains: " + r);
            assertTrue(
                    r.corrFinalKernel() > 0.9 && r.corrFinalKernel() > r.corrInitialKernel() + 0.03,
                    "K_∞ predicts the net better than K₀: " + r);
            assertTrue(Files.readString(dir.resolve("report.html")).contains("<h2>Verdict</h2>"));
        }
    }

    @Test
    void paperScaleNetworkIsTheModelZoosWrn104() {
        ModelSpec zoo = ModelSpec.resolve("wrn-10-4");
        ModelSpec paper = WrnAlignment.wrn(WrnAlignment.Settings.paper().widen(), new int[] {3, 32, 32});
        assertEquals(zoo.sigmaW(), paper.sigmaW());
        assertEquals(zoo.firstSigmaWValue(), paper.firstSigmaWValue());
        try (NDManager m = NDManager.newBaseManager();
                Network a = Network.build(zoo, 0, m);
                Network b = Network.build(paper, 0, m)) {
            assertEquals(1_530_544, a.parameterCount());
            assertEquals(a.parameterCount(), b.parameterCount());
        }
        assertEquals(1e-5, WrnAlignment.Settings.paper().lr());
        assertEquals(100, WrnAlignment.Settings.paper().points());
    }
}
