package org.ntk4j.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.training.GradientCollector;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;

/**
 * The speed-limited optimiser of "Feature learning as alignment" (anonymous, §5.2, sign corrected to descent):
 * θ_l ← θ_l − η·C_l·G_l/(ε + ‖G_l‖_F) per layer.
 */
class SloOptimizerTest {
    private static final ModelSpec SPEC = ModelSpec.parse(
            "{\"name\": \"t\", \"arch\": \"mlp\", \"input\": [2], \"widths\": [3], \"outputs\": 1,"
                    + " \"activation\": \"tanh\", \"bias\": true}",
            "test");

    /**
     * Hand case: the loss Σ c·θ has gradient c exactly. Layer 1 holds weight (3×2) with gradient entries 1 and bias
     * (3) with entries 2: ‖G₁‖ = √(6·1 + 3·4) = √18; with η = 0.5, C₁ = 2, ε = 0.1 every weight moves by
     * −0.5·2·1/(0.1 + √18) and every bias by twice that. Layer 2 (weight 1×3 with gradient −3, bias −3):
     * ‖G₂‖ = √(4·9) = 6, C₂ = 1, so each entry moves by +0.5·3/(0.1 + 6).
     */
    @Test
    void updateMatchesTheHandComputation() {
        TrainSpec t = TrainSpec.builder().optimizer("slo").eps(0.1).validate("test");
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(SPEC, 1, m, DataType.FLOAT64)) {
            List<Param> ps = net.trainableParams();
            UpdateRule opt = new UpdateRule(t, ps, m);
            // dense1.weight, dense1.bias, dense2.weight, dense2.bias: the trainer's grouping by layer
            double[] c = {1, 2, -3, -3};
            int[] group = {0, 0, 1, 1};
            double[][] before = new double[4][];
            for (int k = 0; k < 4; k++) {
                opt.setGroup(k, group[k]);
                before[k] = ps.get(k).value().toDoubleArray();
            }
            opt.setLrMultiplier(0, 2);
            opt.setLrMultiplier(1, 2);
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                NDArray loss = null;
                for (int k = 0; k < 4; k++) {
                    NDArray term = ps.get(k).value().sum().mul(c[k]);
                    loss = loss == null ? term : loss.add(term);
                }
                gc.backward(loss);
            }
            opt.step(0.5);
            double[] want = {
                -0.5 * 2 * 1 / (0.1 + Math.sqrt(18)),
                -0.5 * 2 * 2 / (0.1 + Math.sqrt(18)),
                0.5 * 3 / (0.1 + 6),
                0.5 * 3 / (0.1 + 6)
            };
            for (int k = 0; k < 4; k++) {
                double[] after = ps.get(k).value().toDoubleArray();
                for (int i = 0; i < after.length; i++) {
                    assertEquals(
                            want[k], after[i] - before[k][i], 1e-12, ps.get(k).name() + "[" + i + "]");
                }
            }
        }
    }

    /**
     * Through the trainer with ε = 0: every layer (weight and bias together) moves by exactly η·C_l in Frobenius
     * norm per step, whatever its gradient's size, and the loss goes down (descent, not the printed ascent).
     */
    @Test
    void trainerStepsEachLayerByItsSpeed() {
        float[] x = {1, 0, 0, 1, 1, 1, -1, 0.5f};
        float[] y = {1, -1, 0.5f, 2};
        LabelledSet data = LabelledSet.regression("toy", x, new int[] {2}, y, 1);
        TrainSpec t = TrainSpec.builder()
                .optimizer("slo")
                .eps(0)
                .lr(0.01)
                .loss("mse")
                .batchSize(0)
                .epochs(1)
                .layerLr(Map.of("dense1", 3.0))
                .validate("test");
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(SPEC, 2, m, DataType.FLOAT64)) {
            List<Param> ps = net.trainableParams();
            double[][] before = new double[4][];
            for (int k = 0; k < 4; k++) {
                before[k] = ps.get(k).value().toDoubleArray();
            }
            TrainLoop trainer = new TrainLoop(net, t, data, data);
            double loss0 = trainer.evaluate(data)[0];
            trainer.fit(false);
            double[] moved = new double[2];
            for (int k = 0; k < 4; k++) {
                double[] after = ps.get(k).value().toDoubleArray();
                for (int i = 0; i < after.length; i++) {
                    moved[k / 2] += (after[i] - before[k][i]) * (after[i] - before[k][i]);
                }
            }
            assertEquals(0.03, Math.sqrt(moved[0]), 1e-12, "layer 1: η·C₁");
            assertEquals(0.01, Math.sqrt(moved[1]), 1e-12, "layer 2: η");
            double loss1 = trainer.evaluate(data)[0];
            assertEquals(true, loss1 < loss0, "descent: " + loss0 + " → " + loss1);
        }
    }

    /**
     * Adaptive SLO ("Feature learning as alignment", App. J): the layer of smallest UC-NFC gets C = s, the others 1/s;
     * NaN values never win, ties go to the input side.
     */
    @Test
    void adaptiveRulePicksTheSlowestLayer() {
        Map<String, Double> c = AdaptiveSpeeds.speeds(
                List.of("a", "b", "c", "d"), Map.of("a", 0.9, "b", 0.2, "c", Double.NaN, "d", 0.2), 20);
        assertEquals(List.of("a", "b", "c", "d"), List.copyOf(c.keySet()));
        assertEquals(0.05, c.get("a"), 0);
        assertEquals(20.0, c.get("b"), 0);
        assertEquals(0.05, c.get("c"), 0);
        assertEquals(0.05, c.get("d"), 0, "tie: the input-side layer wins");
    }

    /**
     * Hand case through the trainer, ε = 0, s = 4, η = 0.01, two steps with UC-NFC (0.3, 0.9) then (0.8, 0.5): layer 1
     * (weight and bias) moves by exactly η·s·layerLr = 0.01·4·3 in Frobenius norm in step 1 and η·3/s in step 2; layer
     * 2 by η/s then η·s. The source is called once per step, before it.
     */
    @Test
    void adaptiveSpeedsFollowTheSource() {
        float[] x = {1, 0, 0, 1, 1, 1, -1, 0.5f};
        float[] y = {1, -1, 0.5f, 2};
        LabelledSet data = LabelledSet.regression("toy", x, new int[] {2}, y, 1);
        TrainSpec t = TrainSpec.builder()
                .optimizer("slo")
                .eps(0)
                .lr(0.01)
                .loss("mse")
                .batchSize(0)
                .epochs(2)
                .layerLr(Map.of("dense1", 3.0))
                .sloAdaptive(4)
                .validate("test");
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(SPEC, 2, m, DataType.FLOAT64)) {
            List<Param> ps = net.trainableParams();
            List<double[][]> snaps = new java.util.ArrayList<>();
            double[][] uc = {{0.3, 0.9}, {0.8, 0.5}};
            int[] calls = {0};
            TrainLoop trainer = new TrainLoop(net, t, data, data).adaptiveSpeeds(n -> {
                double[][] snap = new double[4][];
                for (int k = 0; k < 4; k++) {
                    snap[k] = ps.get(k).value().toDoubleArray();
                }
                snaps.add(snap);
                double[] u = uc[calls[0]++];
                return Map.of("dense1", u[0], "dense2", u[1]);
            });
            trainer.fit(false);
            double[][] end = new double[4][];
            for (int k = 0; k < 4; k++) {
                end[k] = ps.get(k).value().toDoubleArray();
            }
            snaps.add(end);
            assertEquals(2, calls[0], "one UC-NFC measurement per step");
            double[][] want = {{0.01 * 4 * 3, 0.01 / 4}, {0.01 * 3 / 4, 0.01 * 4}};
            for (int step = 0; step < 2; step++) {
                double[] moved = new double[2];
                for (int k = 0; k < 4; k++) {
                    for (int i = 0; i < end[k].length; i++) {
                        double d = snaps.get(step + 1)[k][i] - snaps.get(step)[k][i];
                        moved[k / 2] += d * d;
                    }
                }
                assertEquals(want[step][0], Math.sqrt(moved[0]), 1e-12, "step " + step + " layer 1");
                assertEquals(want[step][1], Math.sqrt(moved[1]), 1e-12, "step " + step + " layer 2");
            }
        }
    }

    @Test
    void adaptiveNeedsSloAndASource() {
        UserException e = assertThrows(
                UserException.class,
                () -> TrainSpec.builder().optimizer("sgd").sloAdaptive(20).validate("spec.json"));
        assertEquals(true, e.getMessage().contains("sloAdaptive"), e.getMessage());
        LabelledSet data = LabelledSet.regression("toy", new float[] {1, 0}, new int[] {2}, new float[] {1}, 1);
        TrainSpec t = TrainSpec.builder()
                .optimizer("slo")
                .loss("mse")
                .batchSize(0)
                .sloAdaptive(20)
                .validate("spec.json");
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(SPEC, 2, m, DataType.FLOAT64)) {
            UserException e2 = assertThrows(UserException.class, () -> new TrainLoop(net, t, data, data).fit(false));
            assertEquals(true, e2.getMessage().contains("sloAdaptive"), e2.getMessage());
        }
    }

    @Test
    void refusesMomentum() {
        UserException e = assertThrows(
                UserException.class,
                () -> TrainSpec.builder().optimizer("slo").momentum(0.9).validate("spec.json"));
        assertEquals(true, e.getMessage().contains("momentum"), e.getMessage());
    }
}
