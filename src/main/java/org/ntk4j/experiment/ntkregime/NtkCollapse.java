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
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.MatrixFeatures_DDRM;
import org.ejml.dense.row.NormOps_DDRM;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.experiment.support.Paper;
import org.ntk4j.experiment.support.Scale;
import org.ntk4j.experiment.support.Study;
import org.ntk4j.experiment.support.StudyBuilder;
import org.ntk4j.experiment.support.StudyData;
import org.ntk4j.experiment.support.StudyReport;
import org.ntk4j.experiment.support.Tables;
import org.ntk4j.experiment.support.Verdicts;
import org.ntk4j.experiment.support.Verdicts.Verdict;
import org.ntk4j.metrics.BlockStructure;
import org.ntk4j.metrics.NeuralCollapse;
import org.ntk4j.model.Network;
import org.ntk4j.model.TangentLayer;
import org.ntk4j.probe.NeuralCollapseProbe;
import org.ntk4j.report.Files2;
import org.ntk4j.report.Plots;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;
import org.ntk4j.theory.BlockNtk;
import org.ntk4j.train.TrainLoop;

/**
 * Seleznova, Weitzner, Giryes, Kutyniok &amp; Chou, "Neural (Tangent Kernel) Collapse" (Seleznova, NTK thesis §3.3),
 * Figs 2–12: neural collapse of the penultimate features against the learning rate, measured on trained networks, with
 * the invariant of the block-structured gradient flow,
 * <pre>
 *   E = (1/m)WᵀW − (1/μ_class) H₁(I − α11ᵀ)H₁ᵀ − (1/μ_single) H₂H₂ᵀ                          (eq. (26))
 *   μ_single = κ_d − κ_c,  μ_class = μ_single + m(κ_c − κ_n),  α = κ_n m/(μ_class + Cκ_n m)
 * </pre>
 * ({@link BlockNtk#invariant}) with (κ_d, κ_c, κ_n) estimated from the features kernel Θ^h of the same network
 * ({@link BlockStructure}), H₁ the class means and H₂ = (1/√m)H(I_C ⊗ Q̃₂) of a class-balanced batch of m per class
 * ({@link BlockNtk#decomposeFeatures}). Reported: ‖E‖_F, its size relative to ‖WᵀW/m‖_F, and the invariant
 * alignment cos∠(WᵀW/m, H-terms) (eq. (28) with the "+" sign on the H₂ term that E = 0 implies; the thesis prints
 * "−"); NC1–NC4 by {@link NeuralCollapse}. Claimed: most well-generalising networks collapse; the invariant
 * condition (28) holds (alignment near 1, small ‖E‖) only for the collapsed ones.
 */
public final class NtkCollapse {
    /** Settings: the grid, learning rates, training and measurement sizes. */
    @RecordBuilder
    @RecordBuilder.Options(builderMode = RecordBuilder.BuilderMode.STAGED)
    public record Settings(
            CollapseSetup.Pair[] pairs,
            double[] lrs,
            int trainPerClass,
            int testPerClass,
            int batchPerClass,
            int kernelPerClass,
            int mlpDepth,
            int mlpWidth,
            int batch,
            int epochs,
            long seed) {
        public static Settings of(Scale scale) {
            return scale.choose(Settings::quick, Settings::cpu, Settings::paper);
        }

        public static Settings quick() {
            return NtkCollapseSettingsBuilder.builder(paper())
                    .pairs(new CollapseSetup.Pair[] {new CollapseSetup.Pair("mlp", "mnist-subset")})
                    .lrs(new double[] {0.003, 0.1})
                    .trainPerClass(30)
                    .testPerClass(20)
                    .batchPerClass(6)
                    .kernelPerClass(3)
                    .mlpDepth(3)
                    .mlpWidth(16)
                    .batch(60)
                    .epochs(15)
                    .build();
        }

        public static Settings cpu() {
            List<CollapseSetup.Pair> pairs = new ArrayList<>(List.of(
                    new CollapseSetup.Pair("mlp", "mnist"),
                    new CollapseSetup.Pair("mlp", "fashion-mnist"),
                    new CollapseSetup.Pair("mlp", "cifar10"),
                    // ResNet-20 at half the width (stage widths 8/16/32) on three rates, 20 epochs
                    new CollapseSetup.Pair("resnet20-w8", "mnist", new double[] {0.002, 0.006, 0.02}, 20, 100)));
            if (StudyData.fetched("cifar10")) { // the thesis's Fig. 8 (ResNet-20 on CIFAR-10), when the data is here
                pairs.add(new CollapseSetup.Pair("resnet20-w8", "cifar10", new double[] {0.002, 0.006, 0.02}, 20, 100));
            }
            return NtkCollapseSettingsBuilder.builder(paper())
                    .pairs(pairs.toArray(CollapseSetup.Pair[]::new))
                    .lrs(new double[] {0.001, 0.003, 0.01, 0.03, 0.1, 0.3})
                    .trainPerClass(100)
                    .testPerClass(100)
                    .kernelPerClass(4)
                    .mlpWidth(64)
                    .epochs(60)
                    .build();
        }

        public static Settings paper() {
            return NtkCollapseSettingsBuilder.builder()
                    .pairs(CollapseSetup.thesisGrid())
                    .lrs(logGrid(-4, 0.25, 30))
                    .trainPerClass(0)
                    .testPerClass(0)
                    .batchPerClass(12)
                    .kernelPerClass(12)
                    .mlpDepth(4)
                    .mlpWidth(256)
                    .batch(120)
                    .epochs(400)
                    .seed(0)
                    .build();
        }
    }

    /** {@code k} learning rates log-spaced over [10^a, 10^b] (§3.3: 30 values in [1e-4, 10^0.25]). */
    static double[] logGrid(double a, double b, int k) {
        double[] v = new double[k];
        for (int i = 0; i < k; i++) {
            v[i] = Math.pow(10, a + (b - a) * i / (k - 1));
        }
        return v;
    }

    /** One trained network: NC at init and end, the invariant at init and end, accuracy. */
    public record Row(
            String model,
            String dataset,
            double lr,
            double trainLoss,
            double testAccuracy,
            NeuralCollapse ncInit,
            NeuralCollapse nc,
            double invariantNormInit,
            double invariantNorm,
            double invariantRelative,
            double invariantAlignment,
            double featuresAlignment,
            double[] kappa) {}

    public record Result(List<Row> rows, List<Verdict> verdicts) {}

    private NtkCollapse() {}

    public static final Study STUDY = StudyBuilder.builder()
            .name("ntk-collapse")
            .paper(Paper.SELEZNOVA_THESIS)
            .figures("§3.3 Figs 2-12")
            .claim("neural collapse NC1-NC4 and the invariant E against the learning rate")
            .summary(
                    "Seleznova et al. 2023 Figs 2-12: NC1-NC4 and the invariant E (norm, alignment) of trained nets against the"
                            + " learning rate, MLP and ResNet-20 (half width) (~2 min)")
            .runner((scale, out, manager) -> {
                Result r = run(Settings.of(scale), out, manager);
                return table(r) + "\n" + Verdicts.text(r.verdicts());
            })
            .build();

    /** The measured invariant: {‖E‖_F, ‖E‖_F/‖WᵀW/m‖_F, alignment, κ_d, κ_c, κ_n, A(Θ^h, YYᵀ)}. */
    static double[] invariant(Network net, LabelledSet batch, LabelledSet kset) {
        int classes = batch.numClasses();
        int m = batch.size() / classes;
        CollapseSetup.Kernels k = CollapseSetup.kernels(net, kset);
        BlockStructure f = k.features();
        double[][] h = NeuralCollapseProbe.features(net.features(), batch); // [N][n], class-ordered
        TangentLayer cl = NeuralCollapseProbe.classifier(net);
        double[][] w = NeuralCollapseProbe.matrix(cl.weight().value(), cl.weightScale());
        int n = h[0].length;
        DMatrixRMaj hm = new DMatrixRMaj(n, h.length);
        for (int i = 0; i < h.length; i++) {
            for (int r = 0; r < n; r++) {
                hm.set(r, i, h[i][r]);
            }
        }
        DMatrixRMaj[] parts = BlockNtk.decomposeFeatures(hm, classes, m);
        DMatrixRMaj wm = new DMatrixRMaj(w);
        BlockNtk.State s = new BlockNtk.State(wm, parts[0], parts[1], new DMatrixRMaj(classes, 1));
        DMatrixRMaj e = BlockNtk.invariant(s, f.gammaD(), f.gammaC(), f.gammaN(), m);
        DMatrixRMaj lhs = new DMatrixRMaj(n, n);
        CommonOps_DDRM.multTransA(1.0 / m, wm, wm, lhs);
        DMatrixRMaj rhs = new DMatrixRMaj(n, n);
        CommonOps_DDRM.subtract(lhs, e, rhs); // the H-terms: E = lhs − rhs
        // EJML's normF returns 0 for a matrix of NaNs: a NaN κ (non-finite Θ^h) must read NaN, not a zero invariant
        double en = MatrixFeatures_DDRM.hasUncountable(e) ? Double.NaN : NormOps_DDRM.normF(e);
        double ln = NormOps_DDRM.normF(lhs);
        double dot = 0;
        for (int i = 0; i < lhs.getNumElements(); i++) {
            dot += lhs.get(i) * rhs.get(i);
        }
        return new double[] {
            en, en / ln, dot / (ln * NormOps_DDRM.normF(rhs)), f.gammaD(), f.gammaC(), f.gammaN(), k.featuresAlignment()
        };
    }

    static NeuralCollapse collapse(Network net, LabelledSet batch) {
        double[][] h = NeuralCollapseProbe.features(net.features(), batch);
        TangentLayer cl = NeuralCollapseProbe.classifier(net);
        double[][] w = NeuralCollapseProbe.matrix(cl.weight().value(), cl.weightScale());
        double[] b =
                cl.bias() == null ? null : NeuralCollapseProbe.values(cl.bias().value(), cl.biasScale());
        return NeuralCollapse.of(h, batch.labels(), w, b);
    }

    public static Result run(Settings set, Path out, NDManager manager) {
        try {
            java.nio.file.Files.createDirectories(out);
        } catch (java.io.IOException e) {
            throw new org.ntk4j.UserException(out + ": cannot create the output folder (" + e.getMessage() + ")");
        }
        List<Row> rows = new ArrayList<>();
        for (CollapseSetup.Pair p : set.pairs()) {
            boolean mlp = "mlp".equals(p.model());
            int epochs = p.epochsOr(set.epochs());
            CollapseSetup.Data data = CollapseSetup.load(
                    p.dataset(), mlp, p.trainPerClassOr(set.trainPerClass()), set.testPerClass(), set.seed());
            LabelledSet batch = CollapseSetup.kernelSet(data.train(), set.batchPerClass(), set.seed() + 3);
            LabelledSet kset = CollapseSetup.kernelSet(data.train(), set.kernelPerClass(), set.seed() + 4);
            ModelSpec spec = CollapseSetup.model(p.model(), data.train(), set.mlpDepth(), set.mlpWidth());
            for (double lr : p.lrsOr(set.lrs())) {
                try (NDManager m = manager.newSubManager();
                        Network net = Network.build(spec, set.seed(), m, DataType.FLOAT32)) {
                    NeuralCollapse nc0 = collapse(net, batch);
                    double[] inv0 = invariant(net, batch, kset);
                    TrainLoop.Result res;
                    try {
                        res = new TrainLoop(
                                        net,
                                        CollapseSetup.sgd(lr, set.batch(), epochs, set.seed()),
                                        data.train(),
                                        data.test())
                                .quiet(true)
                                .fit(false);
                    } catch (org.ntk4j.UserException diverged) {
                        continue; // too large a rate: no trained network to measure (reported by its absence)
                    }
                    NeuralCollapse nc = collapse(net, batch);
                    double[] inv = invariant(net, batch, kset);
                    rows.add(new Row(
                            p.model(),
                            data.used(),
                            lr,
                            res.trainLoss(),
                            res.testAccuracy(),
                            nc0,
                            nc,
                            inv0[0],
                            inv[0],
                            inv[1],
                            inv[2],
                            inv[6],
                            new double[] {inv[3], inv[4], inv[5]}));
                }
            }
        }
        Result r = new Result(rows, verdicts(rows));
        write(set, out, r);
        return r;
    }

    /** Spearman rank correlation. */
    static double spearman(double[] a, double[] b) {
        return pearson(ranks(a), ranks(b));
    }

    private static double[] ranks(double[] v) {
        Integer[] idx = new Integer[v.length];
        for (int i = 0; i < v.length; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, (x, y) -> Double.compare(v[x], v[y]));
        double[] r = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            r[idx[i]] = i;
        }
        return r;
    }

    private static double pearson(double[] a, double[] b) {
        double ma = Arrays.stream(a).average().orElse(0);
        double mb = Arrays.stream(b).average().orElse(0);
        double ab = 0;
        double aa = 0;
        double bb = 0;
        for (int i = 0; i < a.length; i++) {
            ab += (a[i] - ma) * (b[i] - mb);
            aa += (a[i] - ma) * (a[i] - ma);
            bb += (b[i] - mb) * (b[i] - mb);
        }
        return ab / Math.sqrt(aa * bb);
    }

    /** Whether a run trained to something measurable: finite NC2, accuracy above chance. */
    static boolean trained(Row r) {
        return Double.isFinite(r.nc().nc2())
                && r.testAccuracy() > 0.15; // 1.5× chance for the ten classes of every dataset of the grid
    }

    /** Whether the run's invariant E was computed (finite κ of Θ^h, norm and alignment). */
    static boolean invariantComputed(Row r) {
        return Verdicts.allFinite(r.invariantNorm(), r.invariantRelative(), r.invariantAlignment());
    }

    static List<Verdict> verdicts(List<Row> rows) {
        List<Verdict> v = new ArrayList<>();
        for (String key :
                rows.stream().map(r -> r.model() + "/" + r.dataset()).distinct().toList()) {
            // a run whose features died (every h = 0: chance accuracy, NaN NC2 and alignment) has nothing to rank
            List<Row> rs = rows.stream()
                    .filter(r -> (r.model() + "/" + r.dataset()).equals(key))
                    .filter(NtkCollapse::trained)
                    .toList();
            if (rs.size() < 2) {
                v.add(new Verdict(
                        key + ": neural collapse and the invariant",
                        String.format(
                                Locale.ROOT,
                                "%d of %d rates trained",
                                rs.size(),
                                rows.stream()
                                        .filter(r -> (r.model() + "/" + r.dataset()).equals(key))
                                        .count()),
                        "NC and (28) against the rate",
                        Verdicts.Outcome.NOT_COMPUTED,
                        "not computed: fewer than 2 rates trained above 1.5× chance with finite NC2"));
                continue;
            }
            Row best = rs.stream()
                    .max((a, b) -> Double.compare(a.testAccuracy(), b.testAccuracy()))
                    .orElseThrow();
            double nc1Drop = best.ncInit().nc1Papyan() / best.nc().nc1Papyan();
            v.add(new Verdict(
                    key + ": best model collapses (NC1)",
                    String.format(
                            Locale.ROOT,
                            "lr %.3g: NC1 %.3g → %.3g; NC2 %.3f, NC3 %.3f, NC4 %.3f",
                            best.lr(),
                            best.ncInit().nc1Papyan(),
                            best.nc().nc1Papyan(),
                            best.nc().nc2(),
                            best.nc().nc3(),
                            best.nc().nc4()),
                    "high accuracy ⇒ NC",
                    Verdicts.grade(nc1Drop > 10 && best.nc().nc4() < 0.05, nc1Drop > 2),
                    String.format(
                            Locale.ROOT,
                            "test acc %.3f; NC1 = tr(ΣW ΣB⁺)/C fell %.1f×; reproduced at ≥10× with" + " NC4 < 0.05",
                            best.testAccuracy(),
                            nc1Drop)));
            // the invariant needs κ from Θ^h: rank only the runs where it was computed, and say so otherwise
            List<Row> ri = rs.stream().filter(NtkCollapse::invariantComputed).toList();
            double[] nc1i = ri.stream().mapToDouble(r -> r.nc().nc1Papyan()).toArray();
            double[] align = ri.stream().mapToDouble(Row::invariantAlignment).toArray();
            double[] rel = ri.stream().mapToDouble(Row::invariantRelative).toArray();
            boolean enough = ri.size() >= 2;
            String missing = rs.size() == ri.size()
                    ? ""
                    : String.format(
                            Locale.ROOT,
                            "; E not computed for %d of %d rates (NaN κ of Θ^h)",
                            rs.size() - ri.size(),
                            rs.size());
            double sa = enough ? spearman(align, nc1i) : Double.NaN;
            double sr = enough ? spearman(rel, nc1i) : Double.NaN;
            v.add(new Verdict(
                    key + ": invariant alignment higher for NC models",
                    String.format(Locale.ROOT, "Spearman(alignment, NC1) %.2f over %d rates", sa, ri.size()),
                    "(28) holds only with NC",
                    enough ? Verdicts.grade(sa <= -0.6, sa < 0, sa) : Verdicts.Outcome.NOT_COMPUTED,
                    (enough ? "" : "not computed: fewer than 2 rates with a computed E; ")
                            + String.format(Locale.ROOT, "alignment %s", Tables.fmt(align))
                            + missing));
            v.add(new Verdict(
                    key + ": ‖E‖ smaller for NC models",
                    String.format(Locale.ROOT, "Spearman(‖E‖/‖WᵀW/m‖, NC1) %.2f", sr),
                    "small invariant ⇔ NC",
                    enough ? Verdicts.grade(sr >= 0.6, sr > 0, sr) : Verdicts.Outcome.NOT_COMPUTED,
                    (enough ? "" : "not computed: fewer than 2 rates with a computed E; ")
                            + String.format(Locale.ROOT, "relative ‖E‖ %s", Tables.fmt(rel))
                            + missing));
            double[] nc1 = rs.stream().mapToDouble(r -> r.nc().nc1Papyan()).toArray();
            double[] acc = rs.stream().mapToDouble(Row::testAccuracy).toArray();
            double sacc = spearman(acc, nc1);
            v.add(new Verdict(
                    key + ": accuracy and NC go together",
                    String.format(Locale.ROOT, "Spearman(test acc, NC1) %.2f", sacc),
                    "most accurate nets collapse",
                    Verdicts.grade(sacc <= -0.6, sacc < 0),
                    "across the learning-rate grid (Fig. 2f–h)"));
        }
        return v;
    }

    static String table(Result r) {
        StringBuilder t = new StringBuilder(String.format(
                "%-8s %-14s %8s %9s %7s %9s %7s %7s %7s %10s %9s %7s %7s%n",
                "model", "dataset", "lr", "loss", "acc", "NC1", "NC2", "NC3", "NC4", "‖E‖", "‖E‖rel", "align",
                "A(Θh)"));
        for (Row w : r.rows()) {
            t.append(String.format(
                    Locale.ROOT,
                    "%-8s %-14s %8.3g %9.3g %7.3f %9.3g %7.3f %7.3f %7.3f %10.3g %9.3g %7.3f %7.3f%n",
                    w.model(),
                    w.dataset(),
                    w.lr(),
                    w.trainLoss(),
                    w.testAccuracy(),
                    w.nc().nc1Papyan(),
                    w.nc().nc2(),
                    w.nc().nc3(),
                    w.nc().nc4(),
                    w.invariantNorm(),
                    w.invariantRelative(),
                    w.invariantAlignment(),
                    w.featuresAlignment()));
        }
        return t.toString();
    }

    private static void write(Settings set, Path out, Result r) {
        for (String key : r.rows().stream()
                .map(w -> w.model() + "-" + w.dataset())
                .distinct()
                .toList()) {
            List<Row> rs = r.rows().stream()
                    .filter(w -> (w.model() + "-" + w.dataset()).equals(key))
                    .toList();
            double[] lr = rs.stream().mapToDouble(Row::lr).toArray();
            Map<String, double[]> s = new LinkedHashMap<>();
            s.put("NC1", rs.stream().mapToDouble(w -> w.nc().nc1Papyan()).toArray());
            s.put("NC2", rs.stream().mapToDouble(w -> w.nc().nc2()).toArray());
            s.put("NC3", rs.stream().mapToDouble(w -> w.nc().nc3()).toArray());
            s.put(
                    "NC4",
                    rs.stream().mapToDouble(w -> Math.max(w.nc().nc4(), 1e-4)).toArray());
            s.put("‖E‖/‖WᵀW/m‖", rs.stream().mapToDouble(Row::invariantRelative).toArray());
            s.put(
                    "1 − invariant alignment",
                    rs.stream()
                            .mapToDouble(w -> Math.max(1 - w.invariantAlignment(), 1e-4))
                            .toArray());
            s.put(
                    "1 − test accuracy",
                    rs.stream().mapToDouble(w -> 1 - w.testAccuracy()).toArray());
            s.replaceAll((name, v) -> Arrays.stream(v)
                    .map(x -> Double.isFinite(x) && x > 1e-6 ? x : 1e-6)
                    .toArray()); // a log axis: floor at 1e-6
            Plots.lines(
                    out.resolve(key + "-vs-lr.png"),
                    key + ": neural collapse and the invariant against the learning rate (Figs 2f–h)",
                    "learning rate (index on a log grid: " + Tables.fmt(lr) + ")",
                    "statistic",
                    java.util.stream.IntStream.range(0, lr.length)
                            .asDoubleStream()
                            .toArray(),
                    s,
                    true);
        }
        Files2.writeString(
                out.resolve("results.json"),
                Specs.toJson(Specs.ordered("settings", set, "rows", r.rows(), "verdicts", r.verdicts())) + "\n");
        Map<String, String> summary = new LinkedHashMap<>();
        for (Row w : r.rows()) {
            summary.put(
                    w.model() + " / " + w.dataset() + " / lr " + w.lr(),
                    String.format(
                            Locale.ROOT,
                            "acc %.3f; NC1 %.3g, NC2 %.3f, NC3 %.3f, NC4 %.3f; ‖E‖ %.3g (init %.3g), align %.3f",
                            w.testAccuracy(),
                            w.nc().nc1Papyan(),
                            w.nc().nc2(),
                            w.nc().nc3(),
                            w.nc().nc4(),
                            w.invariantNorm(),
                            w.invariantNormInit(),
                            w.invariantAlignment()));
        }
        List<String> subs = r.rows().stream().map(Row::dataset).distinct().toList();
        new StudyReport("Neural (tangent kernel) collapse against the learning rate (Seleznova et al. 2023, Figs 2–12)")
                .summary(summary)
                .notes(List.of(
                        String.format(
                                Locale.ROOT,
                                "Grid %s (datasets used: %s; a dataset missing on this machine is replaced by the bundled MNIST"
                                        + " subset), learning rates %s (paper: 20–30 on [1e-4, 10^0.25]); %s per class for"
                                        + " training (paper: full sets), MLP depth %d width %d; MSE, SGD Nesterov 0.9, weight"
                                        + " decay 5e-4, batch %d, %d epochs (paper 400 with lr/10 every 120). NC and H₁, H₂ on a"
                                        + " class-ordered batch of %d per class; κ from the FULL Θ^h on %d per class.",
                                Arrays.toString(set.pairs()),
                                subs,
                                Tables.fmt(set.lrs()),
                                set.trainPerClass() > 0 ? String.valueOf(set.trainPerClass()) : "all",
                                set.mlpDepth(),
                                set.mlpWidth(),
                                set.batch(),
                                set.epochs(),
                                set.batchPerClass(),
                                set.kernelPerClass()),
                        CollapseSetup.CONV_NOTE))
                .verdicts(r.verdicts())
                .write(out);
    }
}
