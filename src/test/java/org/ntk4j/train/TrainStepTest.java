package org.ntk4j.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Split;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;

/**
 * The training step's book-keeping in the engine: the epoch's loss and accuracy do not depend on when (or whether)
 * a listener reads the running loss, and equal a host-side sum of each step's loss recomputed from the same
 * weights; a diverged run stops with a one-line error; a profiler sees every phase of every step in order; a
 * full-batch run trains on the data set as it is.
 */
class TrainStepTest {
    /** Runs 2 epochs of 4 steps (50 samples, batch 16) with an optional listener; returns the epochs' records. */
    private static List<TrainLoop.EpochRecord> run(TrainSpec t, TrainListener extra, float[][] weightsOut) {
        LabelledSet train = TrainLoopTest.small(Split.TRAIN, 5);
        List<TrainLoop.EpochRecord> recs = new ArrayList<>();
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ModelSpec.parse(TrainLoopTest.MLP, "t"), 1, m)) {
            TrainLoop tr = new TrainLoop(net, t, train, null).addListener(new TrainListener() {
                @Override
                public void onEpoch(TrainProgress p, TrainLoop.EpochRecord e) {
                    recs.add(e);
                }
            });
            if (extra != null) {
                tr.addListener(extra);
            }
            tr.fit(false);
            float[][] w = TrainLoopTest.weights(net);
            System.arraycopy(w, 0, weightsOut, 0, w.length);
        }
        return recs;
    }

    @Test
    void runningMetricsDoNotDependOnWhenTheyAreRead() {
        TrainSpec t = TrainLoopTest.spec("sgd", 2, 16);
        float[][] w0 = new float[4][];
        float[][] w1 = new float[4][];
        List<TrainLoop.EpochRecord> quiet = run(t, null, w0);
        List<Double> running = new ArrayList<>();
        List<TrainLoop.EpochRecord> reading = run(
                t,
                new TrainListener() {
                    @Override
                    public void onStep(TrainProgress p) {
                        running.add(p.runningLoss()); // reads the engine's sums after every step
                    }
                },
                w1);
        assertEquals(8, running.size());
        for (int i = 0; i < w0.length; i++) {
            assertArrayEquals(w0[i], w1[i], 0f, "parameter " + i);
        }
        for (int e = 0; e < 2; e++) {
            assertEquals(quiet.get(e).trainLoss(), reading.get(e).trainLoss(), 0.0);
            assertEquals(quiet.get(e).trainAccuracy(), reading.get(e).trainAccuracy(), 0.0);
            assertEquals(running.get(4 * e + 3), reading.get(e).trainLoss(), 0.0, "the last running loss of the epoch");
        }
    }

    /**
     * The epoch's mean loss is Σ_b ℓ_b·|b| / n over its steps, each ℓ_b the batch loss before that step's update, and
     * its accuracy the count of the steps' correct predictions (argmax of the outputs against the target's) over n.
     */
    @Test
    void epochLossIsTheSumOfTheStepsLossesInFloat64() {
        TrainSpec t = TrainLoopTest.spec("sgd", 1, 16);
        LabelledSet train = TrainLoopTest.small(Split.TRAIN, 5);
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ModelSpec.parse(TrainLoopTest.MLP, "t"), 1, m)) {
            int[] order = TrainLoop.batchOrder(t, train.size(), 0);
            double[] sum = {0};
            long[] correct = {0};
            LossFunction loss = LossFunction.CE;
            float[] targets = TrainLoop.targets(t, train);
            TrainLoop.Result r = new TrainLoop(net, t, train, null)
                    .phases(new StepPhases() {
                        private int step;

                        @Override
                        public void begin(Phase p) {
                            if (p == Phase.FORWARD) {
                                // the loss of this step's batch at the weights it starts from
                                int from = step * 16;
                                int to = Math.min(train.size(), from + 16);
                                float[] x = new float[(to - from) * 784];
                                float[] y = new float[(to - from) * 10];
                                for (int i = from; i < to; i++) {
                                    System.arraycopy(train.features(), order[i] * 784, x, (i - from) * 784, 784);
                                    System.arraycopy(targets, order[i] * 10, y, (i - from) * 10, 10);
                                }
                                try (NDManager s = m.newSubManager()) {
                                    NDArray xa =
                                            Arrays2.fromFloats(s, x, new Shape(to - from, 1, 28, 28), net.dataType());
                                    NDArray ya = Arrays2.fromFloats(s, y, new Shape(to - from, 10), net.dataType());
                                    boolean grad = ai.djl.pytorch.jni.JniUtils.isGradMode();
                                    ai.djl.pytorch.jni.JniUtils.setGradMode(false);
                                    NDArray f = net.forward(xa, Forward.train(s));
                                    ai.djl.pytorch.jni.JniUtils.setGradMode(grad);
                                    sum[0] += (double) loss.evaluate(f, ya, Forward.train(s))
                                                    .getFloat()
                                            * (to - from);
                                    long[] predicted = f.argMax(1).toLongArray();
                                    for (int i = from; i < to; i++) {
                                        int label = 0;
                                        for (int k = 1; k < 10; k++) {
                                            if (y[(i - from) * 10 + k] > y[(i - from) * 10 + label]) {
                                                label = k;
                                            }
                                        }
                                        correct[0] += predicted[i - from] == label ? 1 : 0;
                                    }
                                }
                            }
                        }

                        @Override
                        public void endStep() {
                            step++;
                        }
                    })
                    .fit(false);
            assertEquals(sum[0] / train.size(), r.trainLoss(), 1e-6 * Math.abs(r.trainLoss()));
            assertEquals((double) correct[0] / train.size(), r.trainAccuracy(), 0.0);
        }
    }

    /**
     * A ±1 target on one output (two classes, MSE, pm1) keeps each step's correct count instead of its predictions:
     * the epoch's accuracy is the same whether the running sums are read after every step or only at its end.
     */
    @Test
    void aOneOutputRunCountsItsAccuracyWhenReadAtAnyStep() {
        LabelledSet ten = TrainLoopTest.small(Split.TRAIN, 5);
        int[] parity = ten.labels().clone();
        for (int i = 0; i < parity.length; i++) {
            parity[i] %= 2;
        }
        LabelledSet train = new LabelledSet("parity", ten.features(), ten.sampleShape(), parity, 2);
        TrainSpec t = TrainLoopTest.spec("sgd", 2, 16).toBuilder()
                .loss("mse")
                .target("pm1")
                .build();
        double[][] acc = new double[2][];
        for (int reading = 0; reading < 2; reading++) {
            List<Double> epochs = new ArrayList<>();
            try (NDManager m = NDManager.newBaseManager();
                    Network net = Network.build(
                            ModelSpec.parse(TrainLoopTest.MLP, "t").toBuilder()
                                    .outputs(1)
                                    .build(),
                            1,
                            m)) {
                TrainLoop tr = new TrainLoop(net, t, train, null).addListener(new TrainListener() {
                    @Override
                    public void onEpoch(TrainProgress p, TrainLoop.EpochRecord e) {
                        epochs.add(e.trainAccuracy());
                    }
                });
                if (reading == 1) {
                    tr.addListener(new TrainListener() {
                        @Override
                        public void onStep(TrainProgress p) {
                            p.runningLoss();
                        }
                    });
                }
                tr.fit(false);
            }
            acc[reading] = epochs.stream().mapToDouble(Double::doubleValue).toArray();
        }
        assertEquals(2, acc[0].length);
        assertArrayEquals(acc[0], acc[1], 0.0);
        for (double a : acc[0]) {
            assertTrue(
                    a >= 0 && a <= 1 && Math.abs(a * train.size() - Math.round(a * train.size())) < 1e-9,
                    "a count over n: " + a);
        }
    }

    @Test
    void aDivergedRunStopsWithOneLine() {
        TrainSpec t =
                TrainLoopTest.spec("sgd", 3, 16).toBuilder().loss("mse").lr(1e4).build();
        UserException e = assertThrows(UserException.class, () -> run(t, null, new float[4][]));
        assertTrue(e.getMessage().startsWith("training diverged in epoch "), e.getMessage());
        assertTrue(e.getMessage().contains("lower the learning rate"), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void aProfilerSeesEveryPhaseOfEveryStepInOrder() {
        TrainSpec t = TrainLoopTest.spec("sgd", 1, 16);
        List<String> seen = new ArrayList<>();
        LabelledSet train = TrainLoopTest.small(Split.TRAIN, 5);
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ModelSpec.parse(TrainLoopTest.MLP, "t"), 1, m)) {
            new TrainLoop(net, t, train, null)
                    .phases(new StepPhases() {
                        @Override
                        public void begin(Phase p) {
                            seen.add(p.name());
                        }

                        @Override
                        public void endStep() {
                            seen.add("end");
                        }
                    })
                    .fit(false);
        }
        List<String> step = new ArrayList<>();
        for (StepPhases.Phase p : StepPhases.Phase.values()) {
            step.add(p.name());
        }
        step.add("end");
        List<String> want = new ArrayList<>();
        for (int s = 0; s < 4; s++) {
            want.addAll(step);
        }
        assertEquals(want, seen);
    }

    /** Full-batch gradient descent (batch size 0) uses the data set in its own order: the same as one batch of all. */
    @Test
    void fullBatchTrainsOnTheDataSetAsItIs() {
        TrainSpec full = TrainLoopTest.spec("sgd", 2, 0);
        float[][] a = new float[4][];
        List<TrainLoop.EpochRecord> r = run(full, null, a);
        assertEquals(2, r.size());
        assertTrue(r.get(1).fullBatch());
        assertTrue(r.get(1).trainLoss() < r.get(0).trainLoss(), "two full-batch steps lower the loss");
    }
}
