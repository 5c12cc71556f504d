package org.ntk4j.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.job.TrainRun;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;

class TrainLoopTest {
    static final String MLP =
            "{\"arch\":\"mlp\",\"input\":[1,28,28],\"widths\":[32],\"outputs\":10,\"initializer\":\"he\"}";

    static LabelledSet small(Split split, int perClass) {
        return Preprocess.balancedSample(Datasets.load("mnist-subset", split), perClass, 1);
    }

    static TrainSpec spec(String optimizer, int epochs, int batch) {
        TrainSpec.Builder t = TrainSpec.builder();
        t.optimizer = optimizer;
        t.lr = "adam".equals(optimizer) ? 0.003 : 0.05;
        t.momentum = "adam".equals(optimizer) ? 0 : 0.9;
        t.epochs = epochs;
        t.batchSize = batch;
        t.seed = 3;
        return t.validate("test");
    }

    @Test
    void lossFallsForEveryOptimizerAndLoss(@TempDir Path dir) {
        LabelledSet train = small(Split.TRAIN, 20);
        for (String[] c : new String[][] {{"sgd", "ce", "32"}, {"adam", "ce", "32"}, {"sgd", "mse", "0"}}) {
            TrainSpec.Builder b = spec(c[0], 4, Integer.parseInt(c[2])).toBuilder();
            b.loss = c[1];
            if ("0".equals(c[2])) {
                b.lr = 0.5; // full-batch GD on the MSE loss
                b.momentum = 0;
            }
            TrainSpec t = b.build();
            try (NDManager m = NDManager.newBaseManager();
                    Network net = Network.build(ModelSpec.parse(MLP, "test"), 1, m)) {
                RunFolder run = new RunFolder(dir.resolve(String.join("-", c)));
                TrainLoop tr = TrainRun.trainer(net, t, train, null, run).quiet(true);
                double before = tr.evaluate(train)[0];
                TrainLoop.Result r = tr.fit(false);
                double after = tr.evaluate(train)[0];
                assertTrue(after < 0.7 * before, String.join("/", c) + ": loss " + before + " -> " + after);
                assertEquals(4, run.records("epoch").size());
                if ("0".equals(c[2])) {
                    // gradient-flow time t = Σ lr is recorded for full-batch GD
                    assertEquals(4 * 0.5, run.records("epoch").get(3).get("t").getAsDouble(), 1e-12);
                }
                assertTrue(Double.isFinite(r.trainLoss()) && r.epochs() == 4, "run finished with a finite loss");
            }
        }
    }

    /** A crash after step 7 (checkpoints every 3 steps) then --resume ends with the same weights and metrics. */
    @Test
    void resumeAfterACrashMidEpochMatchesAnUninterruptedRun(@TempDir Path dir) {
        LabelledSet train = small(Split.TRAIN, 10);
        LabelledSet test = small(Split.TEST, 5);
        TrainSpec t = spec("sgd", 2, 16).toBuilder().checkpointEvery(3).build();
        ModelSpec ms = ModelSpec.parse(MLP, "test");
        float[][] reference;
        List<JsonObject> refRecords;
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ms, 5, m)) {
            RunFolder run = new RunFolder(dir.resolve("a"));
            TrainRun.trainer(net, t, train, test, run).quiet(true).fit(false);
            reference = weights(net);
            refRecords = run.records("epoch");
        }
        RunFolder run = new RunFolder(dir.resolve("b"));
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ms, 5, m)) {
            TrainLoop crashing = TrainRun.trainer(net, t, train, test, run)
                    .quiet(true)
                    .addListener(new TrainListener() {
                        @Override
                        public void onStep(TrainProgress p) {
                            if (p.step() == 7) {
                                throw new IllegalStateException("simulated kill at step 7");
                            }
                        }
                    });
            assertThrows(IllegalStateException.class, () -> crashing.fit(false));
        }
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ms, 99, m)) {
            TrainRun.trainer(net, t, train, test, run).quiet(true).fit(true);
            float[][] resumed = weights(net);
            for (int i = 0; i < reference.length; i++) {
                assertArrayEquals(reference[i], resumed[i], 0f, "parameter " + i);
            }
            List<JsonObject> recs = run.records("epoch");
            assertEquals(refRecords.size(), recs.size());
            for (int i = 0; i < recs.size(); i++) {
                for (String k : new String[] {"train_loss", "train_accuracy", "test_loss", "test_accuracy", "step"}) {
                    assertEquals(
                            refRecords.get(i).get(k).getAsDouble(),
                            recs.get(i).get(k).getAsDouble(),
                            0.0,
                            k + " epoch " + (i + 1));
                }
            }
        }
    }

    static float[][] weights(Network net) {
        List<Param> ps = net.params();
        float[][] w = new float[ps.size()][];
        for (int i = 0; i < w.length; i++) {
            w[i] = ps.get(i).value().toFloatArray();
        }
        return w;
    }

    @Test
    void mismatchedOutputsOrInputsAreUserErrors(@TempDir Path dir) {
        LabelledSet train = small(Split.TRAIN, 2);
        try (NDManager m = NDManager.newBaseManager()) {
            Network wrongOut =
                    Network.build(ModelSpec.parse(MLP.replace("\"outputs\":10", "\"outputs\":3"), "t"), 1, m);
            UserException e = assertThrows(
                    UserException.class,
                    () -> TrainRun.trainer(wrongOut, spec("sgd", 1, 8), train, null, new RunFolder(dir)));
            assertTrue(e.getMessage().contains("3 outputs"), e.getMessage());
            Network wrongIn = Network.build(ModelSpec.parse(MLP.replace("[1,28,28]", "[3,32,32]"), "t"), 1, m);
            e = assertThrows(
                    UserException.class,
                    () -> TrainRun.trainer(wrongIn, spec("sgd", 1, 8), train, null, new RunFolder(dir)));
            assertTrue(e.getMessage().contains("expects inputs of shape"), e.getMessage());
        }
    }

    @Test
    void perLayerLearningRatesScaleEachLayersUpdate(@TempDir Path dir) {
        LabelledSet train = small(Split.TRAIN, 5);
        TrainSpec t = spec("sgd", 1, 25).toBuilder().momentum(0).build();
        t.layerLr().put("dense1", 0.0);
        t.validate("test");
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ModelSpec.parse(MLP, "t"), 1, m)) {
            float[][] before = weights(net);
            TrainRun.trainer(net, t, train, null, new RunFolder(dir))
                    .quiet(true)
                    .fit(false);
            float[][] after = weights(net);
            // params: dense1.weight, dense1.bias, dense2.weight, dense2.bias
            assertArrayEquals(before[0], after[0], 0f, "η_1 = 0 freezes dense1");
            assertTrue(!java.util.Arrays.equals(before[2], after[2]), "dense2 still learns");
            t.layerLr().put("dense9", 1.0);
            UserException e =
                    assertThrows(UserException.class, () -> TrainRun.trainer(net, t, train, null, new RunFolder(dir))
                            .fit(false));
            assertTrue(e.getMessage().contains("dense9"), e.getMessage());
        }
    }
}
