package org.ntk4j.experiment.ntkregime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import io.soabase.recordbuilder.core.RecordBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Split;
import org.ntk4j.experiment.support.Paper;
import org.ntk4j.experiment.support.Scale;
import org.ntk4j.experiment.support.Study;
import org.ntk4j.experiment.support.StudyBuilder;
import org.ntk4j.experiment.support.StudyData;
import org.ntk4j.experiment.support.StudyReport;
import org.ntk4j.experiment.support.Tables;
import org.ntk4j.experiment.support.Verdicts;
import org.ntk4j.experiment.support.Verdicts.Outcome;
import org.ntk4j.experiment.support.Verdicts.Verdict;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.metrics.KernelChange;
import org.ntk4j.metrics.KernelSpectrum;
import org.ntk4j.model.Network;
import org.ntk4j.report.Files2;
import org.ntk4j.report.Plots;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Parameterization;
import org.ntk4j.spec.Specs;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.theory.Activation;
import org.ntk4j.theory.FiniteWidthNtkMoments;
import org.ntk4j.theory.MonteCarloNtk;
import org.ntk4j.theory.SignalPropagation;
import org.ntk4j.train.Arrays2;
import org.ntk4j.train.TrainListener;
import org.ntk4j.train.TrainLoop;
import org.ntk4j.train.TrainProgress;

/**
 * Seleznova &amp; Kutyniok, "Analyzing Finite Neural Networks: Can We Trust NTK Theory?" (Seleznova, NTK thesis §3.1),
 * Figs 3, 4, 8–11: the relative change of the NTK over full-batch gradient descent,
 * <pre>
 *   ‖Θ_t − Θ_0‖_F / ‖Θ_0‖_F      (N×N traced NTK of the training set, {@link KernelChange#relativeChange})
 * </pre>
 * against χ₁ = σ_w² E[φ'(√q* z)²] (eq. (9); ReLU: χ₁ = σ_w²/2, {@link SignalPropagation#chi1}) and depth. Claimed:
 * a phase transition at χ₁ = 1 — small change for any depth in the ordered phase, large and growing with depth in the
 * chaotic phase, in between (but well below 1) at the edge of chaos; and deep ordered nets reach the highest loss.
 * Plus the theory of the first GD step, Seleznova &amp; Kutyniok, "NTK Beyond the Infinite-Width Limit", Thm 4.1 /
 * A.10: E[ΔΘ(x,x)]/E[Θ(x,x)] after one step on (x, y) grows with depth in the chaotic phase (→ ∞) and vanishes in the
 * ordered phase (→ 0), with the chaotic lower bound {@link FiniteWidthNtkMoments#firstStepLowerBound} on E|ΔΘ|,
 * sampled over initialisations with the exact plain-Java oracle {@link MonteCarloNtk} (backprop identity, eq. (19)).
 */
public final class NtkChangePhase {
    /**
     * Settings. Training: MLPs of {@code width} with {@code depths} weight layers, activations × σ_w² (σ_b² =
     * {@code sigmaB2}), {@code samples} MNIST images scaled to ‖x‖² = d (q⁰ = 1), ten outputs, one-hot targets, MSE
     * ½‖f − y‖²/N, full-batch GD for {@code steps} steps with one learning rate for all nets: {@code lrFraction} of
     * the largest stable rate 2N/λ_max(Θ_0 per output) of the stiffest net (the thesis picks one rate below the
     * maximal one of every net). Kernels at {@code checkpoints}. First step: {@code fsInits} initialisations of
     * width {@code fsWidth} (input dimension = width, ‖x‖ = 1, y = 0, η = {@code fsEta}).
     */
    @RecordBuilder
    @RecordBuilder.Options(builderMode = RecordBuilder.BuilderMode.STAGED)
    public record Settings(
            int width,
            int samples,
            String[] activations,
            double sigmaB2,
            int[] depths,
            double[] sigmaW2,
            int steps,
            int[] checkpoints,
            double lrFraction,
            int fsWidth,
            int[] fsDepths,
            double[] fsSigmaW2,
            int fsInits,
            double fsEta,
            long seed) {
        public static Settings of(Scale scale) {
            return scale.choose(Settings::quick, Settings::cpu, Settings::paper);
        }

        public static Settings quick() {
            return NtkChangePhaseSettingsBuilder.builder(paper())
                    .width(32)
                    .samples(64)
                    .activations(new String[] {"relu"})
                    .depths(new int[] {2, 6})
                    .sigmaW2(new double[] {1.0, 2.0, 3.0})
                    .steps(100)
                    .checkpoints(new int[] {10, 100})
                    .fsWidth(32)
                    .fsDepths(new int[] {2, 8})
                    .fsSigmaW2(new double[] {1.0, 3.0})
                    .fsInits(300)
                    .build();
        }

        public static Settings cpu() {
            return NtkChangePhaseSettingsBuilder.builder(paper())
                    .width(64)
                    .depths(new int[] {2, 5, 10})
                    .sigmaW2(new double[] {1.0, 1.5, 2.0, 2.5, 3.0})
                    .steps(1000)
                    .checkpoints(new int[] {10, 100, 1000})
                    .fsWidth(64)
                    .fsDepths(new int[] {2, 5, 10, 20})
                    .fsSigmaW2(new double[] {1.0, 2.0, 3.0})
                    .fsInits(1000)
                    .build();
        }

        public static Settings paper() {
            return NtkChangePhaseSettingsBuilder.builder()
                    .width(256)
                    .samples(128)
                    .activations(new String[] {"relu", "tanh"})
                    .sigmaB2(0)
                    .depths(new int[] {2, 5, 10, 15, 20})
                    .sigmaW2(new double[] {0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0})
                    .steps(100_000)
                    .checkpoints(new int[] {10, 100, 1000, 10_000, 100_000})
                    .lrFraction(0.5)
                    .fsWidth(100)
                    .fsDepths(new int[] {2, 5, 10, 20, 30, 50})
                    .fsSigmaW2(new double[] {1.0, 1.5, 2.0, 2.5, 3.0})
                    .fsInits(5000)
                    .fsEta(1e-3)
                    .seed(0)
                    .build();
        }
    }

    /** One trained net: χ₁, relative change at each checkpoint, the final and minimal loss. */
    public record Row(
            String activation,
            int depth,
            double sigmaW2,
            double chi1,
            double[] change,
            double finalLoss,
            double minLoss,
            double theta0Diag) {
        /** The change at the end of training. */
        public double last() {
            return change[change.length - 1];
        }
    }

    /** One first-step cell: sampled E[ΔΘ]/E[Θ], E|ΔΘ| and its lower bound. */
    public record FirstStep(
            int depth,
            double sigmaW2,
            double relChange,
            double relChangeSe,
            double meanAbsChange,
            double meanTheta,
            double lowerBound) {
        /** E|ΔΘ|/E[Θ], the magnitude the theorem bounds. */
        public double relAbs() {
            return meanAbsChange / meanTheta;
        }
    }

    /** Both parts. */
    public record Result(double lr, List<Row> rows, List<FirstStep> firstStep, List<Verdict> verdicts) {}

    private NtkChangePhase() {}

    public static final Study STUDY = StudyBuilder.builder()
            .name("ntk-change-phase")
            .paper(Paper.SELEZNOVA_THESIS)
            .figures("§3.1 Figs 3, 4, 8-11")
            .claim("relative NTK change over training against chi_1: phase transition at chi_1 = 1")
            .summary(
                    "Seleznova & Kutyniok 2021 Figs 3, 4, 8-11 + 2022 Thm 4.1: relative NTK change over GD against chi_1;"
                            + " transition at chi_1 = 1 (~35 s)")
            .runner((scale, out, manager) -> {
                Result r = run(Settings.of(scale), out, manager);
                return table(r) + "\n" + Verdicts.text(r.verdicts());
            })
            .build();

    static String table(Result r) {
        StringBuilder t = new StringBuilder(String.format(Locale.ROOT, "learning rate (all nets) %.4g%n", r.lr()));
        t.append(String.format(
                "%-5s %-3s %6s %6s %-28s %10s %10s%n", "act", "L", "σw²", "χ₁", "change", "loss", "min loss"));
        for (Row w : r.rows()) {
            t.append(String.format(
                    Locale.ROOT,
                    "%-5s %-3d %6.2f %6.2f %-28s %10.4g %10.4g%n",
                    w.activation(),
                    w.depth(),
                    w.sigmaW2(),
                    w.chi1(),
                    Tables.fmt(w.change()),
                    w.finalLoss(),
                    w.minLoss()));
        }
        t.append(String.format(
                "%nfirst GD step (Thm 4.1): %-3s %6s %22s %12s %12s %12s%n",
                "L", "σw²", "E[ΔΘ]/E[Θ] ± SE", "E|ΔΘ|/E[Θ]", "E|ΔΘ|", "bound"));
        for (FirstStep f : r.firstStep()) {
            t.append(String.format(
                    Locale.ROOT,
                    "                          %-3d %6.2f %12.4g ± %-8.2g %12.4g %12.4g %12.4g%n",
                    f.depth(),
                    f.sigmaW2(),
                    f.relChange(),
                    f.relChangeSe(),
                    f.relAbs(),
                    f.meanAbsChange(),
                    f.lowerBound()));
        }
        return t.toString();
    }

    /** χ₁ at the fixed point of the length map (ReLU: σ_w²/2 for any σ_b; bias-free tanh: σ_w² at q* = 0). */
    static double chi1(String activation, double sigmaW2, double sigmaB2) {
        if ("relu".equals(activation)) {
            return sigmaW2 / 2;
        }
        SignalPropagation sp = new SignalPropagation(Activation.byName(activation), sigmaW2, sigmaB2);
        double q = sp.fixedPointLength(1.0);
        return sp.chi1(Double.isNaN(q) ? 1.0 : q);
    }

    /** The MLP of the thesis' §3.1: constant width, σ_w²/fan_in Gaussian weights, N(0, σ_b²) biases, 10 outputs. */
    static ModelSpec mlp(int inputDim, int depth, int width, String activation, double sigmaW2, double sigmaB2) {
        StringBuilder w = new StringBuilder();
        for (int l = 1; l < depth; l++) {
            w.append(l > 1 ? ", " : "").append(width);
        }
        return ModelSpec.parse(
                String.format(
                        Locale.ROOT,
                        "{\"name\": \"%s-L%d-w%d\", \"arch\": \"mlp\", \"input\": [%d], \"widths\": [%s], \"outputs\": 10,"
                                + " \"activation\": \"%s\", \"initializer\": \"gaussian\", \"sigmaW\": %s, \"sigmaB\": %s}",
                        activation,
                        depth,
                        width,
                        inputDim,
                        w,
                        activation,
                        Math.sqrt(sigmaW2),
                        Math.sqrt(sigmaB2)),
                "ntk-change-phase");
    }

    /** {@code n} MNIST images (a seeded random subset of the bundled 2000-image set), flattened, scaled to ‖x‖² = d (q⁰ = 1, the
     * normalisation of the mean-field recursions, eq. (5), App. E). */
    static LabelledSet mnistUnitNorm(int n, long seed) {
        LabelledSet d = StudyData.load(Datasets.MNIST_SUBSET, Split.TRAIN, true); // ‖x‖² = d
        int[] perm = new int[d.size()];
        for (int i = 0; i < perm.length; i++) {
            perm[i] = i;
        }
        SplittableRandom r = new SplittableRandom(seed + 17);
        for (int i = perm.length - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        return d.subset(Arrays.copyOf(perm, n));
    }

    static double[][] tracedNtk(Network net, LabelledSet data) {
        try (NDScope scope = new NDScope();
                NDManager m = net.manager().newSubManager()) {
            NDArray x =
                    Arrays2.fromFloats(m, data.features(), new Shape(data.size(), data.featureDim()), net.dataType());
            return Ntk.of(net).mode(Mode.TRACE).float64().compute(x).total().traced();
        }
    }

    public static Result run(Settings set, Path out, NDManager manager) {
        try {
            java.nio.file.Files.createDirectories(out);
        } catch (java.io.IOException e) {
            throw new org.ntk4j.UserException(out + ": cannot create the output folder (" + e.getMessage() + ")");
        }
        LabelledSet train = mnistUnitNorm(set.samples(), set.seed());
        int n = train.size();
        int classes = train.numClasses();
        // pass 1: the initial kernels, for the one learning rate that is stable for every net
        Map<String, double[][]> k0 = new LinkedHashMap<>();
        double lamMax = 0;
        for (String act : set.activations()) {
            for (int depth : set.depths()) {
                for (double s2 : set.sigmaW2()) {
                    ModelSpec spec = mlp(train.featureDim(), depth, set.width(), act, s2, set.sigmaB2());
                    try (NDManager m = manager.newSubManager();
                            Network net = Network.build(spec, set.seed(), m, DataType.FLOAT32)) {
                        double[][] k = tracedNtk(net, train);
                        k0.put(act + depth + "/" + s2, k);
                        lamMax = Math.max(lamMax, KernelSpectrum.of(k).eigenvalues()[0] / classes);
                    }
                }
            }
        }
        double lr = set.lrFraction() * 2 * n / lamMax;
        // pass 2: train every net with that rate, kernels at the checkpoints
        List<Row> rows = new ArrayList<>();
        for (String act : set.activations()) {
            for (int depth : set.depths()) {
                for (double s2 : set.sigmaW2()) {
                    ModelSpec spec = mlp(train.featureDim(), depth, set.width(), act, s2, set.sigmaB2());
                    double[][] init = k0.get(act + depth + "/" + s2);
                    double[] change = new double[set.checkpoints().length];
                    double[] minLoss = {Double.POSITIVE_INFINITY};
                    TrainSpec t = TrainSpec.builder()
                            .loss("mse")
                            .optimizer("sgd")
                            .lr(lr)
                            .batchSize(0)
                            .epochs(set.steps())
                            .seed(set.seed())
                            .validate("ntk-change-phase");
                    TrainLoop.Result res;
                    try (NDManager m = manager.newSubManager();
                            Network net = Network.build(spec, set.seed(), m, DataType.FLOAT32)) {
                        TrainLoop trainer = new TrainLoop(net, t, train, null).quiet(true);
                        trainer.addListener(new TrainListener() {
                            @Override
                            public void onEpoch(TrainProgress p, TrainLoop.EpochRecord e) {
                                minLoss[0] = Math.min(minLoss[0], e.trainLoss());
                                for (int c = 0; c < set.checkpoints().length; c++) {
                                    if (set.checkpoints()[c] == p.step()) {
                                        change[c] = KernelChange.relativeChange(tracedNtk(p.net(), train), init);
                                    }
                                }
                            }
                        });
                        res = trainer.fit(false);
                    }
                    double diag = 0;
                    for (int i = 0; i < n; i++) {
                        diag += init[i][i] / n / classes;
                    }
                    rows.add(new Row(
                            act,
                            depth,
                            s2,
                            chi1(act, s2, set.sigmaB2()),
                            change,
                            res.trainLoss(),
                            Math.min(minLoss[0], res.trainLoss()),
                            diag));
                }
            }
        }
        List<FirstStep> fs = firstStep(set);
        List<Verdict> v = verdicts(set, rows, fs);
        Result result = new Result(lr, rows, fs, v);
        write(set, out, result);
        return result;
    }

    /** Thm 4.1: one GD step on (x, 0) for {@code fsInits} initialisations per (L, σ_w²) cell. */
    static List<FirstStep> firstStep(Settings set) {
        int m = set.fsWidth();
        double[] x = NtkSampling.unitInput(m, set.seed());
        List<FirstStep> out = new ArrayList<>();
        for (int depth : set.fsDepths()) {
            int[] widths = new int[depth + 1];
            Arrays.fill(widths, m);
            widths[depth] = 1;
            for (double s2 : set.fsSigmaW2()) {
                double[] th = new double[set.fsInits()];
                double[] dth = new double[set.fsInits()];
                for (int k = 0; k < th.length; k++) {
                    MonteCarloNtk net = new MonteCarloNtk(
                            widths,
                            Activation.RELU,
                            Parameterization.STANDARD,
                            Math.sqrt(s2),
                            0,
                            true,
                            set.seed() * 1_000_003L + depth * 7919L + (long) (s2 * 1000) * 31 + k);
                    th[k] = net.ntk(x, x);
                    net.gradientStep(x, 0, set.fsEta());
                    dth[k] = net.ntk(x, x) - th[k];
                }
                double mt = NtkSampling.mean(th);
                double md = NtkSampling.mean(dth);
                double[] abs = Arrays.stream(dth).map(Math::abs).toArray();
                // SE of the ratio of means by the delta method
                double se = Math.sqrt(NtkSampling.variance(dth) / mt / mt
                                + md * md * NtkSampling.variance(th) / Math.pow(mt, 4))
                        / Math.sqrt(th.length);
                out.add(new FirstStep(
                        depth,
                        s2,
                        md / mt,
                        se,
                        NtkSampling.mean(abs),
                        mt,
                        FiniteWidthNtkMoments.firstStepLowerBound(m, depth, m, s2, 1.0, set.fsEta())));
            }
        }
        return out;
    }

    private static Row find(List<Row> rows, String act, int depth, double s2) {
        return rows.stream()
                .filter(r -> r.activation().equals(act) && r.depth() == depth && r.sigmaW2() == s2)
                .findFirst()
                .orElseThrow();
    }

    /** The claims, ReLU (χ₁ = σ_w²/2 exactly): thresholds in the comments. */
    static List<Verdict> verdicts(Settings set, List<Row> rows, List<FirstStep> fs) {
        List<Verdict> v = new ArrayList<>();
        int deep = set.depths()[set.depths().length - 1];
        int shallow = set.depths()[0];
        double sOrd = set.sigmaW2()[0];
        double sCh = set.sigmaW2()[set.sigmaW2().length - 1];
        for (String act : set.activations()) {
            // ordered / EOC / chaotic representatives by χ₁
            List<Row> atDeep = rows.stream()
                    .filter(r -> r.activation().equals(act) && r.depth() == deep)
                    .toList();
            Row ord = atDeep.stream().filter(r -> r.chi1() < 0.9).findFirst().orElse(null);
            Row eoc = atDeep.stream()
                    .filter(r -> Math.abs(r.chi1() - 1) < 0.05)
                    .findFirst()
                    .orElse(null);
            Row ch = atDeep.stream()
                    .filter(r -> r.chi1() > 1.1)
                    .reduce((a, b) -> b)
                    .orElse(null);
            if (ord != null && eoc != null && ch != null) {
                boolean order = ch.last() > eoc.last() && eoc.last() > ord.last();
                v.add(new Verdict(
                        act + " L=" + deep + ": change chaotic > EOC > ordered",
                        String.format(Locale.ROOT, "%.3g / %.3g / %.3g", ch.last(), eoc.last(), ord.last()),
                        "chaotic > EOC > ordered",
                        Verdicts.grade(order && ch.last() > 3 * ord.last(), ch.last() > ord.last()),
                        "χ₁ = " + fmt2(ch.chi1()) + " / " + fmt2(eoc.chi1()) + " / " + fmt2(ord.chi1())
                                + "; reproduced when strictly ordered with a ≥3× gap"));
            }
            if (ord != null && ch != null) {
                // Figs 8, 9: deep chaotic nets change already after the first checkpoint, ordered ones stay put
                v.add(new Verdict(
                        act + " L=" + deep + ": change after " + set.checkpoints()[0] + " steps",
                        String.format(Locale.ROOT, "chaotic %.3g vs ordered %.3g", ch.change()[0], ord.change()[0]),
                        "early in chaotic only",
                        Verdicts.grade(ch.change()[0] > 10 * ord.change()[0], ch.change()[0] > ord.change()[0]),
                        "reproduced at a ≥10× gap"));
            }
            // transition at χ₁ = 1: every chaotic deep net changes more than every ordered deep net
            double maxOrd = atDeep.stream()
                    .filter(r -> r.chi1() < 1 - 1e-9)
                    .mapToDouble(Row::last)
                    .max()
                    .orElse(Double.NaN);
            double minCh = atDeep.stream()
                    .filter(r -> r.chi1() > 1 + 1e-9)
                    .mapToDouble(Row::last)
                    .min()
                    .orElse(Double.NaN);
            if (!Double.isNaN(maxOrd) && !Double.isNaN(minCh)) {
                v.add(new Verdict(
                        act + " L=" + deep + ": min change χ₁>1 vs max χ₁<1",
                        String.format(Locale.ROOT, "%.3g vs %.3g", minCh, maxOrd),
                        "jump at χ₁ = 1",
                        Verdicts.grade(minCh > 2 * maxOrd, minCh > maxOrd),
                        "reproduced when the least-changing chaotic net changes ≥2× the most-changing ordered one"));
            }
            Row chS = find(rows, act, shallow, sCh);
            Row chD = find(rows, act, deep, sCh);
            v.add(new Verdict(
                    act + " σw²=" + sCh + ": change grows with depth",
                    String.format(Locale.ROOT, "L=%d %.3g → L=%d %.3g", shallow, chS.last(), deep, chD.last()),
                    "grows with L",
                    Verdicts.grade(chD.last() > 2 * chS.last(), chD.last() > chS.last()),
                    "reproduced at a ≥2× rise"));
            // the smallest σ_w² when it is ordered (χ₁ < 1; bias-free tanh at σ_w² = 1 is at the edge of chaos)
            boolean ordered = find(rows, act, shallow, sOrd).chi1() < 1 - 1e-9;
            double ordMax = rows.stream()
                    .filter(r -> r.activation().equals(act) && r.sigmaW2() == sOrd)
                    .mapToDouble(Row::last)
                    .max()
                    .orElse(Double.NaN);
            if (ordered) {
                v.add(new Verdict(
                        act + " σw²=" + sOrd + ": change small at every depth",
                        String.format(Locale.ROOT, "max %.3g", ordMax),
                        "small (≪ 1)",
                        Verdicts.grade(ordMax < 0.1, ordMax < 0.3),
                        "reproduced below 0.1, partly below 0.3"));
            }
            if (eoc != null) {
                v.add(new Verdict(
                        act + " L=" + deep + " EOC: change well below 1",
                        String.format(Locale.ROOT, "%.3g", eoc.last()),
                        "\"way below 1\"",
                        Verdicts.grade(eoc.last() < 0.5, eoc.last() < 1),
                        "reproduced below 0.5, partly below 1"));
            }
            Row ordD = find(rows, act, deep, sOrd);
            if (ordered) {
                v.add(new Verdict(
                        act + " L=" + deep + ": ordered nets train worst",
                        String.format(
                                Locale.ROOT,
                                "min loss %.3g (ordered) vs %.3g (chaotic)",
                                ordD.minLoss(),
                                chD.minLoss()),
                        "deep ordered untrainable",
                        Verdicts.grade(ordD.minLoss() > 1.5 * chD.minLoss(), ordD.minLoss() > chD.minLoss()),
                        "same learning rate and step budget for all nets"));
            }
        }
        // Thm 4.1: first-step relative change grows with L (chaotic), shrinks (ordered); bound holds (chaotic)
        int d0 = set.fsDepths()[0];
        int d1 = set.fsDepths()[set.fsDepths().length - 1];
        double s0 = set.fsSigmaW2()[0];
        double s1 = set.fsSigmaW2()[set.fsSigmaW2().length - 1];
        FirstStep c0 = fsFind(fs, d0, s1);
        FirstStep c1 = fsFind(fs, d1, s1);
        FirstStep o0 = fsFind(fs, d0, s0);
        FirstStep o1 = fsFind(fs, d1, s0);
        v.add(new Verdict(
                "Thm 4.1 chaotic σw²=" + s1 + ": E|ΔΘ|/E[Θ] grows with L",
                String.format(Locale.ROOT, "L=%d %.3g → L=%d %.3g", d0, c0.relAbs(), d1, c1.relAbs()),
                "→ ∞",
                Verdicts.grade(c1.relAbs() > 10 * c0.relAbs(), c1.relAbs() > c0.relAbs()),
                "reproduced at a ≥10× rise over the depth range"));
        // the theorem's quantity is the signed mean: → 0 in the ordered phase
        boolean zero = Math.abs(o1.relChange()) <= 2 * o1.relChangeSe();
        boolean smaller = Math.abs(o1.relChange()) < Math.abs(o0.relChange());
        v.add(new Verdict(
                "Thm 4.1 ordered σw²=" + s0 + ": E[ΔΘ]/E[Θ] → 0",
                String.format(
                        Locale.ROOT,
                        "L=%d %.2g → L=%d %.2g ± %.1g",
                        d0,
                        o0.relChange(),
                        d1,
                        o1.relChange(),
                        o1.relChangeSe()),
                "→ 0",
                Verdicts.grade(zero && smaller, zero || smaller),
                String.format(
                        Locale.ROOT,
                        "reproduced when within 2 SE of 0 and smaller than at L=%d; E|ΔΘ|/E[Θ] %.2g → %.2g",
                        d0,
                        o0.relAbs(),
                        o1.relAbs())));
        long held = fs.stream()
                .filter(f -> f.sigmaW2() > 2)
                .filter(f -> f.meanAbsChange() >= f.lowerBound())
                .count();
        long cells = fs.stream().filter(f -> f.sigmaW2() > 2).count();
        v.add(new Verdict(
                "Thm A.10 chaotic: E|ΔΘ| ≥ printed bound",
                held + " of " + cells + " cells",
                "all",
                held == cells ? Outcome.REPRODUCED : held > 0 ? Outcome.PARTLY : Outcome.NOT,
                "the bound keeps only ℓ' = ℓ+1 terms (a heuristic at finite width)"));
        return v;
    }

    private static FirstStep fsFind(List<FirstStep> fs, int depth, double s2) {
        return fs.stream()
                .filter(f -> f.depth() == depth && f.sigmaW2() == s2)
                .findFirst()
                .orElseThrow();
    }

    private static String fmt2(double x) {
        return String.format(Locale.ROOT, "%.2f", x);
    }

    private static void write(Settings set, Path out, Result r) {
        for (String act : set.activations()) {
            Map<String, double[]> s = new LinkedHashMap<>();
            double[] chi = null;
            for (int depth : set.depths()) {
                List<Row> cell = r.rows().stream()
                        .filter(w -> w.activation().equals(act) && w.depth() == depth)
                        .toList();
                chi = cell.stream().mapToDouble(Row::chi1).toArray();
                s.put(
                        "L = " + depth,
                        cell.stream().mapToDouble(w -> Math.max(w.last(), 1e-8)).toArray());
            }
            Plots.lines(
                    out.resolve("change-vs-chi1-" + act + ".png"),
                    String.format("%s, width %d: relative NTK change after %d GD steps", act, set.width(), set.steps()),
                    "χ₁",
                    "‖Θ_t − Θ_0‖_F / ‖Θ_0‖_F",
                    chi,
                    s,
                    true);
            Map<String, double[]> loss = new LinkedHashMap<>();
            for (int depth : set.depths()) {
                loss.put(
                        "L = " + depth,
                        r.rows().stream()
                                .filter(w -> w.activation().equals(act) && w.depth() == depth)
                                .mapToDouble(Row::minLoss)
                                .toArray());
            }
            Plots.lines(
                    out.resolve("min-loss-" + act + ".png"),
                    act + ": minimal training loss reached (Fig. 3b)",
                    "χ₁",
                    "min loss",
                    chi,
                    loss,
                    true);
            Map<String, double[]> steps = new LinkedHashMap<>();
            for (Row w : r.rows()) {
                if (w.activation().equals(act) && w.depth() == set.depths()[set.depths().length - 1]) {
                    steps.put(
                            "σw² = " + w.sigmaW2(),
                            Arrays.stream(w.change())
                                    .map(c -> Math.max(c, 1e-8))
                                    .toArray());
                }
            }
            Plots.lines(
                    out.resolve("change-vs-steps-" + act + ".png"),
                    act + ", L = " + set.depths()[set.depths().length - 1]
                            + ": change after 10, 10², ... steps (Figs 8, 9)",
                    "GD steps",
                    "relative change",
                    Arrays.stream(set.checkpoints()).asDoubleStream().toArray(),
                    steps,
                    true);
        }
        Map<String, double[]> fsPlot = new LinkedHashMap<>();
        for (double s2 : set.fsSigmaW2()) {
            fsPlot.put(
                    "σw² = " + s2,
                    r.firstStep().stream()
                            .filter(f -> f.sigmaW2() == s2)
                            .mapToDouble(f -> Math.max(f.relAbs(), 1e-12))
                            .toArray());
        }
        Plots.lines(
                out.resolve("first-step.png"),
                "Thm 4.1: E|ΔΘ(x,x)| / E[Θ(x,x)] after one GD step, width " + set.fsWidth(),
                "depth L",
                "relative change",
                Arrays.stream(set.fsDepths()).asDoubleStream().toArray(),
                fsPlot,
                true);
        Files2.writeString(
                out.resolve("results.json"),
                Specs.toJson(Specs.ordered(
                                "settings", set,
                                "lr", r.lr(),
                                "rows", r.rows(),
                                "first_step", r.firstStep(),
                                "verdicts", r.verdicts()))
                        + "\n");
        Map<String, String> summary = new LinkedHashMap<>();
        for (Row w : r.rows()) {
            summary.put(
                    w.activation() + " L = " + w.depth() + ", σw² = " + w.sigmaW2(),
                    String.format(
                            Locale.ROOT,
                            "χ₁ = %.2f; change %s; min loss %.3g",
                            w.chi1(),
                            Tables.fmt(w.change()),
                            w.minLoss()));
        }
        new StudyReport(
                        "Seleznova & Kutyniok: relative NTK change over training against χ₁ (Can We Trust NTK Theory?, Figs 3,"
                                + " 4, 8–11; NTK Beyond the Infinite-Width Limit, Thm 4.1)")
                .summary(summary)
                .notes(List.of(
                        String.format(
                                Locale.ROOT,
                                "Scale: width %d (paper 256), %d MNIST images (paper 128) from the bundled subset,"
                                        + " scaled to ‖x‖² = d (q⁰ = 1), ten outputs, one-hot targets, MSE ½‖f − y‖²/N, full-batch"
                                        + " GD, %d steps (paper up to 10⁵ with early stopping) at one learning rate"
                                        + " %.4g for all nets (%.2f of the largest stable rate of the stiffest net;"
                                        + " paper 10⁻⁵), depths %s, σ_w² %s, σ_b² = %s.",
                                set.width(),
                                set.samples(),
                                set.steps(),
                                r.lr(),
                                set.lrFraction(),
                                Arrays.toString(set.depths()),
                                Arrays.toString(set.sigmaW2()),
                                set.sigmaB2()),
                        String.format(
                                Locale.ROOT,
                                "Kernel: the traced NTK Σ_k Θ_kk of the training set (the thesis does not say whether"
                                        + " it used a scalar or a 10-output NTK). First step: %d initialisations per"
                                        + " cell, width = input dimension = %d, ‖x‖ = 1, y = 0, η = %s, exact"
                                        + " backprop-identity NTK in double precision.",
                                set.fsInits(),
                                set.fsWidth(),
                                set.fsEta())))
                .verdicts(r.verdicts())
                .write(out);
    }
}
