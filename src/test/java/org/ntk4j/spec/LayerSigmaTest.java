package org.ntk4j.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;
import org.ntk4j.model.Network;

/** Per-layer init scales: W^l ~ N(0, σ_l²/fan_in) with σ_l from layerSigmaW. */
class LayerSigmaTest {
    @Test
    void eachDenseLayerGetsItsOwnScale() {
        ModelSpec s = ModelSpec.parse(
                "{\"arch\":\"mlp\",\"input\":[400],\"widths\":[300,200],\"outputs\":100,"
                        + "\"bias\":false,\"layerSigmaW\":[1.0,3.0,0.5]}",
                "t");
        double[] sigma = {1.0, 3.0, 0.5};
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(s, 2, m)) {
            for (int l = 0; l < 3; l++) {
                float[] w = net.trainableParams().get(l).value().toFloatArray();
                long fanIn = net.trainableParams().get(l).value().getShape().get(1);
                double ss = 0;
                for (float v : w) {
                    ss += (double) v * v;
                }
                double std = Math.sqrt(ss / w.length);
                double expected = sigma[l] / Math.sqrt(fanIn);
                // the sample std of n Gaussians has relative standard error 1/√(2n) ≤ 0.3% here; allow 5 of them
                assertEquals(expected, std, 5 * expected / Math.sqrt(2.0 * w.length), "layer " + (l + 1));
            }
        }
    }

    @Test
    void wrongLengthIsAOneLineError() {
        UserException e = assertThrows(
                UserException.class,
                () -> ModelSpec.parse(
                        "{\"arch\":\"mlp\",\"input\":[4],\"widths\":[3],\"outputs\":2,\"layerSigmaW\":[1.0]}",
                        "spec.json"));
        assertTrue(e.getMessage().contains("layerSigmaW") && e.getMessage().contains("spec.json"), e.getMessage());
    }
}
