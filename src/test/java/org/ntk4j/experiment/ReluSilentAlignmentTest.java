package org.ntk4j.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Atanasov, Bordelon &amp; Pehlevan, "Neural networks as kernel learners: the silent alignment effect", Fig. 1a–c at
 * quick settings (bundled MNIST subset 0/1 and the synthetic stand-in, P = 100, N = 50, σ = 0.01): measured t_A90 =
 * 1.0 / 1.6 against t_L10 = 4.0 / 4.6; corr(NN, KR K_T) 1.000 / 0.979 against corr(NN, KR K_0) 0.929 / 0.909.
 */
class ReluSilentAlignmentTest {
    @Test
    void alignsBeforeTheLossFallsAndTheFinalKernelPredictsTheNet(@TempDir Path dir) throws Exception {
        List<ReluSilentAlignment.Row> rows = ReluSilentAlignment.run(ReluSilentAlignment.Settings.of(Scale.QUICK), dir);
        assertEquals(2, rows.size());
        for (ReluSilentAlignment.Row r : rows) {
            // silent alignment: 90% of the alignment rise well before the loss is down 10% (the paper's Fig. 1a: ~6×)
            assertTrue(r.alignTime() < 0.5 * r.lossTime(), r.dataset() + ": " + r.alignTime() + " vs " + r.lossTime());
            // the trained net interpolates (final loss ≪ 1) and KR with K_T tracks it (the notes' stand-in: 0.98)
            assertTrue(r.finalLoss() < 1e-6, r.dataset() + ": final loss " + r.finalLoss());
            assertTrue(r.corrFinal() > 0.95, r.dataset() + ": corr K_T " + r.corrFinal());
            assertTrue(r.corrFinal() > r.corrInitial() + 0.03, r.dataset() + ": K_T beats K_0");
            assertTrue(r.errFinal() < r.errInitial(), r.dataset() + ": relative error");
        }
        // MNIST 0/1 is easy: the trained net classifies most test digits
        assertTrue(
                rows.get(0).nnTestAcc() > 0.85,
                "MNIST 0/1 test accuracy " + rows.get(0).nnTestAcc());
        assertTrue(Files.size(dir.resolve("results.json")) > 200);
        assertTrue(Files.readString(dir.resolve("report.html")).contains("Verdict"));
    }
}
