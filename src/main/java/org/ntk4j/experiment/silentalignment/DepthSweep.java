package org.ntk4j.experiment.silentalignment;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import com.google.gson.JsonObject;
import io.soabase.recordbuilder.core.RecordBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.experiment.support.Paper;
import org.ntk4j.experiment.support.Scale;
import org.ntk4j.experiment.support.Series;
import org.ntk4j.experiment.support.Study;
import org.ntk4j.experiment.support.StudyBuilder;
import org.ntk4j.experiment.support.StudyReport;
import org.ntk4j.experiment.support.Verdicts;
import org.ntk4j.experiment.support.Verdicts.Verdict;
import org.ntk4j.job.TrainRun;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.probe.NtkProbe;
import org.ntk4j.probe.ProbeListener;
import org.ntk4j.report.Files2;
import org.ntk4j.report.Plots;
import org.ntk4j.report.RunFolder;
import org.ntk4j.report.RunReport;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.theory.LinearNetworks;
import org.ntk4j.train.Schedule;

/**
 * Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, Fig. 4a and Fig. D.3b: how depth changes the timescales and
 * the final kernel of deep linear networks on whitened data.
 *
 * <ul>
 *   <li><b>Fig. 4a (theory).</b> The half-loss time t½ of the balanced scale flow, with the <b>corrected</b> eq. 39
 *       ċ = L c^{2−2/L}(s − c), c₀ = σ^L ({@link LinearNetworks#deepHalfLossTime}), against σ for each depth L: a power
 *       law t½ ≈ t* = σ^{−(L−2)}/((L−2)s) for L ≥ 3 (corrected eq. 40; the paper's L/(L−2)·σ^{−(L−2)} belongs to its
 *       ODE without the factor L, i.e. time rescaled by L) and a logarithm, t½ ≈ ln(1/σ²)/(2s), for L = 2.</li>
 *   <li><b>The ODE against gradient descent.</b> An L-layer linear network (D → N → … → N → 1, no biases) with the
 *       exactly balanced, aligned initialisation W¹ = u₀ r₂βᵀ, W^l = u₀ r_{l+1}r_lᵀ, w^L = u₀ r_L (unit r_l) stays rank
 *       one, so its c(t) = β·w_eff solves the scalar ODE with c₀ = u₀^L; measured t½ from full-batch GD (step dt)
 *       against the ODE's.</li>
 *   <li><b>Fig. D.3b.</b> From the standard random init N(0, σ²/fan_in), the final NTK–target alignment
 *       yᵀKy/(‖K‖_F‖y‖²) of the P training points rises with depth towards L/√(L² + r − 1)
 *       ({@link LinearNetworks#finalAlignment(int, int)}, the final kernel u*^{2L−2}xᵀ[(L−1)ββᵀ + I]x' of eq. 42
 *       corrected; r = rank(X) = D here), with a gap O(σ²).</li>
 * </ul>
 */
public final class DepthSweep {
    /**
     * Settings. {@code sigmas[i]} is both the balanced init's u₀ and the random init's σ at {@code depths[i]}, chosen
     * so that t½ is about the same (≈ 10) at every depth; {@code odeSigmas} is the σ grid of the Fig. 4a curves.
     */
    @RecordBuilder
    @RecordBuilder.Options(builderMode = RecordBuilder.BuilderMode.STAGED)
    public record Settings(
            int[] depths,
            double[] sigmas,
            double[] odeSigmas,
            int d,
            int hidden,
            int points,
            double s,
            double dt,
            double randomDt,
            double horizon,
            int probes,
            long seed) {
        /** quick: L = 2, 3, 4 (the tests); cpu and paper: L = 2…5 with smaller σ (longer runs, smaller O(σ²) gap). */
        public static Settings of(Scale scale) {
            return scale.choose(Settings::quick, Settings::cpu, Settings::paper);
        }

        /**
         * The paper states no sizes for Figs 4a and D.3b beyond small whitened linear-teacher runs, which the CPU
         * settings already are: the paper scale runs them.
         */
        public static Settings paper() {
            return cpu();
        }

        public static Settings quick() {
            return DepthSweepSettingsBuilder.builder(cpu())
                    .depths(new int[] {2, 3, 4})
                    .sigmas(new double[] {0.01, 0.1, 0.22})
                    .odeSigmas(logGrid(1e-3, 0.5, 16))
                    .dt(0.02)
                    .randomDt(0.04)
                    .probes(20)
                    .build();
        }

        /** The paper gives no sizes for D.3; D = 20, P = 100 as in the notes' check (7.6). */
        public static Settings cpu() {
            return DepthSweepSettingsBuilder.builder()
                    .depths(new int[] {2, 3, 4, 5})
                    .sigmas(new double[] {1e-3, 0.05, 0.15, 0.25})
                    .odeSigmas(logGrid(1e-3, 0.5, 24))
                    .d(20)
                    .hidden(30)
                    .points(100)
                    .s(1.0)
                    .dt(0.01)
                    .randomDt(0.02)
                    .horizon(2.5)
                    .probes(40)
                    .seed(0)
                    .build();
        }
    }

    /** One depth: the ODE slope at small σ, balanced-init GD against the ODE, random-init final alignment. */
    public record Row(
            int depth,
            double odeSlope,
            double odeSlopeTheory,
            double odeOverBlowUp,
            double sigma,
            double balancedHalfLoss,
            double balancedHalfLossOde,
            double randomHalfLoss,
            double randomHalfLossOde,
            double initialAlignment,
            double finalAlignment,
            double finalAlignmentTheory) {}

    /** Rows per depth and the Fig. 4a curves (log10 t½ of the ODE per depth over log10 σ). */
    public record Result(List<Row> rows, double[] logSigma, Map<String, double[]> odeCurves) {}

    private DepthSweep() {}

    public static final Study STUDY = StudyBuilder.builder()
            .name("depth-sweep")
            .paper(Paper.SILENT_ALIGNMENT)
            .figures("Fig. 4a, D.3b")
            .claim("t_half vs sigma for several depths against the ODE; final alignment L/sqrt(L^2+r-1)")
            .summary(
                    "Atanasov et al., Silent Alignment, Fig. 4a, D.3b: t_half vs sigma per depth from the corrected ODE (power"
                            + " law sigma^-(L-2), log for L = 2), GD with balanced init against it, final NTK alignment rising"
                            + " with L to L/sqrt(L^2+D-1) (~13 s)")
            .runner((scale, out, manager) -> {
                Result res = run(Settings.of(scale), out, manager);
                StringBuilder t = new StringBuilder(String.format(
                        "%-3s %10s %8s %10s %10s %10s %10s %10s %10s %10s%n",
                        "L",
                        "ODE slope",
                        "theory",
                        "t½/t*",
                        "sigma",
                        "GD t½",
                        "ODE t½",
                        "rand t½",
                        "align",
                        "L/√(L²+r−1)"));
                for (Row r : res.rows()) {
                    t.append(String.format(
                            "%-3d %10.4f %8.3f %10.4f %10.3g %10.3f %10.3f %10.3f %10.4f %10.4f%n",
                            r.depth(),
                            r.odeSlope(),
                            r.odeSlopeTheory(),
                            r.odeOverBlowUp(),
                            r.sigma(),
                            r.balancedHalfLoss(),
                            r.balancedHalfLossOde(),
                            r.randomHalfLoss(),
                            r.finalAlignment(),
                            r.finalAlignmentTheory()));
                }
                return t + "\n" + Verdicts.text(verdicts(res.rows()));
            })
            .build();

    static double[] logGrid(double from, double to, int n) {
        double[] g = new double[n];
        for (int i = 0; i < n; i++) {
            g[i] = from * Math.pow(to / from, (double) i / (n - 1));
        }
        return g;
    }

    public static Result run(Settings set, Path out, NDManager manager) {
        LabelledSet train = LinearTeacherSetup.whitenedTeacher(set.d(), set.points(), set.s(), set.seed());
        double[] beta = LinearTeacherSetup.teacher(train, set.s());
        double[] logSigma =
                java.util.Arrays.stream(set.odeSigmas()).map(Math::log10).toArray();
        Map<String, double[]> curves = new LinkedHashMap<>();
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < set.depths().length; i++) {
            int depth = set.depths()[i];
            double[] ode = new double[set.odeSigmas().length];
            double[] blowUp = new double[ode.length];
            for (int k = 0; k < ode.length; k++) {
                double c0 = Math.pow(set.odeSigmas()[k], depth);
                ode[k] = LinearNetworks.deepHalfLossTime(set.s(), c0, depth, 4000);
                blowUp[k] = depth == 2
                        ? Math.log(1 / c0) / (2 * set.s())
                        : LinearNetworks.deepBlowUpTime(c0, set.s(), depth);
            }
            curves.put(
                    "L = " + depth + " ODE",
                    java.util.Arrays.stream(ode).map(Math::log10).toArray());
            curves.put(
                    "L = " + depth + (depth == 2 ? " ln(1/σ²)/2s" : " t* = σ^−(L−2)/((L−2)s)"),
                    java.util.Arrays.stream(blowUp).map(Math::log10).toArray());
            // L ≥ 3: slope of ln t½ against ln σ over the four smallest σ; L = 2: slope of t½ against ln σ
            double slope = depth == 2
                    ? slopeOf(
                            java.util.Arrays.stream(set.odeSigmas())
                                    .map(Math::log)
                                    .toArray(),
                            ode,
                            4)
                    : slopeOf(
                            java.util.Arrays.stream(set.odeSigmas())
                                    .map(Math::log)
                                    .toArray(),
                            java.util.Arrays.stream(ode).map(Math::log).toArray(),
                            4);
            double sigma = set.sigmas()[i];
            double c0 = Math.pow(sigma, depth);
            double odeHalf = LinearNetworks.deepHalfLossTime(set.s(), c0, depth, 4000);
            // balanced: only up to just past the ODE's t½ (step dt); random: to convergence (step randomDt)
            double shortTime = 1.15 * odeHalf;
            double time = set.horizon() * odeHalf + 5;
            int every = Math.max(1, (int) Math.round(time / set.randomDt() / set.probes()));
            time = every * set.probes() * set.randomDt();
            String tag = String.format(Locale.ROOT, "L%d-sigma-%g", depth, sigma);
            double[] balanced = train(
                    set,
                    train,
                    beta,
                    depth,
                    sigma,
                    set.dt(),
                    shortTime,
                    0,
                    true,
                    out.resolve("balanced-" + tag),
                    manager);
            double[] random = train(
                    set,
                    train,
                    beta,
                    depth,
                    sigma,
                    set.randomDt(),
                    time,
                    every,
                    false,
                    out.resolve("random-" + tag),
                    manager);
            rows.add(new Row(
                    depth,
                    slope,
                    depth == 2 ? -1 / set.s() : -(depth - 2),
                    ode[0] / blowUp[0],
                    sigma,
                    balanced[0],
                    odeHalf,
                    random[0],
                    odeHalf,
                    random[1],
                    random[2],
                    LinearNetworks.finalAlignment(depth, set.d())));
        }
        Result res = new Result(rows, logSigma, curves);
        write(set, out, res);
        return res;
    }

    /**
     * Trains one network; returns {t½, initial alignment, final alignment} (alignments NaN for the balanced run,
     * which is not probed).
     */
    private static double[] train(
            Settings set,
            LabelledSet train,
            double[] beta,
            int depth,
            double sigma,
            double dt,
            double time,
            int every,
            boolean balanced,
            Path dir,
            NDManager manager) {
        int[] widths = new int[depth - 1];
        java.util.Arrays.fill(widths, set.hidden());
        ModelSpec spec = LinearTeacherSetup.linearNet(
                (balanced ? "balanced-" : "random-") + "linear" + depth, set.d(), widths, sigma);
        TrainSpec ts = LinearTeacherSetup.gradientDescent(dt, time, set.seed())
                .validate(dir.getFileName().toString());
        RunFolder run = new RunFolder(dir);
        ProbeListener probes = new ProbeListener(run);
        if (!balanced) {
            probes.add(new NtkProbe(train, run, Schedule.parse("every:" + every)));
        }
        try (NDManager m = manager.newSubManager();
                Network net = Network.build(spec, set.seed(), m)) {
            if (balanced) {
                balancedInit(net, beta, sigma, set.seed());
            }
            TrainRun.trainer(net, ts, train, null, run)
                    .quiet(true)
                    .addListener(probes)
                    .fit(false);
        }
        RunReport.write(run, spec.name() + " on " + train.name(), probes.reportSections());
        List<JsonObject> epochs = run.records("epoch");
        double[] t = new double[epochs.size()];
        double[] l = new double[epochs.size()];
        for (int k = 0; k < t.length; k++) {
            t[k] = k * dt;
            l[k] = epochs.get(k).get("train_loss").getAsDouble();
        }
        double half = Series.crossing(t, l, l[0] / 2);
        if (balanced) {
            return new double[] {half, Double.NaN, Double.NaN};
        }
        List<JsonObject> ntk =
                run.records("probe").stream().filter(r -> r.has("alignment")).toList();
        return new double[] {
            half,
            ntk.get(0).get("alignment").getAsDouble(),
            ntk.get(ntk.size() - 1).get("alignment").getAsDouble()
        };
    }

    /**
     * The balanced, aligned init: W¹ = u₀ r₂βᵀ, W^l = u₀ r_{l+1}r_lᵀ, w^L = u₀ r_Lᵀ with random unit r_l ∈ R^N, so
     * every layer is rank one, (1/η)W^lW^lᵀ = W^{l+1}ᵀW^{l+1} holds exactly (App. C) and f(x) = u₀^L β·x.
     */
    static void balancedInit(Network net, double[] beta, double u0, long seed) {
        SplittableRandom rng = new SplittableRandom(seed ^ 0x5eed);
        List<Param> ps = net.trainableParams();
        double[] left = beta;
        for (int l = 0; l < ps.size(); l++) {
            Shape shape = ps.get(l).value().getShape();
            int rows = (int) shape.get(0);
            int cols = (int) shape.get(1);
            double[] right = rows == 1 ? new double[] {1} : unit(rows, rng);
            float[] w = new float[rows * cols];
            for (int i = 0; i < rows; i++) {
                for (int j = 0; j < cols; j++) {
                    w[i * cols + j] = (float) (u0 * right[i] * left[j]);
                }
            }
            ps.get(l).set(net.manager().create(w, shape));
            left = right;
        }
    }

    private static double[] unit(int n, SplittableRandom rng) {
        double[] v = new double[n];
        double norm = 0;
        for (int i = 0; i < n; i++) {
            // Box–Muller
            v[i] = Math.sqrt(-2 * Math.log(1 - rng.nextDouble())) * Math.cos(2 * Math.PI * rng.nextDouble());
            norm += v[i] * v[i];
        }
        norm = Math.sqrt(norm);
        for (int i = 0; i < n; i++) {
            v[i] /= norm;
        }
        return v;
    }

    /** Least-squares slope of y against x over the first {@code n} points. */
    static double slopeOf(double[] x, double[] y, int n) {
        double mx = 0;
        double my = 0;
        for (int i = 0; i < n; i++) {
            mx += x[i] / n;
            my += y[i] / n;
        }
        double sxy = 0;
        double sxx = 0;
        for (int i = 0; i < n; i++) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
        }
        return sxy / sxx;
    }

    /**
     * Verdicts. Tolerances: the ODE slope over σ ∈ [1e-3, 2e-3] still carries the O(1) offset t* − t½ (e.g. 1.25 at
     * L = 3), so within 2% of −(L−2); GD is explicit Euler, whose t½ shifts by O(dt) per unit of growth rate, so 2%;
     * the random-init final alignment sits O(σ²) below L/√(L² + r − 1) (0.35σ² at L = 3, the deep-linear study), so
     * reproduced within 0.01, partly when the gap is below σ² (the finite-σ correction, not the σ → 0 value).
     */
    static List<Verdict> verdicts(List<Row> rows) {
        List<Verdict> v = new ArrayList<>();
        for (Row r : rows) {
            String l = "L = " + r.depth();
            boolean slopeOk = Math.abs(r.odeSlope() / r.odeSlopeTheory() - 1) < 0.02;
            v.add(new Verdict(
                    l + ": ODE t½ vs σ, " + (r.depth() == 2 ? "dt½/dlnσ" : "log-log slope"),
                    String.format("%.4f", r.odeSlope()),
                    r.depth() == 2 ? "log: −1/s" : String.format("power law %.0f", r.odeSlopeTheory()),
                    Verdicts.grade(slopeOk, Math.abs(r.odeSlope() / r.odeSlopeTheory() - 1) < 0.1),
                    "Fig. 4a: corrected eq. 39, c₀ = σ^L, four smallest σ; t½/t* = "
                            + String.format("%.3f", r.odeOverBlowUp())
                            + (r.depth() == 2 ? "" : " (the printed L/(L−2)σ^−(L−2) is L× this t*: eq. 39 drops L)")));
            double gd = r.balancedHalfLoss() / r.balancedHalfLossOde() - 1;
            v.add(new Verdict(
                    l + ": GD t½, balanced init u₀ = " + r.sigma(),
                    String.format("%.3f", r.balancedHalfLoss()),
                    String.format("ODE %.3f", r.balancedHalfLossOde()),
                    Verdicts.grade(Math.abs(gd) < 0.02, Math.abs(gd) < 0.1),
                    String.format(
                            "relative gap %+.2f%%; random init σ = %s: t½ %.2f",
                            100 * gd, r.sigma(), r.randomHalfLoss())));
            double gap = r.finalAlignmentTheory() - r.finalAlignment();
            v.add(new Verdict(
                    l + ": final NTK alignment (random init)",
                    String.format("%.4f", r.finalAlignment()),
                    String.format("%.4f", r.finalAlignmentTheory()),
                    Verdicts.grade(Math.abs(gap) < 0.01, gap > -0.01 && gap < r.sigma() * r.sigma()),
                    String.format(
                            "Fig. D.3b, L/√(L²+D−1); from %.4f at init; gap %.4f = %.2fσ²",
                            r.initialAlignment(), gap, gap / (r.sigma() * r.sigma()))));
        }
        boolean rising = true;
        for (int i = 1; i < rows.size(); i++) {
            rising &= rows.get(i).finalAlignment() > rows.get(i - 1).finalAlignment();
        }
        v.add(new Verdict(
                "final alignment rises with L",
                rising ? "yes" : "no",
                "yes (→ 1)",
                rising ? Verdicts.Outcome.REPRODUCED : Verdicts.Outcome.NOT,
                "Fig. D.3b"));
        return v;
    }

    private static void write(Settings set, Path out, Result res) {
        Plots.lines(
                out.resolve("half-loss-time.png"),
                "Fig. 4a: t½ of the corrected balanced ODE (c₀ = σ^L) vs σ, per depth",
                "log10 σ",
                "log10 t½",
                res.logSigma(),
                res.odeCurves(),
                false);
        double[] ls = res.rows().stream().mapToDouble(Row::depth).toArray();
        Map<String, double[]> al = new LinkedHashMap<>();
        al.put(
                "measured (random init)",
                res.rows().stream().mapToDouble(Row::finalAlignment).toArray());
        al.put(
                "L/√(L²+D−1)",
                res.rows().stream().mapToDouble(Row::finalAlignmentTheory).toArray());
        al.put("at init", res.rows().stream().mapToDouble(Row::initialAlignment).toArray());
        Plots.lines(
                out.resolve("final-alignment.png"),
                "Fig. D.3b: final NTK–target alignment rises with depth",
                "depth L",
                "alignment",
                ls,
                al,
                false);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("settings", set);
        json.put("result", res);
        json.put("verdicts", verdicts(res.rows()));
        Files2.writeString(out.resolve("results.json"), Specs.toJson(json) + "\n");
        Map<String, String> summary = new LinkedHashMap<>();
        for (Row r : res.rows()) {
            summary.put(
                    "L = " + r.depth(),
                    String.format(
                            "ODE slope %.4f (theory %.3f), t½/t* %.3f at σ = %.0e; GD balanced t½ %.3f vs ODE %.3f;"
                                    + " random init σ = %s: t½ %.3f, alignment %.4f → %.4f (theory %.4f)",
                            r.odeSlope(),
                            r.odeSlopeTheory(),
                            r.odeOverBlowUp(),
                            set.odeSigmas()[0],
                            r.balancedHalfLoss(),
                            r.balancedHalfLossOde(),
                            r.sigma(),
                            r.randomHalfLoss(),
                            r.initialAlignment(),
                            r.finalAlignment(),
                            r.finalAlignmentTheory()));
        }
        new StudyReport("Atanasov et al., Silent Alignment, Fig. 4a / D.3b: depth, timescales and final alignment")
                .summary(summary)
                .notes(List.of(String.format(
                        "Whitened linear teacher: D = %d, P = %d, s = %.1f; linear nets of hidden width N = %d, no biases;"
                                + " full-batch GD with dt = %s (balanced init, to 1.15 × the ODE's t½) and %s (random init,"
                                + " to %.1f × the ODE's t½ + 5). The σ per depth (%s) are"
                                + " chosen so t½ is similar at every depth (the paper gives no sizes for D.3). The paper's"
                                + " Fig. 4a is theory only; its ODE lacks the factor L (notes' erratum), which rescales time"
                                + " by L and is why its t* carries L/(L−2).",
                        set.d(),
                        set.points(),
                        set.s(),
                        set.hidden(),
                        set.dt(),
                        set.randomDt(),
                        set.horizon(),
                        java.util.Arrays.toString(set.sigmas()))))
                .verdicts(verdicts(res.rows()))
                .write(out);
    }
}
