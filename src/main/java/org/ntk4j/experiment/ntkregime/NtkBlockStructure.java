package org.ntk4j.experiment.ntkregime;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import io.soabase.recordbuilder.core.RecordBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.experiment.support.Paper;
import org.ntk4j.experiment.support.Scale;
import org.ntk4j.experiment.support.Study;
import org.ntk4j.experiment.support.StudyBuilder;
import org.ntk4j.experiment.support.StudyData;
import org.ntk4j.experiment.support.StudyReport;
import org.ntk4j.experiment.support.Verdicts;
import org.ntk4j.experiment.support.Verdicts.Verdict;
import org.ntk4j.model.Network;
import org.ntk4j.report.Files2;
import org.ntk4j.report.Plots;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;
import org.ntk4j.train.TrainListener;
import org.ntk4j.train.TrainLoop;
import org.ntk4j.train.TrainProgress;

/**
 * The class-block structure of the NTK during training: Seleznova &amp; Kutyniok, "NTK Beyond the Infinite-Width
 * Limit", §3.2 Fig. 4 (label awareness Θ̄_c/Θ̄_d and Θ̄_n/Θ̄_d of eq. (23), {@link org.ntk4j.metrics.LabelAwareness})
 * and Seleznova et al., "Neural (Tangent Kernel) Collapse", §3.3 Figs 1, 13–20 (block parameters (γ_d, γ_c, γ_n) of
 * Θ and (κ_d, κ_c, κ_n) of the features kernel Θ^h, Def. 3.1 / Assumption 3.2, {@link
 * org.ntk4j.metrics.BlockStructure}; the C×C and n×n matrices of block norms ‖Θ_ks(X)‖_F; kernel–target alignment
 * ⟨K, YYᵀ⟩_F/(‖K‖_F‖YYᵀ‖_F), eq. (2.63), of the traced kernels). Claimed (qualitatively; the thesis gives no
 * numbers): the NTK becomes label-aware — the gap Θ̄_c/Θ̄_d − Θ̄_n/Θ̄_d and the alignment grow, fastest early; the
 * kernels acquire the block order γ_d &gt; γ_c &gt; γ_n (κ likewise); the diagonal output blocks dominate.
 */
public final class NtkBlockStructure {

    /**
     * Settings: the grid, per-class sizes of the training subset and of the kernel sample (m), MLP depth and width,
     * SGD (Nesterov 0.9, weight decay 5e-4) learning rate, batch and epochs, kernels at {@code probeEpochs}.
     */
    @RecordBuilder
    @RecordBuilder.Options(builderMode = RecordBuilder.BuilderMode.STAGED)
    public record Settings(
            CollapseSetup.Pair[] pairs,
            int trainPerClass,
            int kernelPerClass,
            int mlpDepth,
            int mlpWidth,
            double lr,
            int batch,
            int epochs,
            int[] probeEpochs,
            long seed) {
        public static Settings of(Scale scale) {
            return scale.choose(Settings::quick, Settings::cpu, Settings::paper);
        }

        public static Settings quick() {
            return NtkBlockStructureSettingsBuilder.builder(paper())
                    .pairs(new CollapseSetup.Pair[] {new CollapseSetup.Pair("mlp", "mnist-subset")})
                    .trainPerClass(30)
                    .kernelPerClass(3)
                    .mlpDepth(3)
                    .mlpWidth(16)
                    .batch(60)
                    .epochs(6)
                    .probeEpochs(new int[] {0, 1, 3, 6})
                    .build();
        }

        public static Settings cpu() {
            List<CollapseSetup.Pair> pairs = new ArrayList<>(List.of(
                    new CollapseSetup.Pair("mlp", "mnist"),
                    new CollapseSetup.Pair("mlp", "fashion-mnist"),
                    new CollapseSetup.Pair("mlp", "cifar10"),
                    // ResNet-20 at half the width (stage widths 8/16/32): the full width's training and
                    // kernels cost several times more per epoch on 2 cores
                    new CollapseSetup.Pair("resnet20-w8", "mnist", new double[] {0.02}, 20, 100),
                    new CollapseSetup.Pair("resnet20-w8", "fashion-mnist", new double[] {0.02}, 20, 100)));
            if (StudyData.fetched("cifar10")) { // the thesis's ResNet-20 on CIFAR-10, when the data is here
                pairs.add(new CollapseSetup.Pair("resnet20-w8", "cifar10", new double[] {0.02}, 20, 100));
            }
            return NtkBlockStructureSettingsBuilder.builder(paper())
                    .pairs(pairs.toArray(CollapseSetup.Pair[]::new))
                    .trainPerClass(100)
                    .kernelPerClass(4)
                    .mlpDepth(5)
                    .mlpWidth(64)
                    .lr(0.01)
                    .epochs(30)
                    .probeEpochs(new int[] {0, 1, 2, 5, 10, 20, 30})
                    .build();
        }

        public static Settings paper() {
            return NtkBlockStructureSettingsBuilder.builder()
                    .pairs(CollapseSetup.thesisGrid(new CollapseSetup.Pair("mlp", "mnist")))
                    .trainPerClass(0)
                    .kernelPerClass(12)
                    .mlpDepth(20)
                    .mlpWidth(300)
                    .lr(0.05)
                    .batch(120)
                    .epochs(400)
                    .probeEpochs(new int[] {0, 1, 2, 5, 10, 20, 50, 100, 200, 400})
                    .seed(0)
                    .build();
        }
    }

    /** The series of one run (one entry per probe epoch) and its end-of-training norm matrices. */
    public record Run(
            String model,
            String dataset,
            String datasetUsed,
            double[] epochs,
            double[] cOverD,
            double[] nOverD,
            double[] gammaD,
            double[] gammaC,
            double[] gammaN,
            double[] kappaD,
            double[] kappaC,
            double[] kappaN,
            double[] alignment,
            double[] featuresAlignment,
            double[] outputDominance,
            double[] featureDominance,
            double trainLoss,
            double testAccuracy) {
        /** Θ̄_c/Θ̄_d − Θ̄_n/Θ̄_d at probe k. */
        public double gap(int k) {
            return cOverD[k] - nOverD[k];
        }
    }

    public record Result(List<Run> runs, List<Verdict> verdicts) {}

    private NtkBlockStructure() {}

    public static final Study STUDY = StudyBuilder.builder()
            .name("block-structure")
            .paper(Paper.SELEZNOVA_THESIS)
            .figures("§3.2 Fig. 4, §3.3 Figs 1, 13-20")
            .claim("label awareness and class-block structure of the NTK during training (MLP, ResNet, VGG, DenseNet)")
            .summary(
                    "Seleznova & Kutyniok 2022 Fig. 4, Seleznova et al. 2023 Figs 1, 13-20: label awareness and class-block"
                            + " structure (gamma, kappa, block norms, alignment) of the NTK during training, MLP and ResNet-20 (half width)"
                            + " (~2 min)")
            .runner((scale, out, manager) -> {
                Result r = run(Settings.of(scale), out, manager);
                return table(r) + "\n" + Verdicts.text(r.verdicts());
            })
            .build();

    public static Result run(Settings set, Path out, NDManager manager) {
        try {
            java.nio.file.Files.createDirectories(out);
        } catch (java.io.IOException e) {
            throw new org.ntk4j.UserException(out + ": cannot create the output folder (" + e.getMessage() + ")");
        }
        List<Run> runs = new ArrayList<>();
        for (CollapseSetup.Pair p : set.pairs()) {
            boolean mlp = "mlp".equals(p.model());
            int perClass = p.trainPerClassOr(set.trainPerClass());
            int epochs = p.epochsOr(set.epochs());
            double lr = p.lrsOr(new double[] {set.lr()})[0];
            CollapseSetup.Data data = CollapseSetup.load(p.dataset(), mlp, perClass, perClass, set.seed());
            LabelledSet kset = CollapseSetup.kernelSet(data.train(), set.kernelPerClass(), set.seed());
            ModelSpec spec = CollapseSetup.model(p.model(), data.train(), set.mlpDepth(), set.mlpWidth());
            String tag = p.model() + "-" + p.dataset();
            List<double[]> rows = new ArrayList<>(); // epoch, c/d, n/d, γ, κ, A, A^h, dominance
            List<CollapseSetup.Kernels> ends = new ArrayList<>();
            TrainLoop.Result res;
            try (NDManager m = manager.newSubManager();
                    Network net = Network.build(spec, set.seed(), m, DataType.FLOAT32)) {
                TrainListener probe = new TrainListener() {
                    void record(Network n, int epoch) {
                        CollapseSetup.Kernels k = CollapseSetup.kernels(n, kset);
                        rows.add(new double[] {
                            epoch,
                            k.awareness().cOverD(),
                            k.awareness().nOverD(),
                            k.theta().gammaD(),
                            k.theta().gammaC(),
                            k.theta().gammaN(),
                            k.features().gammaD(),
                            k.features().gammaC(),
                            k.features().gammaN(),
                            k.alignment(),
                            k.featuresAlignment(),
                            CollapseSetup.diagonalDominance(k.outputNorms()),
                            CollapseSetup.diagonalDominance(k.featureNorms())
                        });
                        if (epoch == 0 || epoch == epochs) {
                            ends.add(k);
                        }
                    }

                    @Override
                    public void onStart(TrainProgress tp) {
                        record(tp.net(), 0);
                    }

                    @Override
                    public void onEpoch(TrainProgress tp, TrainLoop.EpochRecord e) {
                        // the grid's probe epochs up to this pair's training length, and its last epoch
                        if (e.epoch() == epochs
                                || Arrays.stream(set.probeEpochs()).anyMatch(x -> x == e.epoch() && x > 0)) {
                            record(tp.net(), e.epoch());
                        }
                    }
                };
                TrainLoop trainer = new TrainLoop(
                                net, CollapseSetup.sgd(lr, set.batch(), epochs, set.seed()), data.train(), data.test())
                        .quiet(true);
                trainer.addListener(probe);
                try {
                    res = trainer.fit(false);
                } catch (org.ntk4j.UserException diverged) {
                    // one diverging pair (too large a rate for it) must not lose the rest of the grid
                    System.err.println(tag + ": " + diverged.getMessage() + "; skipped");
                    continue;
                }
            }
            Run run = new Run(
                    p.model(),
                    p.dataset(),
                    data.used(),
                    col(rows, 0),
                    col(rows, 1),
                    col(rows, 2),
                    col(rows, 3),
                    col(rows, 4),
                    col(rows, 5),
                    col(rows, 6),
                    col(rows, 7),
                    col(rows, 8),
                    col(rows, 9),
                    col(rows, 10),
                    col(rows, 11),
                    col(rows, 12),
                    res.trainLoss(),
                    res.testAccuracy());
            runs.add(run);
            plotRun(out, tag, run, ends);
        }
        Result r = new Result(runs, verdicts(runs));
        write(set, out, r);
        return r;
    }

    private static double[] col(List<double[]> rows, int c) {
        return rows.stream().mapToDouble(r -> r[c]).toArray();
    }

    static List<Verdict> verdicts(List<Run> runs) {
        List<Verdict> v = new ArrayList<>();
        for (Run r : runs) {
            String at = r.model() + "/" + r.datasetUsed() + ": ";
            int last = r.epochs().length - 1;
            double g0 = r.gap(0);
            double g1 = r.gap(last);
            v.add(new Verdict(
                    at + "Θ̄c/Θ̄d − Θ̄n/Θ̄d grows",
                    String.format(Locale.ROOT, "%.3f → %.3f", g0, g1),
                    "grows (Fig. 4c–e)",
                    Verdicts.grade(g1 > 2 * g0 && g1 > g0 + 0.05, g1 > g0, g0, g1),
                    notComputed(g0, g1)
                            + String.format(
                                    Locale.ROOT,
                                    "Θ̄c/Θ̄d %.3f → %.3f, Θ̄n/Θ̄d %.3f → %.3f; reproduced at ≥2× and +0.05",
                                    r.cOverD()[0],
                                    r.cOverD()[last],
                                    r.nOverD()[0],
                                    r.nOverD()[last])));
            // fastest early: half the rise by a quarter of training
            double quarter = r.epochs()[last] / 4;
            double byQuarter = Double.NaN;
            double probeEpoch = 0;
            for (int k = 0; k <= last; k++) {
                if (r.epochs()[k] <= quarter) {
                    byQuarter = (r.gap(k) - g0) / (g1 - g0);
                    probeEpoch = r.epochs()[k];
                }
            }
            v.add(new Verdict(
                    at + "structure forms early",
                    String.format(Locale.ROOT, "%.0f%% of the gap's rise by epoch %.0f", 100 * byQuarter, probeEpoch),
                    "fastest early",
                    Verdicts.grade(g1 > g0 && byQuarter >= 0.5, g1 > g0 && byQuarter >= 0.25, g0, g1, byQuarter),
                    notComputed(g0, g1, byQuarter) + "reproduced when ≥ half the rise happens in the first quarter"));
            double a0 = r.alignment()[0];
            double a1 = r.alignment()[last];
            double h0 = r.featuresAlignment()[0];
            double h1 = r.featuresAlignment()[last];
            v.add(new Verdict(
                    at + "alignment with YYᵀ grows (Θ, Θ^h)",
                    String.format(Locale.ROOT, "%.3f → %.3f; %.3f → %.3f", a0, a1, h0, h1),
                    "grows (Fig. 1e)",
                    Verdicts.grade(a1 > a0 && h1 > h0, a1 > a0 || h1 > h0, a0, a1, h0, h1),
                    notComputed(a0, a1, h0, h1) + "traced kernels, uncentred alignment"));
            boolean g = r.gammaD()[last] > r.gammaC()[last] && r.gammaC()[last] > r.gammaN()[last];
            boolean k = r.kappaD()[last] > r.kappaC()[last] && r.kappaC()[last] > r.kappaN()[last];
            v.add(new Verdict(
                    at + "block order γd > γc > γn, κd > κc > κn",
                    String.format(
                            Locale.ROOT,
                            "γ %.3g/%.3g/%.3g; κ %.3g/%.3g/%.3g",
                            r.gammaD()[last],
                            r.gammaC()[last],
                            r.gammaN()[last],
                            r.kappaD()[last],
                            r.kappaC()[last],
                            r.kappaN()[last]),
                    "Def. 3.1 order",
                    Verdicts.grade(
                            g && k,
                            g || k,
                            r.gammaD()[last],
                            r.gammaC()[last],
                            r.gammaN()[last],
                            r.kappaD()[last],
                            r.kappaC()[last],
                            r.kappaN()[last]),
                    notComputed(
                                    r.gammaD()[last],
                                    r.gammaC()[last],
                                    r.gammaN()[last],
                                    r.kappaD()[last],
                                    r.kappaC()[last],
                                    r.kappaN()[last])
                            + "end of training, kernel sample of m per class"));
            v.add(new Verdict(
                    at + "diagonal blocks dominate (C×C, n×n)",
                    String.format(Locale.ROOT, "%.2f× / %.2f×", r.outputDominance()[last], r.featureDominance()[last]),
                    "Θ_kk dominate; some Θ^h_ks not small",
                    Verdicts.grade(
                            r.outputDominance()[last] > 2,
                            r.outputDominance()[last] > 1,
                            r.outputDominance()[last],
                            r.featureDominance()[last]),
                    notComputed(r.outputDominance()[last], r.featureDominance()[last])
                            + "mean diagonal over mean off-diagonal block norm at the end; reproduced above 2×"));
        }
        return v;
    }

    /** The reason's prefix when a measurement a verdict needs is NaN (then graded not computed), else "". */
    static String notComputed(double... measured) {
        return Verdicts.allFinite(measured)
                ? ""
                : "not computed: a measurement it needs is NaN (a kernel with non-finite entries); ";
    }

    static String table(Result r) {
        StringBuilder t = new StringBuilder();
        for (Run w : r.runs()) {
            t.append(String.format(
                    Locale.ROOT,
                    "%s on %s%s: train loss %.4g, test accuracy %.3f%n",
                    w.model(),
                    w.datasetUsed(),
                    w.datasetUsed().equals(w.dataset()) ? "" : " (substituted for " + w.dataset() + ")",
                    w.trainLoss(),
                    w.testAccuracy()));
            t.append(String.format(
                    "  %-6s %7s %7s %9s %9s %9s %9s %9s %9s %6s %6s%n",
                    "epoch", "Θc/Θd", "Θn/Θd", "γd", "γc", "γn", "κd", "κc", "κn", "A", "A^h"));
            for (int k = 0; k < w.epochs().length; k++) {
                t.append(String.format(
                        Locale.ROOT,
                        "  %-6.0f %7.3f %7.3f %9.3g %9.3g %9.3g %9.3g %9.3g %9.3g %6.3f %6.3f%n",
                        w.epochs()[k],
                        w.cOverD()[k],
                        w.nOverD()[k],
                        w.gammaD()[k],
                        w.gammaC()[k],
                        w.gammaN()[k],
                        w.kappaD()[k],
                        w.kappaC()[k],
                        w.kappaN()[k],
                        w.alignment()[k],
                        w.featuresAlignment()[k]));
            }
        }
        return t.toString();
    }

    private static void plotRun(Path out, String tag, Run r, List<CollapseSetup.Kernels> ends) {
        Map<String, double[]> s = new LinkedHashMap<>();
        s.put("Θ̄c/Θ̄d", r.cOverD());
        s.put("Θ̄n/Θ̄d", r.nOverD());
        s.put("A(Θ, YYᵀ)", r.alignment());
        s.put("A(Θ^h, YYᵀ)", r.featuresAlignment());
        Plots.lines(
                out.resolve(tag + "-awareness.png"),
                r.model() + " on " + r.datasetUsed() + ": label awareness and alignment",
                "epoch",
                "ratio",
                r.epochs(),
                s,
                false);
        String[] when = {"init", "end"};
        for (int i = 0; i < ends.size() && i < 2; i++) {
            CollapseSetup.Kernels k = ends.get(i);
            Plots.heatmap(
                    out.resolve(tag + "-ntk-" + when[i] + ".png"), "traced Θ (class-ordered), " + when[i], k.traced());
            Plots.heatmap(
                    out.resolve(tag + "-features-ntk-" + when[i] + ".png"),
                    "traced Θ^h (class-ordered), " + when[i],
                    k.featuresTraced());
            Plots.heatmap(
                    out.resolve(tag + "-output-norms-" + when[i] + ".png"),
                    "C×C ‖Θ_ks‖_F, " + when[i],
                    k.outputNorms());
            Plots.heatmap(
                    out.resolve(tag + "-feature-norms-" + when[i] + ".png"),
                    "n×n ‖Θ^h_ks‖_F, " + when[i],
                    k.featureNorms());
        }
    }

    private static void write(Settings set, Path out, Result r) {
        Files2.writeString(
                out.resolve("results.json"),
                Specs.toJson(Specs.ordered("settings", set, "runs", r.runs(), "verdicts", r.verdicts())) + "\n");
        Map<String, String> summary = new LinkedHashMap<>();
        List<String> subs = new ArrayList<>();
        for (Run w : r.runs()) {
            int last = w.epochs().length - 1;
            summary.put(
                    w.model() + " / " + w.datasetUsed(),
                    String.format(
                            Locale.ROOT,
                            "gap Θ̄c/Θ̄d − Θ̄n/Θ̄d %.3f → %.3f; A %.3f → %.3f; test acc %.3f",
                            w.gap(0),
                            w.gap(last),
                            w.alignment()[0],
                            w.alignment()[last],
                            w.testAccuracy()));
            if (!w.datasetUsed().equals(w.dataset())) {
                subs.add(w.dataset() + " → " + w.datasetUsed());
            }
        }
        new StudyReport(
                        "Label awareness and block structure of the NTK during training (Seleznova & Kutyniok 2022 Fig. 4;"
                                + " Seleznova et al. 2023 Figs 1, 13–20)")
                .summary(summary)
                .notes(List.of(
                        String.format(
                                Locale.ROOT,
                                "Grid %s; %s per class of each training set (paper: full sets), kernels on m = %d per"
                                        + " class (paper 12, VGG 4), MLP depth %d width %d (n = %d; paper §3.2: L = 20,"
                                        + " M = 300); MSE, SGD Nesterov 0.9, weight decay 5e-4, lr %s, batch %d"
                                        + " (shuffled, not exactly class-balanced), %d epochs (paper 400).",
                                Arrays.toString(set.pairs()),
                                set.trainPerClass() > 0 ? String.valueOf(set.trainPerClass()) : "all",
                                set.kernelPerClass(),
                                set.mlpDepth(),
                                set.mlpWidth(),
                                set.mlpWidth(),
                                set.lr(),
                                set.batch(),
                                set.epochs()),
                        CollapseSetup.CONV_NOTE,
                        subs.isEmpty()
                                ? "Every dataset of the grid was on this machine."
                                : "Not on this machine, replaced by the bundled MNIST subset: " + subs + "."))
                .verdicts(r.verdicts())
                .write(out);
    }
}
