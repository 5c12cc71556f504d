package org.ntk4j.example;

import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.metric.Metrics;
import ai.djl.ndarray.NDArray;
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
import ai.djl.training.TrainingResult;
import ai.djl.training.evaluator.Accuracy;
import ai.djl.training.listener.TrainingListener;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.DjlDataset;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.kernel.LayerPlan;
import org.ntk4j.kernel.Linearized;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.NtkFunction;
import org.ntk4j.kernel.NtkPlan;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.probe.DjlProbeListener;
import org.ntk4j.probe.FeatureAnsatzProbe;
import org.ntk4j.probe.NeuralCollapseProbe;
import org.ntk4j.probe.NtkProbe;
import org.ntk4j.probe.ProbeReports;
import org.ntk4j.report.RunFolder;
import org.ntk4j.train.Schedule;

/**
 * A DJL user's program on ntk4j: a DJL CNN (Conv2d → ReLU → max-pool → Linear → ReLU → Linear) on the bundled MNIST
 * subset. Its NTK on the structured path (every layer, checked), then training with DJL's EasyTrain while ntk4j's
 * three probes — the NTK of a probe set, neural collapse of the penultimate features, the neural feature ansatz of
 * the dense layers — measure it at initialisation and after every epoch into a run folder, whose report.html ends
 * the run (offline; without XChart the line charts' data go to CSV files, and the page still draws them).
 */
public final class NtkExample {
    private static final Shape SAMPLE = new Shape(1, 28, 28);
    private static final int EPOCHS = 2;

    private NtkExample() {}

    public static void main(String[] args) throws Exception {
        Path runDir = Path.of(args.length > 0 ? args[0] : "target/example-run");
        LabelledSet train = Datasets.load(Datasets.MNIST_SUBSET, Split.TRAIN);
        LabelledSet test = Datasets.load(Datasets.MNIST_SUBSET, Split.TEST);
        LabelledSet probe = Preprocess.balancedSample(train, 5, 0); // 50 training images, 5 per class
        int n = probe.size();

        SequentialBlock block = new SequentialBlock()
                .add(Conv2d.builder()
                        .setKernelShape(new Shape(3, 3))
                        .optPadding(new Shape(1, 1))
                        .setFilters(8)
                        .build())
                .add(Activation.reluBlock())
                .add(Pool.maxPool2dBlock(new Shape(2, 2), new Shape(2, 2)))
                .add(Blocks.batchFlattenBlock())
                .add(Linear.builder().setUnits(64).build())
                .add(Activation.reluBlock())
                .add(Linear.builder().setUnits(10).build());
        DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                .optOptimizer(Optimizer.sgd()
                        .setLearningRateTracker(Tracker.fixed(0.1f))
                        .build())
                .addEvaluator(new Accuracy())
                .addTrainingListeners(TrainingListener.Defaults.basic());

        try (NDManager manager = NDManager.newBaseManager();
                Model model = Model.newInstance("cnn")) {
            model.setBlock(block);
            Files.createDirectories(runDir);
            RunFolder run = new RunFolder(runDir);
            run.clearRunFiles(); // a fresh run each time the example runs
            Schedule epochs = Schedule.parse("epochs"); // at initialisation and after every epoch
            DjlProbeListener probes = new DjlProbeListener(block, SAMPLE, manager)
                    .add(NtkProbe.builder(probe).runFolder(run).schedule(epochs).build())
                    .add(new NeuralCollapseProbe(probe, epochs))
                    .add(new FeatureAnsatzProbe(probe, epochs))
                    .runFolder(run);
            config.addTrainingListeners(probes);
            try (Trainer trainer = model.newTrainer(config)) {
                trainer.setMetrics(new Metrics());
                Engine.getInstance().setRandomSeed(0);
                trainer.initialize(new Shape(1).addAll(SAMPLE));

                // The kernel of the initialised DJL block, every layer on the structured path.
                try (NDManager sub = manager.newSubManager()) {
                    Ntk ntk = Ntk.of(Network.ofBlock(block, SAMPLE, sub));
                    NtkPlan plan = ntk.plan(n, n);
                    System.out.print("plan:\n" + plan.explain());
                    for (LayerPlan l : plan.layers()) {
                        if (!l.structured()) {
                            throw new IllegalStateException("layer " + l.name() + " is not structured: " + l.explain());
                        }
                    }
                    NDArray x = sub.create(probe.features(), new Shape(n).addAll(SAMPLE));
                    double[][] k = ntk.mode(Mode.TRACE).compute(x).total().traced();
                    System.out.printf("NTK of %d probe images: Θ[0][0] = %.4f%n", n, k[0][0]);

                    // The same kernel as a function of inputs: an NDArray on the device, Θ·v, the linearised model.
                    NtkFunction f = Ntk.function(block, SAMPLE, Ntk.options().build()); // summed over outputs
                    NDArray xs = NtkFunction.batch(
                            DjlDataset.builder(probe).setSampling(25, false).build(), sub);
                    NDArray theta = f.apply(xs, null); // (50, 50)
                    NDArray rowSums = f.ntkVp(xs, null, sub.ones(new Shape(n))); // Θ·1 without forming Θ
                    double gap =
                            rowSums.sub(theta.sum(new int[] {1})).abs().max().getFloat()
                                    / theta.abs().max().getFloat();
                    try (Linearized lin = f.linearize()) {
                        NDArray logits = lin.forward(xs, f.parameters()); // f(x; θ0) + J(x)(θ − θ0), θ = θ0
                        System.out.printf(
                                "NtkFunction: Θ %s, Θ·1 agrees to %.1e, f_lin %s%n",
                                theta.getShape(), gap, logits.getShape());
                    }
                    if (!(gap < 1e-4) || Math.abs(theta.getFloat(0, 0) - k[0][0]) > 1e-4 * Math.abs(k[0][0])) {
                        throw new IllegalStateException("NtkFunction disagrees with Ntk.compute");
                    }
                }

                DjlDataset trainSet =
                        DjlDataset.builder(train).setSampling(64, true).build();
                DjlDataset testSet =
                        DjlDataset.builder(test).setSampling(250, false).build();
                EasyTrain.fit(trainer, EPOCHS, trainSet, testSet);
                TrainingResult result = trainer.getTrainingResult();
                System.out.printf(
                        "test accuracy after %d epochs: %.4f%n", EPOCHS, result.getValidateEvaluation("Accuracy"));
            }

            List<Map<String, Object>> records = probes.records();
            System.out.println("first probe record: " + records.get(0)); // readable values, lists for arrays
            probes.report("DJL CNN on the MNIST subset");
            ProbeReports.summary(run).forEach(System.out::println);
            System.out.println("report: " + runDir.resolve("report.html").toAbsolutePath());
            for (String f : List.of("report.html", "figures.json", "weights-init.npz", "ntk-heatmap.png")) {
                if (!Files.isRegularFile(runDir.resolve(f))) {
                    throw new IllegalStateException("the run folder lacks " + f);
                }
            }
        }
    }
}
