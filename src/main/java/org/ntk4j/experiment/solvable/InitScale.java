package org.ntk4j.experiment.solvable;

import ai.djl.ndarray.NDManager;
import io.soabase.recordbuilder.core.RecordBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.experiment.support.Paper;
import org.ntk4j.experiment.support.Scale;
import org.ntk4j.experiment.support.Study;
import org.ntk4j.experiment.support.StudyBuilder;
import org.ntk4j.experiment.support.StudyData;
import org.ntk4j.experiment.support.StudyReport;
import org.ntk4j.experiment.support.Verdicts;
import org.ntk4j.experiment.support.Verdicts.Verdict;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.report.Files2;
import org.ntk4j.report.Plots;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.train.TrainLoop;

/**
 * Xu &amp; Ziyin, "When Does Feature Learning Happen? Perspective from an Analytically Solvable Model", Fig. 2 (§2.4,
 * App. B.2): ResNet-18 (the kuangliu/pytorch-cifar CIFAR variant, {@code resnet18}) whose every weight tensor (convs
 * and the final dense layer; BatchNorm γ/β untouched) is multiplied by an init scale α after the default init, trained
 * with the repository's recipe (SGD lr 0.1, momentum 0.9, weight decay 5e-4, cosine schedule). Measured per α: the
 * sum of the layers' norms Σ_l ‖θ_l‖_F at the end, and train/test accuracy. The paper's claims: 100% train accuracy
 * in all settings; a larger α gives a larger final norm and a worse test accuracy (read as learning by disalignment).
 *
 * <p>CPU scale: ResNet-18's depth and block structure with an eighth of the channels (8/16/32/64) on 256 training
 * and 256 test images for 10 epochs (CIFAR-10 when fetched, else MNIST digits zero-padded to 32×32 and repeated
 * over 3 channels as a real-image stand-in; the quick variant uses the CIFAR-shaped synthetic substitute of
 * {@link PhaseDiagram} at 3×16×16); the paper trains the full-width net on all of CIFAR-10 for 200 epochs (GPU).
 */
public final class InitScale {
    @RecordBuilder
    @RecordBuilder.Options(builderMode = RecordBuilder.BuilderMode.STAGED)
    public record Settings(
            double[] alphas, int[] channels, int side, int train, int test, int epochs, int batch, long seed) {
        public static Settings of(Scale scale) {
            return scale.choose(Settings::quick, Settings::cpu, Settings::paper);
        }

        public static Settings quick() {
            return InitScaleSettingsBuilder.builder(paper())
                    .alphas(new double[] {0.5, 1, 4})
                    .channels(new int[] {4, 8, 16, 32})
                    .side(16)
                    .train(128)
                    .test(128)
                    .epochs(3)
                    .batch(32)
                    .build();
        }

        public static Settings cpu() {
            return InitScaleSettingsBuilder.builder(paper())
                    .alphas(new double[] {0.5, 1, 2, 4})
                    .channels(new int[] {8, 16, 32, 64})
                    .train(256)
                    .test(256)
                    .epochs(10)
                    .batch(32)
                    .build();
        }

        public static Settings paper() {
            return InitScaleSettingsBuilder.builder()
                    .alphas(new double[] {0.5, 1, 2, 4, 8})
                    .channels(new int[] {64, 128, 256, 512})
                    .side(32)
                    .train(50000)
                    .test(10000)
                    .epochs(200)
                    .batch(128)
                    .seed(0)
                    .build();
        }
    }

    public record Row(
            double alpha,
            double initialNorm,
            double finalNorm,
            double trainAccuracy,
            double testAccuracy,
            int testImages,
            double trainLoss,
            double seconds) {}

    private InitScale() {}

    public static final Study STUDY = StudyBuilder.builder()
            .name("init-scale")
            .paper(Paper.XU_ZIYIN)
            .figures("Fig. 2")
            .claim("ResNet-18 on CIFAR-10 over init scales: parameter norm and test accuracy")
            .summary("Xu & Ziyin, When Does Feature Learning Happen?, Fig. 2: ResNet-18 (CPU: 1/8 width, 256 images, 10"
                    + " epochs; CIFAR-10, else MNIST padded to 3x32x32) with every weight scaled by alpha: final sum"
                    + " of layer norms and test accuracy against alpha (~16 s)")
            .runner((scale, out, manager) -> {
                List<Row> rows = run(Settings.of(scale), out, manager);
                StringBuilder t = new StringBuilder(String.format(
                        "%-6s %11s %11s %9s %9s %9s%n",
                        "alpha", "norm(init)", "norm(end)", "train", "test", "seconds"));
                for (Row r : rows) {
                    t.append(String.format(
                            Locale.ROOT,
                            "%-6.2f %11.2f %11.2f %9.3f %9.3f %9.1f%n",
                            r.alpha(),
                            r.initialNorm(),
                            r.finalNorm(),
                            r.trainAccuracy(),
                            r.testAccuracy(),
                            r.seconds()));
                }
                return t + "\n" + Verdicts.text(verdicts(rows));
            })
            .build();

    /** CIFAR-10 (first images, per-pixel standardised by the loader's scale) or the substitute, as image datasets. */
    static LabelledSet[] data(Settings set) {
        if (set.side() == 32 && StudyData.availableDatasets().contains(Datasets.CIFAR10)) {
            return new LabelledSet[] {
                Datasets.load(Datasets.CIFAR10, Split.TRAIN).head(set.train()),
                Datasets.load(Datasets.CIFAR10, Split.TEST).head(set.test())
            };
        }
        if (set.side() == 32) { // real images as the stand-in: MNIST (fetched, else the bundled subset) 3×32×32
            String name = StudyData.fetched(Datasets.MNIST) ? Datasets.MNIST : Datasets.MNIST_SUBSET;
            return new LabelledSet[] {
                rgb(Preprocess.pad(Datasets.load(name, Split.TRAIN).head(set.train()), 2)),
                rgb(Preprocess.pad(Datasets.load(name, Split.TEST).head(set.test()), 2))
            };
        }
        SolvableSetup.Data d = SolvableSetup.data(set.side(), set.train(), set.test(), false, set.seed());
        double scale = Math.sqrt(d.d0()); // unit-norm rows → unit-variance pixels
        return new LabelledSet[] {
            image("substitute-train", d.xTrain(), d.yTrain(), set.side(), scale),
            image("substitute-test", d.xTest(), d.yTest(), set.side(), scale)
        };
    }

    /** A 1×H×W image set repeated over 3 channels (3×H×W, the CIFAR shape). */
    private static LabelledSet rgb(LabelledSet g) {
        int hw = g.featureDim();
        float[] f = g.features();
        float[] o = new float[f.length * 3];
        for (int i = 0; i < g.size(); i++) {
            for (int c = 0; c < 3; c++) {
                System.arraycopy(f, i * hw, o, (i * 3 + c) * hw, hw);
            }
        }
        int[] sh = g.sampleShape();
        return new LabelledSet(
                g.name() + "-3ch", o, new int[] {3, sh[sh.length - 2], sh[sh.length - 1]}, g.labels(), 10);
    }

    private static LabelledSet image(String name, double[] x, double[] y, int side, double scale) {
        float[] f = new float[x.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) (x[i] * scale);
        }
        int[] labels = new int[y.length];
        for (int i = 0; i < labels.length; i++) {
            labels[i] = (int) y[i];
        }
        return new LabelledSet(name, f, new int[] {3, side, side}, labels, 10);
    }

    static ModelSpec model(Settings set) {
        return ModelSpec.resolve("resnet18").toBuilder()
                .name("resnet18-c" + set.channels()[0])
                .channels(set.channels())
                .input(new int[] {3, set.side(), set.side()})
                .build()
                .validate("init-scale");
    }

    /** Σ over trainable parameter tensors of ‖θ_l‖_F (the paper's "sum of norm of all layers"). */
    static double normSum(Network net) {
        double s = 0;
        for (Param p : net.trainableParams()) {
            s += p.value().norm().getFloat();
        }
        return s;
    }

    public static List<Row> run(Settings set, Path out, NDManager manager) {
        LabelledSet[] data = data(set);
        ModelSpec spec = model(set);
        List<Row> rows = new ArrayList<>();
        for (double alpha : set.alphas()) {
            TrainSpec.Builder b = TrainSpec.builder();
            b.optimizer = "sgd";
            b.lr = 0.1;
            b.momentum = 0.9;
            b.weightDecay = 5e-4;
            b.schedule = "cosine";
            b.epochs = set.epochs();
            b.batchSize = set.batch();
            b.loss = "ce";
            b.seed = set.seed();
            TrainSpec t = b.build();
            t.validate("init-scale");
            long t0 = System.nanoTime();
            try (Network net = Network.build(spec, set.seed(), manager)) {
                for (Param p : net.trainableParams()) {
                    if (p.role() == Param.Role.WEIGHT) {
                        p.set(p.value().mul(alpha));
                    }
                }
                double n0 = normSum(net);
                TrainLoop.Result r =
                        new TrainLoop(net, t, data[0], data[1]).quiet(true).fit(false);
                rows.add(new Row(
                        alpha,
                        n0,
                        normSum(net),
                        r.trainAccuracy(),
                        r.testAccuracy(),
                        data[1].size(),
                        r.trainLoss(),
                        (System.nanoTime() - t0) / 1e9));
            }
        }
        write(set, data, spec, out, rows);
        return rows;
    }

    static List<Verdict> verdicts(List<Row> rows) {
        List<Verdict> v = new ArrayList<>();
        int normUp = 0;
        int accDown = 0;
        for (int i = 1; i < rows.size(); i++) {
            normUp += rows.get(i).finalNorm() > rows.get(i - 1).finalNorm() ? 1 : 0;
            accDown += rows.get(i).testAccuracy() <= rows.get(i - 1).testAccuracy() ? 1 : 0;
        }
        int pairs = rows.size() - 1;
        Row first = rows.get(0);
        Row last = rows.get(rows.size() - 1);
        v.add(new Verdict(
                "final Σ‖θ_l‖ grows with α",
                String.format(
                        Locale.ROOT, "%d/%d steps up; %.1f → %.1f", normUp, pairs, first.finalNorm(), last.finalNorm()),
                "larger init, larger norm",
                Verdicts.grade(normUp == pairs, last.finalNorm() > first.finalNorm()),
                "α = " + first.alpha() + " … " + last.alpha()));
        v.add(new Verdict(
                "test accuracy falls with α",
                String.format(
                        Locale.ROOT,
                        "%d/%d steps down; α = %s vs %s: %s",
                        accDown,
                        pairs,
                        first.alpha(),
                        last.alpha(),
                        Verdicts.accuracyPair(
                                first.testAccuracy(), first.testImages(), last.testAccuracy(), last.testImages())),
                "larger init, worse test",
                Verdicts.gradeAbove(first.testAccuracy(), first.testImages(), last.testAccuracy(), last.testImages()),
                "smallest α above the largest by more than 2 binomial SE of the difference on " + first.testImages()
                        + " test images; final-epoch accuracy (the paper's values are lost from the text)"));
        double minTrain = rows.stream().mapToDouble(Row::trainAccuracy).min().orElse(0);
        v.add(new Verdict(
                "100% train accuracy for every α",
                String.format(Locale.ROOT, "min %.3f", minTrain),
                "100%",
                Verdicts.grade(minTrain >= 0.999, minTrain >= 0.9),
                minTrain >= 0.999 ? "all fit" : "CPU scale trains a few epochs only"));
        return v;
    }

    private static void write(Settings set, LabelledSet[] data, ModelSpec spec, Path out, List<Row> rows) {
        double[] a = rows.stream().mapToDouble(Row::alpha).toArray();
        Map<String, double[]> norm = new LinkedHashMap<>();
        norm.put("Σ‖θ_l‖ at init", rows.stream().mapToDouble(Row::initialNorm).toArray());
        norm.put("Σ‖θ_l‖ at the end", rows.stream().mapToDouble(Row::finalNorm).toArray());
        Plots.lines(out.resolve("norm.png"), "Sum of layer norms vs init scale", "α", "Σ‖θ_l‖", a, norm, true);
        Map<String, double[]> acc = new LinkedHashMap<>();
        acc.put("train", rows.stream().mapToDouble(Row::trainAccuracy).toArray());
        acc.put("test", rows.stream().mapToDouble(Row::testAccuracy).toArray());
        Plots.lines(out.resolve("accuracy.png"), "Accuracy vs init scale", "α", "accuracy", a, acc, false);
        Files2.writeString(
                out.resolve("results.json"),
                Specs.toJson(Specs.ordered("settings", set, "data", data[0].name(), "model", spec, "rows", rows))
                        + "\n");
        Map<String, String> summary = new LinkedHashMap<>();
        for (Row r : rows) {
            summary.put(
                    "α = " + r.alpha(),
                    String.format(
                            Locale.ROOT,
                            "Σ‖θ_l‖ %.2f → %.2f; train %.3f, test %.3f (%.0f s)",
                            r.initialNorm(),
                            r.finalNorm(),
                            r.trainAccuracy(),
                            r.testAccuracy(),
                            r.seconds()));
        }
        new StudyReport("Xu & Ziyin, When Does Feature Learning Happen?, Fig. 2: init scale")
                .summary(summary)
                .notes(List.of(String.format(
                        Locale.ROOT,
                        "ResNet-18 structure (blocks 2-2-2-2) with channels %s on %s (%d train / %d test, 3×%d×%d);"
                                + " SGD lr 0.1, momentum 0.9, weight decay 5e-4, cosine over %d epochs, batch %d; every"
                                + " weight tensor × α after the default init. No augmentation. The paper: full width,"
                                + " all of CIFAR-10, 200 epochs with crop/flip augmentation (GPU).",
                        java.util.Arrays.toString(set.channels()),
                        data[0].name(),
                        set.train(),
                        set.test(),
                        set.side(),
                        set.side(),
                        set.epochs(),
                        set.batch())))
                .verdicts(verdicts(rows))
                .write(out);
    }
}
