package org.ntk4j.experiment.equilibrium;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Map;
import java.util.function.BiPredicate;
import java.util.function.Function;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.experiment.support.Stats;
import org.ntk4j.experiment.support.StudyData;
import org.ntk4j.job.TrainRun;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.metrics.LayerCka;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Network;
import org.ntk4j.probe.Probe;
import org.ntk4j.probe.ProbeListener;
import org.ntk4j.report.RunFolder;
import org.ntk4j.report.RunReport;
import org.ntk4j.spec.ActivationKind;
import org.ntk4j.spec.Arch;
import org.ntk4j.spec.InitializerKind;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.train.Arrays2;
import org.ntk4j.train.TrainLoop;

/**
 * Shared settings of the studies of Lou, Mingard and Hayou, "The Equilibrium Hypothesis: Rethinking
 * implicit regularization in Deep Neural Networks": the bias-free ReLU FFNN of its §3 (Eq. 6: z₁ = W₁x,
 * z_l = W_l φ(z_{l−1}), He init W ~ N(0, 2/fan_in)), inputs flattened and normalised to ‖x‖ = √d
 * (Assumption 1), cross-entropy, SGD with momentum and weight decay (the paper does not give their
 * values nor the batch size: 0.9, 5e-4 and 32 as in the notes' replication).
 */
final class EquilibriumSetup {
    private EquilibriumSetup() {}

    /** Depth-L (weight layers) bias-free ReLU FFNN of width N, He init (σ_w² = 2), standard parameterisation. */
    static ModelSpec ffnn(int inputDim, int depth, int width, int classes) {
        int[] widths = new int[depth - 1];
        java.util.Arrays.fill(widths, width);
        return ModelSpec.builder()
                .name("ffnn-L" + depth + "-w" + width)
                .arch(Arch.MLP)
                .input(new int[] {inputDim})
                .widths(widths)
                .outputs(classes)
                .activation(ActivationKind.RELU)
                .bias(false)
                .initializer(InitializerKind.GAUSSIAN)
                .sigmaW(Math.sqrt(2))
                .validate("equilibrium-hypothesis");
    }

    /** The same network with the last layer's init scaled by s: W_L ~ N(0, s²·2/N). */
    static ModelSpec scaleLastLayer(ModelSpec spec, int depth, double s) {
        double[] sigmas = new double[depth];
        java.util.Arrays.fill(sigmas, Math.sqrt(2));
        sigmas[depth - 1] = Math.sqrt(2) * s;
        return spec.toBuilder().layerSigmaW(sigmas).validate("equilibrium-hypothesis");
    }

    /** SGD, momentum 0.9, weight decay 5e-4, CE on one-hot targets. */
    static TrainSpec sgd(double lr, int batch, int epochs, long seed) {
        return TrainSpec.builder()
                .loss("ce")
                .optimizer("sgd")
                .lr(lr)
                .momentum(0.9)
                .weightDecay(5e-4)
                .batchSize(batch)
                .epochs(epochs)
                .seed(seed)
                .validate("equilibrium-hypothesis");
    }

    /** Adam (PyTorch's defaults β = (0.9, 0.999), ε = 1e-8), no weight decay, CE on one-hot targets. */
    static TrainSpec adam(double lr, int batch, int epochs, long seed) {
        return TrainSpec.builder()
                .loss("ce")
                .optimizer("adam")
                .lr(lr)
                .batchSize(batch)
                .epochs(epochs)
                .seed(seed)
                .validate("equilibrium-hypothesis");
    }

    /**
     * One dataset as the studies use it: the (capped) training set, the test set, and a class-balanced probe
     * sample of the training set on which Eq. 5 or w_t is measured.
     */
    record Data(String name, LabelledSet train, LabelledSet test, LabelledSet probe) {
        int stepsPerEpoch(int batch) {
            return (train.size() + batch - 1) / batch;
        }
    }

    /** Loads {@code ds}: training set capped to {@code trainPerClass} per class, test set, {@code probePerClass} probe sample. */
    static Data data(String ds, boolean unitSphere, int trainPerClass, int probePerClass, long seed) {
        LabelledSet train = StudyData.cap(StudyData.load(ds, Split.TRAIN, unitSphere), trainPerClass, seed);
        LabelledSet test = StudyData.load(ds, Split.TEST, unitSphere);
        return new Data(ds, train, test, Preprocess.balancedSample(train, probePerClass, seed));
    }

    /** A probe from a schedule and a measurement. */
    static Probe probe(String name, BiPredicate<Long, Boolean> due, ProbeBody body) {
        return new Probe() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public boolean due(long step, boolean epochEnd) {
                return due.test(step, epochEnd);
            }

            @Override
            public Map<String, Object> run(Network net, long step, int epoch) {
                return body.run(net, step, epoch);
            }
        };
    }

    /** The measurement of a {@link #probe}. */
    @FunctionalInterface
    interface ProbeBody {
        Map<String, Object> run(Network net, long step, int epoch);
    }

    /** A training run's result and what {@code after} measured on the trained network. */
    record Trained<T>(TrainLoop.Result result, T after) {}

    /**
     * Builds {@code spec} (seed {@code seed}, float32), trains it with {@code t} on {@code d} in a fresh
     * run folder {@code dir} with the probe (none if null), measures {@code after} on the trained network
     * (may be null) and writes the run's report.
     */
    static <T> Trained<T> train(
            NDManager manager,
            ModelSpec spec,
            TrainSpec t,
            Data d,
            java.nio.file.Path dir,
            String title,
            Probe probe,
            Function<Network, T> after) {
        return train(manager, spec, t, d, dir, title, probe, null, after);
    }

    /** As {@link #train(NDManager, ModelSpec, TrainSpec, Data, java.nio.file.Path, String, Probe, Function)}, with {@code before} run on the built network first (may be null). */
    static <T> Trained<T> train(
            NDManager manager,
            ModelSpec spec,
            TrainSpec t,
            Data d,
            java.nio.file.Path dir,
            String title,
            Probe probe,
            java.util.function.Consumer<Network> before,
            Function<Network, T> after) {
        RunFolder run = new RunFolder(StudyData.fresh(dir));
        TrainLoop.Result res;
        T a = null;
        try (NDManager m = manager.newSubManager();
                Network net = Network.build(spec, t.seed(), m, DataType.FLOAT32)) {
            if (before != null) {
                before.accept(net);
            }
            TrainLoop trainer =
                    TrainRun.trainer(net, t, d.train(), d.test(), run).quiet(true);
            if (probe != null) {
                trainer.addListener(new ProbeListener(run).add(probe));
            }
            res = trainer.fit(false);
            if (after != null) {
                a = after.apply(net);
            }
        }
        RunReport.write(run, title);
        return new Trained<>(res, a);
    }

    /** Eq. 5 per layer on a labelled set ({@link LayerCka}): Ntk FULL per layer, float64 accumulation. */
    static double[] layerCka(Network net, LabelledSet data) {
        try (NDScope scope = new NDScope();
                NDManager m = net.manager().newSubManager()) {
            NDArray x =
                    Arrays2.fromFloats(m, data.features(), new Shape(data.size(), data.featureDim()), net.dataType());
            KernelResult k = Ntk.of(net).mode(Mode.FULL).perLayer().float64().compute(x);
            return LayerCka.perLayer(k, data.labels(), data.numClasses());
        }
    }

    /** Mean cross-entropy of outputs f (n × k row-major) against labels. */
    static double crossEntropy(double[] f, int[] labels, int k) {
        double s = 0;
        for (int i = 0; i < labels.length; i++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int a = 0; a < k; a++) {
                max = Math.max(max, f[i * k + a]);
            }
            double z = 0;
            for (int a = 0; a < k; a++) {
                z += Math.exp(f[i * k + a] - max);
            }
            s += Math.log(z) + max - f[i * k + labels[i]];
        }
        return s / labels.length;
    }

    /** The network's outputs on a set, n × O row-major, in float64. */
    static double[] outputs(Network net, LabelledSet data) {
        int n = data.size();
        try (NDScope scope = new NDScope();
                NDManager m = net.manager().newSubManager()) {
            NDArray x = Arrays2.fromFloats(m, data.features(), new Shape(n, data.featureDim()), net.dataType());
            NDArray f = net.forward(x, Forward.eval(m));
            return f.toType(ai.djl.ndarray.types.DataType.FLOAT64, false).toDoubleArray();
        }
    }

    /**
     * corr(Ỹ, w): Pearson correlation over the n·k entries of Ỹ = CY (global centring) and the CE output
     * gradient w_{x,i} = (softmax_i(f(x)) − Y_{x,i})/n, from outputs f (n × k row-major).
     */
    static double correlation(double[] f, int[] labels, int k) {
        int n = labels.length;
        double[] w = new double[n * k];
        double[] yt = new double[n * k];
        for (int i = 0; i < n; i++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int a = 0; a < k; a++) {
                max = Math.max(max, f[i * k + a]);
            }
            double z = 0;
            for (int a = 0; a < k; a++) {
                z += Math.exp(f[i * k + a] - max);
            }
            for (int a = 0; a < k; a++) {
                double y = labels[i] == a ? 1 : 0;
                w[i * k + a] = (Math.exp(f[i * k + a] - max) / z - y) / n;
                yt[i * k + a] = y - 1.0 / k; // CY: the global mean of Y is n/(nk) = 1/k
            }
        }
        return Stats.pearson(yt, w);
    }
}
