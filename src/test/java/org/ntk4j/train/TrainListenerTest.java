package org.ntk4j.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Split;
import org.ntk4j.job.TrainRun;
import org.ntk4j.model.Network;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;

/**
 * The bare training loop calls its listeners once at the start, after every step and after every
 * epoch, in order, and trains exactly as the run-folder trainer (whose console, metrics and
 * checkpoints are listeners) while writing nothing itself.
 */
class TrainListenerTest {
    @Test
    void bareLoopCallsListenersInOrderAndTrainsAsTheRunFolderTrainer(@TempDir Path dir) throws java.io.IOException {
        LabelledSet train = TrainLoopTest.small(Split.TRAIN, 5); // 50 samples
        TrainSpec t = TrainLoopTest.spec("sgd", 2, 16); // 4 steps per epoch
        List<String> events = new ArrayList<>();
        float[][] bare;
        TrainLoop.Result rb;
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ModelSpec.parse(TrainLoopTest.MLP, "t"), 1, m)) {
            rb = new TrainLoop(net, t, train, null)
                    .addListener(new TrainListener() {
                        @Override
                        public void onStart(TrainProgress p) {
                            events.add("start");
                        }

                        @Override
                        public void onStep(TrainProgress p) {
                            events.add("step" + p.step() + (p.endOfEpoch() ? "e" : ""));
                        }

                        @Override
                        public void onEpoch(TrainProgress p, TrainLoop.EpochRecord e) {
                            events.add("epoch" + e.epoch());
                        }

                        @Override
                        public void onEnd(TrainProgress p, TrainLoop.Result r) {
                            events.add("end");
                        }
                    })
                    .fit(false);
            bare = TrainLoopTest.weights(net);
        }
        assertEquals(
                List.of(
                        "start", "step1", "step2", "step3", "step4e", "epoch1", "step5", "step6", "step7", "step8e",
                        "epoch2", "end"),
                events);
        try (var files = Files.list(dir)) {
            assertFalse(files.findAny().isPresent(), "the bare loop writes nothing");
        }
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ModelSpec.parse(TrainLoopTest.MLP, "t"), 1, m)) {
            TrainLoop.Result r = TrainRun.trainer(net, t, train, null, new RunFolder(dir.resolve("run")))
                    .quiet(true)
                    .fit(false);
            float[][] w = TrainLoopTest.weights(net);
            for (int i = 0; i < w.length; i++) {
                assertArrayEquals(w[i], bare[i], 0f, "parameter " + i);
            }
            assertEquals(r.trainLoss(), rb.trainLoss(), 0.0);
        }
    }
}
