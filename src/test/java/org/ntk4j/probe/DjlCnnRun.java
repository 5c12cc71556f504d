package org.ntk4j.probe;

import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.metric.Metrics;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Blocks;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.pooling.Pool;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.EasyTrain;
import ai.djl.training.Trainer;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.report.RunFolder;
import org.ntk4j.train.Schedule;

/**
 * A DJL user's CNN (Conv2d → ReLU → max-pool → flatten → Linear → ReLU → Linear, two conv/linear layers with weight
 * and bias each) trained by DJL's EasyTrain for 2 epochs on 24 synthetic 1×8×8 images of 3 classes, with all three
 * ntk4j probes and a run folder, then its report. Runs in the test JVM, or (main) in a JVM of its own whose classpath
 * may lack XChart.
 */
final class DjlCnnRun {
    static final int N = 24;
    static final int C = 3;
    static final Shape SAMPLE = new Shape(1, 8, 8);

    private DjlCnnRun() {}

    /** The 24 images (class-coded means, seeded noise) and their labels. */
    static LabelledSet data() {
        Random r = new Random(5);
        float[] x = new float[N * 64];
        int[] labels = new int[N];
        for (int i = 0; i < N; i++) {
            labels[i] = i % C;
            for (int p = 0; p < 64; p++) {
                x[i * 64 + p] = (float) (r.nextGaussian() * 0.5 + (p % 3 == labels[i] ? 1 : 0));
            }
        }
        return new LabelledSet("synthetic-8x8", x, new int[] {1, 8, 8}, labels, C);
    }

    static SequentialBlock cnn() {
        return new SequentialBlock()
                .add(Conv2d.builder()
                        .setKernelShape(new Shape(3, 3))
                        .optPadding(new Shape(1, 1))
                        .setFilters(4)
                        .build())
                .add(Activation.reluBlock())
                .add(Pool.maxPool2dBlock(new Shape(2, 2), new Shape(2, 2)))
                .add(Blocks.batchFlattenBlock())
                .add(Linear.builder().setUnits(16).build())
                .add(Activation.reluBlock())
                .add(Linear.builder().setUnits(C).build());
    }

    /** Trains the CNN with the probes into {@code dir} and writes its report; returns the listener. */
    static DjlProbeListener run(Path dir, NDManager manager) throws Exception {
        return run(dir, manager, b -> {});
    }

    /** As {@link #run(Path, NDManager)}, handing the trained block to {@code trained} while its model is open. */
    static DjlProbeListener run(Path dir, NDManager manager, java.util.function.Consumer<SequentialBlock> trained)
            throws Exception {
        LabelledSet data = data();
        RunFolder run = new RunFolder(dir);
        SequentialBlock block = cnn();
        Schedule epochs = Schedule.parse("epochs");
        DjlProbeListener probes = new DjlProbeListener(block, SAMPLE, manager)
                .add(NtkProbe.builder(data).runFolder(run).build())
                .add(new NeuralCollapseProbe(data, epochs))
                .add(new FeatureAnsatzProbe(data, epochs))
                .runFolder(run);
        float[] y = new float[N];
        for (int i = 0; i < N; i++) {
            y[i] = data.labels()[i];
        }
        ArrayDataset train = new ArrayDataset.Builder()
                .setData(manager.create(data.features(), new Shape(N, 1, 8, 8)))
                .optLabels(manager.create(y, new Shape(N)))
                .setSampling(8, false)
                .build();
        DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                .optOptimizer(Optimizer.sgd()
                        .setLearningRateTracker(Tracker.fixed(0.1f))
                        .build())
                .addTrainingListeners(probes);
        try (Model model = Model.newInstance("cnn")) {
            model.setBlock(block);
            try (Trainer trainer = model.newTrainer(config)) {
                trainer.setMetrics(new Metrics());
                Engine.getInstance().setRandomSeed(3);
                trainer.initialize(new Shape(1, 1, 8, 8));
                EasyTrain.fit(trainer, 2, train, null);
            }
            probes.report("DJL CNN on synthetic 8x8 images");
            trained.accept(block);
        }
        return probes;
    }

    /** In a JVM of its own: {@code DjlCnnRun DIR} trains into DIR and prints the records. */
    public static void main(String[] args) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            List<Map<String, Object>> records = run(Path.of(args[0]), m).records();
            System.out.println("records " + records.size());
            System.out.println("xchart " + org.ntk4j.report.Plots.xchartAvailable());
        }
    }
}
