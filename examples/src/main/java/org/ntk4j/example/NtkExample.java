package org.ntk4j.example;

import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.metric.Metrics;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.EasyTrain;
import ai.djl.training.Trainer;
import ai.djl.training.TrainingResult;
import ai.djl.training.evaluator.Accuracy;
import ai.djl.training.listener.TrainingListener;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.util.List;
import java.util.Map;
import org.ntk4j.data.Dataset;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.DjlDataset;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.kernel.LayerPlan;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.NtkPlan;
import org.ntk4j.metrics.KernelMetrics;
import org.ntk4j.model.Network;
import org.ntk4j.probe.DjlProbeListener;
import org.ntk4j.probe.NtkProbe;
import org.ntk4j.train.Schedule;

/**
 * A DJL user's program on ntk4j: a DJL SequentialBlock MLP 784-128-10 on the bundled MNIST subset,
 * its NTK on the structured path, then training with DJL's EasyTrain and an ntk4j probe listener
 * that measures the NTK–target alignment at initialisation and after every epoch.
 */
public final class NtkExample {
    private static final int INPUT = 784;
    private static final int EPOCHS = 3;

    private NtkExample() {}

    public static void main(String[] args) throws Exception {
        Dataset train = Preprocess.flatten(Datasets.load(Datasets.MNIST_SUBSET, Split.TRAIN));
        Dataset test = Preprocess.flatten(Datasets.load(Datasets.MNIST_SUBSET, Split.TEST));
        Dataset probe = Preprocess.balancedSample(test, 10, 0); // 100 images, 10 per class
        int n = probe.size();

        SequentialBlock block = new SequentialBlock()
                .add(Linear.builder().setUnits(128).build())
                .add(Activation.reluBlock())
                .add(Linear.builder().setUnits(10).build());
        DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.1f)).build())
                .addEvaluator(new Accuracy())
                .addTrainingListeners(TrainingListener.Defaults.basic());

        try (NDManager manager = NDManager.newBaseManager();
                Model model = Model.newInstance("mlp")) {
            model.setBlock(block);
            DjlProbeListener listener = new DjlProbeListener(block, new Shape(INPUT), manager)
                    .add(new NtkProbe(probe, null, Schedule.parse("epochs")));
            config.addTrainingListeners(listener);
            try (Trainer trainer = model.newTrainer(config)) {
                trainer.setMetrics(new Metrics());
                Engine.getInstance().setRandomSeed(0);
                trainer.initialize(new Shape(1, INPUT));

                // The kernel of the initialised DJL block, every layer on the structured path.
                try (NDManager sub = manager.newSubManager()) {
                    Ntk ntk = Ntk.of(Network.ofBlock(block, new Shape(INPUT), sub));
                    NtkPlan plan = ntk.plan(n, n);
                    System.out.print("plan:\n" + plan.explain());
                    for (LayerPlan l : plan.layers()) {
                        if (!l.structured()) {
                            throw new IllegalStateException("layer " + l.name() + " is not structured: " + l.explain());
                        }
                    }
                    NDArray x = sub.create(probe.features(), new Shape(n, INPUT));
                    double[][] k = ntk.mode(Mode.TRACE).compute(x).total().traced();
                    System.out.printf("NTK of %d probe images: Θ[0][0] = %.4f%n", n, k[0][0]);
                }

                DjlDataset trainSet = DjlDataset.builder(train).setSampling(64, true).build();
                DjlDataset testSet = DjlDataset.builder(test).setSampling(250, false).build();
                EasyTrain.fit(trainer, EPOCHS, trainSet, testSet);
                TrainingResult result = trainer.getTrainingResult();
                System.out.printf("test accuracy after %d epochs: %.4f%n", EPOCHS,
                        result.getValidateEvaluation("Accuracy"));
            }

            List<Map<String, Object>> records = listener.records();
            for (Map<String, Object> r : records) {
                System.out.printf("step %4d (epoch %d): NTK–target alignment %.4f, centred %.4f%n",
                        (Long) r.get("step"), (Integer) r.get("epoch"),
                        (Double) r.get(KernelMetrics.ALIGNMENT), (Double) r.get(KernelMetrics.CENTERED_ALIGNMENT));
            }
            Map<String, Object> first = records.get(0);
            Map<String, Object> last = records.get(records.size() - 1);
            System.out.printf("alignment before -> after training: %.4f -> %.4f (centred %.4f -> %.4f)%n",
                    (Double) first.get(KernelMetrics.ALIGNMENT), (Double) last.get(KernelMetrics.ALIGNMENT),
                    (Double) first.get(KernelMetrics.CENTERED_ALIGNMENT),
                    (Double) last.get(KernelMetrics.CENTERED_ALIGNMENT));
        }
    }
}
