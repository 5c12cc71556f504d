package org.ntk4j.experiment.solvable;

import io.soabase.recordbuilder.core.RecordBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.ntk4j.experiment.support.Paper;
import org.ntk4j.experiment.support.Scale;
import org.ntk4j.experiment.support.Series;
import org.ntk4j.experiment.support.Study;
import org.ntk4j.experiment.support.StudyBuilder;
import org.ntk4j.experiment.support.StudyReport;
import org.ntk4j.experiment.support.TwoLayerNet;
import org.ntk4j.experiment.support.Verdicts;
import org.ntk4j.experiment.support.Verdicts.Outcome;
import org.ntk4j.experiment.support.Verdicts.Verdict;
import org.ntk4j.report.Files2;
import org.ntk4j.report.Plots;
import org.ntk4j.spec.Specs;
import org.ntk4j.theory.PhaseClassifier;
import org.ntk4j.theory.PhaseClassifier.Exponents;
import org.ntk4j.theory.PhaseClassifier.Phase;

/**
 * Xu &amp; Ziyin, "When Does Feature Learning Happen? Perspective from an Analytically Solvable Model", Table 1 and
 * Figs 3–4: two-layer ReLU nets f = κ·U ReLU(Wx) (10 outputs, softmax cross-entropy, plain minibatch SGD) in the
 * 20 scalings of Table 1 (NTK, mean field, Xavier, Kaiming, lazy; with the plain rate and the (κ, η) of Corollaries
 * 1, 2, 3), every hyperparameter a power of γ: d = γ^{c_d} (a fixed width when c_d = 0), κ = γ^{c_κ},
 * η = η₀γ^{c_η}, σ_u² = γ^{s_u}, σ_W² = γ^{s_W}, inputs scaled to ‖x‖ = 1. Each configuration is trained for the
 * same time T = steps·η₀ at three γ, and its phase is measured (criteria below) and set beside
 * {@link PhaseClassifier#classify}.
 *
 * <p>Measured-phase criteria (Definition 1: kernel = NTK constant and τ = Θ(1); feature learning = τ = Θ(1) and NTK
 * moves; frozen τ → ∞; unstable τ → 0). The learning speed 1/τ is proportional to the learning-rate-weighted NTK
 * Θ_η (eq. (17)–(18): df/dt = −2Θ_η(f − y)), so its scaling exponent is measured as the slope a of log Θ̄ against
 * log γ, Θ̄ the larger of the mean diagonal of Θ_η over probe points at the start and the end of training:
 * <ul>
 *   <li>unstable: a &gt; 0.5 (τ shrinks at least as γ^{−1/2}), or training diverges (non-finite loss, or a final
 *   loss above the initial one) at the largest γ;</li>
 *   <li>frozen: a &lt; −0.5 (τ grows at least as γ^{1/2});</li>
 *   <li>otherwise τ = Θ(1), and with the relative kernel change δK = ‖K_T − K₀‖_F/‖K₀‖_F on the probe points:
 *   kernel if δK(γ_max)/δK(γ_min) &lt; 0.35, i.e. log δK falls with log γ at a slope below −3/8 (the kernel phase's
 *   change vanishes like d^{−1/2} or faster, a factor ≥ 4 over the 16× range of γ, while a feature-learning
 *   change stays Θ(1), a factor ≈ 1; 0.35 sits between with room for finite-width noise: measured kernel ratios
 *   ≤ 0.15, feature-learning ratios ≥ 0.6); feature learning otherwise. No absolute threshold on δK: its size
 *   depends on the training time, the decay with γ does not (a first version with an absolute floor δK &lt; 0.01 called
 *   the γ-independent lazy/Cor. 2 run, δK = 0.008 at every γ, kernel).</li>
 * </ul>
 * The ±0.5 band on a separates the exponents the rule produces for these scalings (0, or |max(t1, t2)| ≥ 1) with
 * room for the finite-γ curvature of log Θ.
 */
public final class PhaseDiagram {
    /** Settings: γ values, width when c_d = 0, input side (3×side×side), sample counts, η₀, epochs, batch. */
    @RecordBuilder
    @RecordBuilder.Options(builderMode = RecordBuilder.BuilderMode.STAGED)
    public record Settings(
            double[] gammas,
            int fixedWidth,
            int side,
            int train,
            int test,
            int probes,
            double lr0,
            int epochs,
            int batch,
            boolean cifarIfPresent,
            long seed) {
        public static Settings of(Scale scale) {
            return scale.choose(Settings::quick, Settings::cpu, Settings::paper);
        }

        public static Settings quick() {
            return PhaseDiagramSettingsBuilder.builder(paper())
                    .gammas(new double[] {16, 64, 256})
                    .fixedWidth(64)
                    .side(8)
                    .train(128)
                    .test(128)
                    .probes(16)
                    .epochs(6)
                    .batch(16)
                    .cifarIfPresent(false)
                    .build();
        }

        public static Settings cpu() {
            return PhaseDiagramSettingsBuilder.builder(paper())
                    .gammas(new double[] {16, 64, 256})
                    .fixedWidth(64)
                    .train(256)
                    .test(256)
                    .probes(32)
                    .lr0(0.2)
                    .epochs(8)
                    .batch(32)
                    .build();
        }

        public static Settings paper() {
            return PhaseDiagramSettingsBuilder.builder()
                    .gammas(new double[] {64, 256, 1024, 4096})
                    .fixedWidth(256)
                    .side(32)
                    .train(50000)
                    .test(10000)
                    .probes(64)
                    .lr0(0.1)
                    .epochs(100)
                    .batch(128)
                    .cifarIfPresent(true)
                    .seed(0)
                    .build();
        }
    }

    /** One configuration at one γ. */
    public record Point(
            double gamma,
            int width,
            double theta0,
            double thetaT,
            double kernelChange,
            double weightChange,
            double loss0,
            double lossT,
            double bestTrainAcc,
            double bestTestAcc,
            boolean diverged) {}

    /** One of the 20 configurations: theory label, measured label, the per-γ points and the fitted slope. */
    public record Row(
            String preset,
            String rate,
            Exponents exponents,
            String theory,
            String measured,
            double thetaSlope,
            List<Point> points) {
        Point last() {
            return points.get(points.size() - 1);
        }
    }

    /**
     * The best train accuracy a net must reach for a Fig. 3 test-accuracy comparison to count as one of two trained
     * models (five times chance on ten classes).
     */
    static final double TRAINED = 0.5;

    private PhaseDiagram() {}

    public static final Study STUDY = StudyBuilder.builder()
            .name("phase-diagram")
            .paper(Paper.XU_ZIYIN)
            .figures("Figs 3, 4, Table 1")
            .claim("two-layer ReLU nets in the 20 Table-1 scalings: measured phase against the theoretical labels")
            .summary(
                    "Xu & Ziyin, When Does Feature Learning Happen?, Table 1, Figs 3-4: two-layer ReLU nets (CIFAR-10 or a"
                            + " CIFAR-shaped synthetic substitute) in the 20 scalings of Table 1; measured phase (NTK-speed"
                            + " exponent, relative kernel change) against the theory's labels, test accuracy per scaling (~100 s)")
            .runner((scale, out, manager) -> {
                Settings set = Settings.of(scale);
                List<Row> rows = run(set, out);
                return table(rows) + "\n" + Verdicts.text(verdicts(rows, set.train(), set.test()));
            })
            .build();

    static String table(List<Row> rows) {
        StringBuilder t = new StringBuilder(String.format(
                "%-11s %-6s %-17s %-17s %7s %9s %9s %8s %8s%n",
                "preset", "rate", "theory", "measured", "slope", "dK(min)", "dK(max)", "train", "test"));
        for (Row r : rows) {
            Point a = r.points().get(0);
            Point b = r.last();
            t.append(String.format(
                    Locale.ROOT,
                    "%-11s %-6s %-17s %-17s %7.2f %9.3g %9.3g %8.3f %8.3f%n",
                    r.preset(),
                    r.rate(),
                    r.theory(),
                    r.measured(),
                    r.thetaSlope(),
                    a.kernelChange(),
                    b.kernelChange(),
                    b.bestTrainAcc(),
                    b.bestTestAcc()));
        }
        return t.toString();
    }

    /** The 20 configurations of Table 1: 5 presets × (plain η, Corollary 1, Corollary 2, Corollary 3). */
    static Map<String, Exponents> configurations() {
        Map<String, Exponents> m = new LinkedHashMap<>();
        for (Map.Entry<String, Exponents> e : PhaseClassifier.table1Presets().entrySet()) {
            Exponents base = e.getValue();
            m.put(e.getKey() + "|plain", base);
            m.put(e.getKey() + "|cor1", PhaseClassifier.corollary1(base));
            m.put(e.getKey() + "|cor2", PhaseClassifier.corollary2(base));
            m.put(
                    e.getKey() + "|cor3",
                    PhaseClassifier.corollary3(base, PhaseClassifier.table1Corollary3Kappa(e.getKey())));
        }
        return m;
    }

    public static List<Row> run(Settings set, Path out) {
        SolvableSetup.Data data = data(set);
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<String, Exponents> c : configurations().entrySet()) {
            String[] parts = c.getKey().split("\\|");
            Exponents e = c.getValue();
            List<Point> pts = new ArrayList<>();
            for (double g : set.gammas()) {
                pts.add(train(e, g, data, set));
            }
            double slope = slope(set.gammas(), pts);
            rows.add(new Row(
                    parts[0], parts[1], e, label(PhaseClassifier.classify(e)), measure(slope, pts), slope, pts));
        }
        write(set, data, out, rows);
        return rows;
    }

    static String label(Phase p) {
        return p.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    /** The measured phase from the speed exponent and the per-γ points (criteria in the class comment). */
    static String measure(double slope, List<Point> pts) {
        Point first = pts.get(0);
        Point last = pts.get(pts.size() - 1);
        if (slope > 0.5 || last.diverged()) {
            return label(Phase.UNSTABLE);
        }
        if (slope < -0.5) {
            return label(Phase.FROZEN);
        }
        boolean kernel = first.kernelChange() == 0 || last.kernelChange() < 0.35 * first.kernelChange();
        return label(kernel ? Phase.KERNEL : Phase.FEATURE_LEARNING);
    }

    /** Least-squares slope of log Θ̄ on log γ, Θ̄ = max(Θ₀, Θ_T) (finite values only; Θ₀ when Θ_T is not finite). */
    static double slope(double[] gammas, List<Point> pts) {
        double sx = 0;
        double sy = 0;
        double sxx = 0;
        double sxy = 0;
        int n = 0;
        for (int i = 0; i < gammas.length; i++) {
            Point p = pts.get(i);
            double th = Double.isFinite(p.thetaT()) ? Math.max(p.theta0(), p.thetaT()) : p.theta0();
            double lx = Math.log(gammas[i]);
            double ly = Math.log(th);
            sx += lx;
            sy += ly;
            sxx += lx * lx;
            sxy += lx * ly;
            n++;
        }
        return (n * sxy - sx * sy) / (n * sxx - sx * sx);
    }

    /** Trains one configuration at one γ and measures it. */
    static Point train(Exponents e, double g, SolvableSetup.Data data, Settings set) {
        int d = e.cD() > 0 ? (int) Math.round(Math.pow(g, e.cD())) : set.fixedWidth();
        double kappa = Math.pow(g, e.cKappa());
        double eta = set.lr0() * Math.pow(g, e.cU());
        double sigmaU = Math.pow(g, e.sU() / 2);
        double sigmaW = Math.pow(g, e.sW() / 2);
        TwoLayerNet net = TwoLayerNet.gaussian(d, data.d0(), 10, kappa, true, sigmaU, sigmaW, set.seed() + 7);
        if (e.zeroInitialOutput()) { // symmetrised init: units i and i + d/2 share W rows, opposite U ⇒ f₀ = 0
            int h = d / 2;
            for (int i = 0; i < h; i++) {
                System.arraycopy(net.w, i * data.d0(), net.w, (i + h) * data.d0(), data.d0());
                for (int k = 0; k < 10; k++) {
                    net.u[k * d + i + h] = -net.u[k * d + i];
                }
            }
        }
        int n = data.yTrain().length;
        int[] probe = Series.range(Math.min(set.probes(), n));
        double[][] k0 = ntk(net, data.xTrain(), probe, eta);
        double[] w0 = net.w.clone();
        int[] all = Series.range(n);
        int[] testIdx = Series.range(data.yTest().length);
        double loss0 = net.loss(data.xTrain(), data.yTrain(), all, TwoLayerNet.Loss.CE);
        double bestTrain = net.accuracy(data.xTrain(), data.yTrain(), all);
        double bestTest = net.accuracy(data.xTest(), data.yTest(), testIdx);
        SplittableRandom r = new SplittableRandom(set.seed() + 11);
        boolean diverged = false;
        double lossT = loss0;
        for (int ep = 0; ep < set.epochs() && !diverged; ep++) {
            int[] perm = permutation(n, r);
            for (int s = 0; s + set.batch() <= n; s += set.batch()) {
                net.sgdStep(
                        data.xTrain(),
                        data.yTrain(),
                        java.util.Arrays.copyOfRange(perm, s, s + set.batch()),
                        TwoLayerNet.Loss.CE,
                        eta,
                        eta);
            }
            lossT = net.loss(data.xTrain(), data.yTrain(), all, TwoLayerNet.Loss.CE);
            if (!Double.isFinite(lossT) || !Double.isFinite(TwoLayerNet.norm(net.w))) {
                diverged = true;
                break;
            }
            bestTrain = Math.max(bestTrain, net.accuracy(data.xTrain(), data.yTrain(), all));
            bestTest = Math.max(bestTest, net.accuracy(data.xTest(), data.yTest(), testIdx));
        }
        diverged |= !(lossT <= loss0);
        double[][] kt = diverged ? null : ntk(net, data.xTrain(), probe, eta);
        return new Point(
                g,
                d,
                meanDiagonal(k0),
                kt == null ? Double.NaN : meanDiagonal(kt),
                kt == null ? Double.NaN : frobeniusChange(kt, k0),
                diverged ? Double.NaN : TwoLayerNet.relativeChange(net.w, w0),
                loss0,
                lossT,
                bestTrain,
                bestTest,
                diverged);
    }

    /**
     * The learning-rate-weighted empirical NTK summed over outputs (eq. (18) for a two-layer ReLU net, equal rates):
     * K(x, x') = ηκ²[C·ReLU(Wx)·ReLU(Wx') + (x·x') Σ_i ‖U_{:,i}‖² 1[w_i·x &gt; 0] 1[w_i·x' &gt; 0]].
     */
    static double[][] ntk(TwoLayerNet net, double[] x, int[] idx, double eta) {
        double[][] k = net.ntk(x, idx, x, idx);
        for (double[] row : k) {
            for (int j = 0; j < row.length; j++) {
                row[j] *= eta;
            }
        }
        return k;
    }

    static double meanDiagonal(double[][] k) {
        double s = 0;
        for (int i = 0; i < k.length; i++) {
            s += k[i][i];
        }
        return s / k.length;
    }

    static double frobeniusChange(double[][] a, double[][] b) {
        double num = 0;
        double den = 0;
        for (int i = 0; i < a.length; i++) {
            for (int j = 0; j < a.length; j++) {
                num += (a[i][j] - b[i][j]) * (a[i][j] - b[i][j]);
                den += b[i][j] * b[i][j];
            }
        }
        return Math.sqrt(num / den);
    }

    private static int[] permutation(int n, SplittableRandom r) {
        int[] p = Series.range(n);
        for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    static Row find(List<Row> rows, String preset, String rate) {
        return rows.stream()
                .filter(r -> r.preset().equals(preset) && r.rate().equals(rate))
                .findFirst()
                .orElseThrow();
    }

    /**
     * Verdicts: Table 1's labels (all 20 reproduced, ≥ 15 partly); Fig. 3's three pairs, the feature-learning
     * scaling's best test accuracy above the kernel one by more than 2 binomial SE of the difference on the
     * {@code nTest} test images, and only partly when either net's best train accuracy stays below
     * {@link #TRAINED} (then the comparison is "trains against does not", not the paper's of two trained models);
     * Fig. 4a's train accuracy, FL above kernel by more than 2 SE on {@code nTrain} images (here the paper's claim
     * is that the kernel phase does not fit); Fig. 4b's weight change, FL more than 10× the kernel one.
     */
    static List<Verdict> verdicts(List<Row> rows, int nTrain, int nTest) {
        List<Verdict> v = new ArrayList<>();
        long agree = rows.stream().filter(r -> r.theory().equals(r.measured())).count();
        StringBuilder mis = new StringBuilder();
        for (Row r : rows) {
            if (!r.theory().equals(r.measured())) {
                mis.append(mis.length() > 0 ? "; " : "")
                        .append(r.preset())
                        .append('/')
                        .append(r.rate())
                        .append(": ")
                        .append(r.measured())
                        .append(" vs ")
                        .append(r.theory());
            }
        }
        // 20 labels: all reproduced, ≥ 15 partly
        v.add(new Verdict(
                "Table 1: measured phase = theory label",
                agree + " / " + rows.size(),
                "20 labels",
                Verdicts.grade(agree == rows.size(), agree >= 15),
                mis.length() == 0 ? "all agree" : mis.toString()));
        // Fig. 3: test accuracy, feature-learning scaling above the kernel one, at the largest γ
        String[][] pairs = {
            {"kaiming", "cor2", "kaiming", "cor3", "Kaiming+ > Kaiming−"},
            {"xavier", "cor2", "xavier", "cor3", "Xavier+ > Xavier−"},
            {"mean-field", "cor1", "ntk", "plain", "mean field > NTK"}
        };
        for (String[] p : pairs) {
            v.add(testAccuracyAbove(rows, p, nTest));
        }
        // Fig. 4: fixed width (lazy column, c_d = 0): feature learning (Cor. 2) vs kernel (Cor. 3)
        Row fl = find(rows, "lazy", "cor2");
        Row k = find(rows, "lazy", "cor3");
        v.add(new Verdict(
                "Fig. 4 fixed width: train acc FL > kernel",
                String.format(
                        Locale.ROOT,
                        "%.3f vs %.3f",
                        fl.last().bestTrainAcc(),
                        k.last().bestTrainAcc()),
                "FL reaches higher",
                Verdicts.gradeAbove(fl.last().bestTrainAcc(), nTrain, k.last().bestTrainAcc(), nTrain),
                String.format(
                        Locale.ROOT,
                        "width %d, γ = %.0f; test %.3f vs %.3f",
                        fl.last().width(),
                        fl.last().gamma(),
                        fl.last().bestTestAcc(),
                        k.last().bestTestAcc())));
        double wf = fl.last().weightChange();
        double wk = k.last().weightChange();
        v.add(new Verdict(
                "Fig. 4b fixed width: ‖W_T − W₀‖/‖W₀‖ FL ≫ kernel",
                String.format(Locale.ROOT, "%.3g vs %.3g", wf, wk),
                "large vs small",
                Verdicts.grade(wf > 10 * wk, wf > wk),
                "relative first-layer change at the largest γ"));
        return v;
    }

    /** Fig. 3: the best test accuracy of {@code p[0]}/{@code p[1]} above {@code p[2]}/{@code p[3]}, significance-aware. */
    private static Verdict testAccuracyAbove(List<Row> rows, String[] p, int nTest) {
        Row a = find(rows, p[0], p[1]);
        Row b = find(rows, p[2], p[3]);
        double ta = a.last().bestTestAcc();
        double tb = b.last().bestTestAcc();
        boolean bothTrained = Math.min(a.last().bestTrainAcc(), b.last().bestTrainAcc()) >= TRAINED;
        Outcome o = Verdicts.gradeAbove(ta, nTest, tb, nTest);
        return new Verdict(
                "Fig. 3 best test acc " + p[4],
                Verdicts.accuracyPair(ta, nTest, tb, nTest),
                "FL higher (gap lost)",
                bothTrained ? o : Verdicts.worst(o, Outcome.PARTLY),
                String.format(
                        Locale.ROOT,
                        (bothTrained
                                        ? "both trained; "
                                        : "a net stays below train acc " + TRAINED
                                                + ": trains vs does not, not two trained models; ")
                                + "γ = %.0f (width %d vs %d); best train acc %.3f vs %.3f",
                        a.last().gamma(),
                        a.last().width(),
                        b.last().width(),
                        a.last().bestTrainAcc(),
                        b.last().bestTrainAcc()));
    }

    private static void write(Settings set, SolvableSetup.Data data, Path out, List<Row> rows) {
        Map<String, String> summary = new LinkedHashMap<>();
        Map<String, double[]> dk = new LinkedHashMap<>();
        Map<String, double[]> th = new LinkedHashMap<>();
        for (Row r : rows) {
            String name = r.preset() + " " + r.rate();
            summary.put(
                    name,
                    String.format(
                            Locale.ROOT,
                            "theory %s (t1 %.1f, t2 %.1f), measured %s: speed exponent %.2f, δK %s, train/test acc at γ"
                                    + " = %.0f: %.3f / %.3f",
                            r.theory(),
                            PhaseClassifier.t1(r.exponents()),
                            PhaseClassifier.t2(r.exponents()),
                            r.measured(),
                            r.thetaSlope(),
                            r.points().stream()
                                    .map(p -> String.format(Locale.ROOT, "%.3g", p.kernelChange()))
                                    .toList(),
                            r.last().gamma(),
                            r.last().bestTrainAcc(),
                            r.last().bestTestAcc()));
            if (!r.measured().equals("unstable")) {
                dk.put(
                        name,
                        r.points().stream()
                                .mapToDouble(p -> Math.max(p.kernelChange(), 1e-6))
                                .toArray());
            }
            th.put(name, r.points().stream().mapToDouble(Point::theta0).toArray());
        }
        Plots.lines(out.resolve("kernel-change.png"), "Relative NTK change δK vs γ", "γ", "δK", set.gammas(), dk, true);
        Plots.lines(
                out.resolve("ntk-scale.png"), "Initial NTK (1/τ) vs γ", "γ", "mean Θ_η(x, x)", set.gammas(), th, true);
        Files2.writeString(
                out.resolve("results.json"),
                Specs.toJson(Specs.ordered("settings", set, "data", data.name(), "rows", rows)) + "\n");
        new StudyReport("Xu & Ziyin, When Does Feature Learning Happen?, Table 1 and Figs 3-4: measured phases")
                .summary(summary)
                .notes(List.of(String.format(
                        Locale.ROOT,
                        "Data: %s; %d train / %d test points, inputs scaled to ‖x‖ = 1. Two-layer ReLU net, 10 outputs,"
                                + " softmax cross-entropy, SGD (no momentum, no weight decay) batch %d, %d epochs,"
                                + " η = %s·γ^c_η; γ ∈ %s (width γ, or %d when c_d = 0); δK on %d training points. Lazy"
                                + " column: symmetrised init (f₀ = 0). The paper's widths, batch size and epochs are"
                                + " lost from the text; CPU scale uses a subset and few epochs.",
                        data.name(),
                        set.train(),
                        set.test(),
                        set.batch(),
                        set.epochs(),
                        set.lr0(),
                        java.util.Arrays.toString(set.gammas()),
                        set.fixedWidth(),
                        set.probes())))
                .verdicts(verdicts(rows, data.yTrain().length, data.yTest().length))
                .write(out);
    }

    /** The data of a run: CIFAR-10 when present and asked for, else the synthetic CIFAR-shaped substitute. */
    static SolvableSetup.Data data(Settings set) {
        return SolvableSetup.data(set.side(), set.train(), set.test(), set.cifarIfPresent(), set.seed());
    }
}
