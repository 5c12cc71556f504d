package org.ntk4j.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.ejml.data.DMatrixRMaj;
import org.junit.jupiter.api.Test;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;

/** The centred NFC variants of "Feature learning as alignment" (anonymous, §3, App. C) against a hand computation. */
class CentredNfcTest {
    /**
     * W₀ = I, W = [[2,0],[1,1]], K = diag(1,3), K̄ = [[1,1],[1,2]]. By hand: F = WᵀW = [[5,1],[1,1]],
     * Ḡ = WᵀKW = [[7,3],[3,3]], ⟨F,Ḡ⟩ = 44, ‖F‖² = 28, ‖Ḡ‖² = 76, so UC = 44/√2128; W̄ = [[1,0],[1,0]],
     * W̄ᵀW̄ = [[2,0],[0,0]], W̄ᵀKW̄ = [[4,0],[0,0]] so C = 1 and C/UC = 8/44; W̄ᵀK̄W̄ = [[5,0],[0,0]] so the
     * double-centred ρ = 1 and its ratio 10/8; PTK-centred ρ(I, K̄) = 3/√(2·7); ‖W̄‖/‖W‖ = √2/√6.
     */
    @Test
    void matchesTheHandComputation() {
        DMatrixRMaj w0 = new DMatrixRMaj(new double[][] {{1, 0}, {0, 1}});
        DMatrixRMaj w = new DMatrixRMaj(new double[][] {{2, 0}, {1, 1}});
        DMatrixRMaj k = new DMatrixRMaj(new double[][] {{1, 0}, {0, 3}});
        DMatrixRMaj kbar = new DMatrixRMaj(new double[][] {{1, 1}, {1, 2}});
        CentredNfc.Layer l = CentredNfc.of("x", w, w0, k, kbar);
        assertEquals(44 / Math.sqrt(2128), l.uc(), 1e-14);
        assertEquals(1.0, l.c(), 1e-14);
        assertEquals(8.0 / 44, l.ratio(), 1e-14);
        assertEquals(1.0, l.doubleCentred(), 1e-14);
        assertEquals(10.0 / 8, l.doubleRatio(), 1e-14);
        assertEquals(3 / Math.sqrt(14), l.ptkCentred(), 1e-14);
        assertEquals(Math.sqrt(2.0 / 6), l.weightChange(), 1e-14);
        assertTrue(Double.isNaN(CentredNfc.of("x", w, w0, k, null).ptkCentred()));
    }

    /**
     * On a trained-looking MLP (weights perturbed from W₀) the tracker's UC-NFC, C-NFC and C/UC equal
     * {@link FeatureAnsatz}'s (a second derivation of K); K̄ = 0 at W = W₀ makes the PTK-centred ρ NaN.
     */
    @Test
    void trackerAgreesWithFeatureAnsatz() {
        ModelSpec spec = ModelSpec.parse(
                "{\"name\": \"t\", \"arch\": \"mlp\", \"input\": [5], \"widths\": [7, 6], \"outputs\": 3,"
                        + " \"activation\": \"tanh\", \"bias\": false}",
                "test");
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(spec, 3, m, DataType.FLOAT64)) {
            SplittableRandom rng = new SplittableRandom(1);
            double[] xs = new double[9 * 5];
            for (int i = 0; i < xs.length; i++) {
                xs[i] = rng.nextGaussian();
            }
            NDArray x = m.create(xs, new Shape(9, 5));
            Map<String, DMatrixRMaj> w0 = FeatureAnsatz.weights(net);
            CentredNfc.Tracker t = new CentredNfc.Tracker(net, x, true);
            CentredNfc.Layer at0 = t.measure(net).get(0);
            assertTrue(Double.isNaN(at0.ptkCentred()) && Double.isNaN(at0.c()), "undefined at init");
            for (var p : net.trainableParams()) {
                NDArray v = p.value();
                NDArray noise = m.randomNormal(0f, 0.5f, v.getShape(), DataType.FLOAT64);
                v.addi(noise);
            }
            List<CentredNfc.Layer> got = t.measure(net);
            List<FeatureAnsatz.Layer> want = FeatureAnsatz.measure(net, x, w0);
            assertEquals(3, got.size());
            for (int l = 0; l < 3; l++) {
                assertEquals(want.get(l).nfc(), got.get(l).uc(), 1e-10, "UC layer " + l);
                assertEquals(want.get(l).centred().nfc(), got.get(l).c(), 1e-10, "C layer " + l);
                assertEquals(want.get(l).centred().ratio(), got.get(l).ratio(), 1e-10, "C/UC layer " + l);
            }
            // the device-side UC-NFC of adaptive SLO: the same numbers by a third route ((JW)ᵀ(JW) as the AGOP)
            Map<String, Double> fast = t.ucNfc(net);
            assertEquals(t.names(), List.copyOf(fast.keySet()));
            for (int l = 0; l < 3; l++) {
                assertEquals(got.get(l).uc(), fast.get(t.names().get(l)), 1e-10, "ucNfc layer " + l);
            }
            // the readout's J = ∂f/∂h_L is constant (identity), so its K̄ = 0; hidden layers have K̄ ≠ 0
            assertTrue(Double.isNaN(got.get(2).ptkCentred()), "readout K̄ = 0");
            for (int l = 0; l < 2; l++) {
                double p = got.get(l).ptkCentred();
                assertTrue(p > 0 && p <= 1 + 1e-12, "PTK-centred layer " + l + ": " + p);
            }
            t.close();
        }
    }
}
