package org.ntk4j.probe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Parameter;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.EasyTrain;
import ai.djl.training.Trainer;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.util.Pair;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.metrics.KernelMetrics;
import org.ntk4j.model.Network;
import org.ntk4j.train.Schedule;

/**
 * The DJL adapter: a DJL SequentialBlock MLP trained by DJL's own EasyTrain with a
 * {@link DjlProbeListener} running an {@link NtkProbe} every 2 steps records kernels at steps 0, 2,
 * 4 (epoch end), 6, 8 (epoch end) whose alignment, centred alignment and eigenvalues equal a direct
 * {@link Ntk} computation on the same weights (at initialisation and at the end); and the listener
 * changes nothing in training: the final weights equal, bit for bit, those of the same run without it.
 */
class DjlProbeListenerTest {
    static final int N = 8;
    static final int D = 6;
    static final int C = 3;

    @Test
    void listenerRecordsTheKernelsOfTheTrainedBlockAndLeavesTrainingUnchanged() throws Exception {
        Random r = new Random(3);
        float[] x = new float[N * D];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) r.nextGaussian();
        }
        int[] labels = new int[N];
        for (int i = 0; i < N; i++) {
            labels[i] = i % C;
        }
        LabelledSet probeSet = new LabelledSet("probe", x, new int[] {D}, labels, C);
        try (NDManager m = NDManager.newBaseManager()) {
            // the reference: the same training without the listener
            List<float[]> reference;
            try (Model model = Model.newInstance("mlp")) {
                SequentialBlock block = mlp();
                model.setBlock(block);
                try (Trainer trainer = model.newTrainer(config())) {
                    Engine.getInstance().setRandomSeed(11);
                    trainer.initialize(new Shape(1, D));
                    EasyTrain.fit(trainer, 2, data(m, x, labels), null);
                }
                reference = weights(block);
            }

            try (Model model = Model.newInstance("mlp")) {
                SequentialBlock block = mlp();
                model.setBlock(block);
                DjlProbeListener listener = new DjlProbeListener(block, new Shape(D), m)
                        .add(new NtkProbe(probeSet, null, Schedule.parse("every:2")));
                List<Map<String, Object>> sunk = new ArrayList<>();
                listener.sink(sunk::add);
                double[] atInit;
                try (Trainer trainer = model.newTrainer(config().addTrainingListeners(listener))) {
                    Engine.getInstance().setRandomSeed(11);
                    trainer.initialize(new Shape(1, D));
                    atInit = direct(block, m, probeSet);
                    EasyTrain.fit(trainer, 2, data(m, x, labels), null);
                }
                double[] atEnd = direct(block, m, probeSet);

                List<Map<String, Object>> recs = listener.records();
                assertEquals(sunk, recs);
                assertEquals(
                        List.of(0L, 2L, 4L, 6L, 8L),
                        recs.stream().map(q -> (Long) q.get("step")).toList());
                assertEquals(
                        List.of(0, 0, 1, 1, 2),
                        recs.stream().map(q -> (Integer) q.get("epoch")).toList());
                assertMatches(atInit, recs.get(0));
                assertMatches(atEnd, recs.get(recs.size() - 1));
                List<float[]> withListener = weights(block);
                for (int i = 0; i < reference.size(); i++) {
                    assertArrayEquals(reference.get(i), withListener.get(i), 0f, "parameter " + i);
                }
            }
        }
    }

    private static void assertMatches(double[] direct, Map<String, Object> rec) {
        assertEquals(direct[0], (Double) rec.get(KernelMetrics.ALIGNMENT), 1e-9 * Math.abs(direct[0]));
        assertEquals(direct[1], (Double) rec.get(KernelMetrics.CENTERED_ALIGNMENT), 1e-9 * Math.abs(direct[1]) + 1e-12);
        List<?> ev = (List<?>) rec.get(KernelMetrics.EIGENVALUES);
        assertEquals(direct[2], (Double) ev.get(0), 1e-9 * Math.abs(direct[2]));
    }

    /** [alignment, centred alignment, top eigenvalue] of the traced NTK of the block's current weights, computed directly. */
    private static double[] direct(SequentialBlock block, NDManager m, LabelledSet probe) {
        try (NDManager sub = m.newSubManager()) {
            Network net = Network.ofBlock(block, new Shape(D), sub);
            NDArray xs = sub.create(probe.features(), new Shape(N, D));
            KernelResult k = Ntk.of(net).mode(Mode.TRACE).compute(xs);
            double[][] traced = k.total().traced();
            Map<String, Object> r = new java.util.LinkedHashMap<>();
            KernelMetrics.alignment(r, traced, KernelMetrics.targets(probe, N), C);
            KernelMetrics.spectrum(r, traced, null, 0);
            // the direct computation must not leave gradients behind for the training that follows
            for (Pair<String, Parameter> p : block.getParameters()) {
                JniUtils.zeroGrad((PtNDArray) p.getValue().getArray());
            }
            return new double[] {
                (Double) r.get(KernelMetrics.ALIGNMENT),
                (Double) r.get(KernelMetrics.CENTERED_ALIGNMENT),
                ((double[]) r.get(KernelMetrics.EIGENVALUES))[0]
            };
        }
    }

    private static SequentialBlock mlp() {
        return new SequentialBlock()
                .add(Linear.builder().setUnits(16).build())
                .add(Activation.tanhBlock())
                .add(Linear.builder().setUnits(C).build());
    }

    private static DefaultTrainingConfig config() {
        return new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                .optOptimizer(Optimizer.sgd()
                        .setLearningRateTracker(Tracker.fixed(0.5f))
                        .build());
    }

    private static ArrayDataset data(NDManager m, float[] x, int[] labels) {
        float[] y = new float[labels.length];
        for (int i = 0; i < y.length; i++) {
            y[i] = labels[i];
        }
        return new ArrayDataset.Builder()
                .setData(m.create(x, new Shape(N, D)))
                .optLabels(m.create(y, new Shape(N)))
                .setSampling(2, false)
                .build();
    }

    private static List<float[]> weights(SequentialBlock block) {
        List<float[]> w = new ArrayList<>();
        for (Pair<String, Parameter> p : block.getParameters()) {
            w.add(p.getValue().getArray().toType(DataType.FLOAT32, false).toFloatArray());
        }
        return w;
    }
}
