package org.ntk4j.experiment.featurealignment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.experiment.support.Verdicts.Verdict;

/**
 * Fig. 7 of "Feature learning as alignment" at quick settings (n = d = 32, k = 32 and 256, five decays α, six
 * initialisations): the hand-written first-layer Jacobian against central finite differences of the forward pass,
 * the input spectrum against its stated covariance, the correlation's invariances, and the study's points and
 * verdicts.
 */
class EarlyCnfcTest {
    @Test
    void jacobianMatchesFiniteDifferences() {
        for (boolean quadratic : new boolean[] {true, false}) {
            SplittableRandom rng = new SplittableRandom(3);
            EarlyCnfc.Net net = EarlyCnfc.Net.pytorchDefault(6, 5, quadratic, rng);
            DMatrixRMaj x = EarlyCnfc.inputs(4, 6, 1, rng);
            DMatrixRMaj j = net.jacobian(x);
            double eps = 1e-6;
            for (int u = 0; u < 5; u++) {
                for (int c = 0; c < 6; c++) {
                    DMatrixRMaj plus = net.w0().copy();
                    DMatrixRMaj minus = net.w0().copy();
                    plus.add(u, c, eps);
                    minus.add(u, c, -eps);
                    double[] fp = new EarlyCnfc.Net(plus, net.w1(), net.a(), quadratic).forward(x);
                    double[] fm = new EarlyCnfc.Net(minus, net.w1(), net.a(), quadratic).forward(x);
                    for (int i = 0; i < 4; i++) {
                        // ∂f_i/∂W₀[u, c] = J[i, u] x_i[c]; the central difference errs by O(ε²) (ReLU: no kink
                        // crossed at this ε for these draws)
                        assertEquals(j.get(i, u) * x.get(i, c), (fp[i] - fm[i]) / (2 * eps), 1e-7);
                    }
                }
            }
        }
    }

    @Test
    void inputsHaveTheStatedSpectrum() {
        int n = 20_000;
        int d = 6;
        double alpha = 1.5;
        DMatrixRMaj x = EarlyCnfc.inputs(n, d, alpha, new SplittableRandom(11));
        DMatrixRMaj cov = new DMatrixRMaj(d, d);
        CommonOps_DDRM.multTransA(x, x, cov);
        CommonOps_DDRM.scale(1.0 / n, cov);
        double trace = 0;
        for (int k = 1; k <= d; k++) {
            trace += 1 / (1 + Math.pow(k, alpha));
        }
        // tr Σ = Σ_k 1/(1 + k^α) whatever U; the sample trace has relative SE ≈ √(2/n) per direction, < 1%
        assertEquals(trace, CommonOps_DDRM.trace(cov), 0.03 * trace);
        double largest = 0;
        double[] eig = new double[d];
        var evd = org.ejml.dense.row.factory.DecompositionFactory_DDRM.eig(d, false, true);
        assertTrue(evd.decompose(cov));
        for (int i = 0; i < d; i++) {
            eig[i] = evd.getEigenvalue(i).getReal();
            largest = Math.max(largest, eig[i]);
        }
        assertEquals(0.5, largest, 0.03, "top eigenvalue 1/(1 + 1^α)");
    }

    @Test
    void correlationIsScaleInvariantAndOneForIdentityKernel() {
        SplittableRandom rng = new SplittableRandom(5);
        DMatrixRMaj x = EarlyCnfc.inputs(8, 4, 0.5, rng);
        double[] ones = new double[8];
        java.util.Arrays.fill(ones, 1);
        DMatrixRMaj id = CommonOps_DDRM.identity(8);
        // 𝒦 = I: both matrices are XᵀX
        assertEquals(1, EarlyCnfc.derivativeCorrelation(x, ones, id), 1e-14);
        double[] l = new double[8];
        for (int i = 0; i < 8; i++) {
            l[i] = rng.nextGaussian();
        }
        DMatrixRMaj g = new DMatrixRMaj(8, 8);
        for (int i = 0; i < g.data.length; i++) {
            g.data[i] = rng.nextGaussian();
        }
        DMatrixRMaj k = new DMatrixRMaj(8, 8);
        CommonOps_DDRM.multTransB(g, g, k);
        double r = EarlyCnfc.derivativeCorrelation(x, l, k);
        DMatrixRMaj k3 = k.copy();
        CommonOps_DDRM.scale(3, k3);
        double[] l2 = l.clone();
        for (int i = 0; i < 8; i++) {
            l2[i] *= -2;
        }
        assertEquals(r, EarlyCnfc.derivativeCorrelation(x, l2, k3), 1e-13, "ρ is invariant to scaling 𝒦 and l");
        assertTrue(r > 0 && r < 1, "two PSD matrices, not proportional: " + r);
    }

    @Test
    void quickStudy(@TempDir Path dir) throws Exception {
        List<EarlyCnfc.Point> pts = EarlyCnfc.run(EarlyCnfc.Settings.quick(), dir, null);
        assertEquals(2 * 5 * 2 * 2, pts.size(), "tasks × α × activations × widths");
        for (EarlyCnfc.Point p : pts) {
            // both matrices of ρ are PSD, so ρ ∈ [0, 1]
            assertTrue(p.observed() >= 0 && p.observed() <= 1, p.toString());
            assertTrue(p.predicted() >= 0 && p.predicted() <= 1, p.toString());
            assertTrue(p.se() >= 0 && p.se() < 0.5, p.toString());
        }
        List<Verdict> v = EarlyCnfc.verdicts(pts);
        assertEquals(3, v.size());
        for (Verdict x : v) {
            assertNotNull(x.outcome(), x.toString());
        }
        assertTrue(Files.size(dir.resolve("early-cnfc-quadratic.png")) > 200);
        assertTrue(Files.size(dir.resolve("early-cnfc-relu.png")) > 200);
        assertTrue(Files.size(dir.resolve("report.html")) > 200);
        assertTrue(Files.readString(dir.resolve("results.json")).contains("\"verdicts\""));
    }
}
