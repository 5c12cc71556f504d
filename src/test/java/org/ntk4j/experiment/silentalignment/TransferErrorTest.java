package org.ntk4j.experiment.silentalignment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.experiment.support.Verdicts.Outcome;
import org.ntk4j.experiment.support.Verdicts.Verdict;
import org.ntk4j.theory.LinearNetworks;

/**
 * Silent Alignment App. E: eq. 46 with κ² against the engineering notes' check (D = 50, ridgeless: 0.563, 0.102,
 * 0.534, 0.166, from simulations within 1–15%), its exact limits (E_g(P = 0) = ‖w‖² = 1; A = 0 gives the isotropic
 * 1 − P/D), the exact per-draw error against a projection, and the quick study's verdicts.
 */
class TransferErrorTest {
    @Test
    void theoryMatchesTheNotesAndItsLimits() {
        assertEquals(0.563, LinearNetworks.transferError(1, 1, 10, 50, 0), 1e-3);
        assertEquals(0.102, LinearNetworks.transferError(10, 1, 10, 50, 0), 1e-3);
        assertEquals(0.534, LinearNetworks.transferError(1, 0.5, 20, 50, 0), 1e-3);
        assertEquals(0.166, LinearNetworks.transferError(5, 0.8, 30, 50, 0), 1e-3);
        for (double a : new double[] {0, 1, 10}) {
            for (double alpha : new double[] {0, 0.5, 1}) {
                assertEquals(1, LinearNetworks.transferError(a, alpha, 0, 50, 0), 1e-9, "E_g(P = 0) = |w|^2");
            }
        }
        for (int p : new int[] {5, 20, 45}) {
            assertEquals(1 - p / 50.0, LinearNetworks.transferError(0, 0.3, p, 50, 0), 1e-9, "isotropic kernel");
        }
        assertEquals(0, LinearNetworks.transferError(3, 0.5, 60, 50, 0), 0, "P >= D: learned exactly");
        // a larger A helps an aligned task and hurts an orthogonal one
        assertTrue(LinearNetworks.transferError(10, 1, 10, 50, 0) < LinearNetworks.transferError(1, 1, 10, 50, 0));
        assertTrue(LinearNetworks.transferError(10, 0, 10, 50, 0) > LinearNetworks.transferError(1, 0, 10, 50, 0));
    }

    @Test
    void isotropicErrorIsTheResidualOfTheProjection() {
        SplittableRandom rng = new SplittableRandom(3);
        DMatrixRMaj x = TransferError.gaussian(6, 15, rng);
        double[] w = new double[15];
        w[0] = 0.6;
        w[1] = 0.8;
        // with M = I, ŵ is the projection of w on the row space of X: the error is ‖w‖² − ‖P w‖²
        DMatrixRMaj g = new DMatrixRMaj(6, 6);
        CommonOps_DDRM.multTransB(x, x, g);
        CommonOps_DDRM.invert(g);
        DMatrixRMaj xw = new DMatrixRMaj(6, 1);
        CommonOps_DDRM.mult(x, new DMatrixRMaj(15, 1, true, w), xw);
        DMatrixRMaj c = new DMatrixRMaj(6, 1);
        CommonOps_DDRM.mult(g, xw, c);
        double pw2 = 0;
        for (int i = 0; i < 6; i++) {
            pw2 += c.get(i) * xw.get(i);
        }
        assertEquals(1 - pw2, TransferError.error(x, CommonOps_DDRM.identity(15), w), 1e-12);
    }

    @Tag("slow")
    @Test
    void quickStudyReproducesFigE1(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            TransferError.Settings set = TransferError.Settings.quick();
            TransferError.Result r = TransferError.run(set, dir, m);
            assertEquals(set.samples().length * 9, r.points().size());
            List<Verdict> v = TransferError.verdicts(r, set);
            for (Verdict x : v) {
                assertEquals(Outcome.REPRODUCED, x.outcome(), x.toString());
            }
            assertEquals(4, r.nets().get(0).measuredA(), 0.4, "A = eta1/eta2 (Fig. D.1b)");
            for (String f : new String[] {"transfer-A.png", "transfer-alpha.png", "results.json", "report.html"}) {
                assertTrue(Files.size(dir.resolve(f)) > 200, f);
            }
        }
    }
}
