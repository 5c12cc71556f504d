package org.ntk4j.experiment;

import ai.djl.ndarray.NDManager;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.ejml.data.DMatrixRMaj;
import org.ntk4j.data.Dataset;
import org.ntk4j.data.RegressionData;
import org.ntk4j.data.Synthetic;
import org.ntk4j.experiment.Verdicts.Verdict;
import org.ntk4j.metrics.CentredNfc;
import org.ntk4j.metrics.FeatureCorrelation;
import org.ntk4j.report.Files2;
import org.ntk4j.report.HtmlReport;
import org.ntk4j.report.Plots;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;
import org.ntk4j.spec.TrainSpec;

/**
 * Figs 4 and 11 of "Feature learning as alignment: a structural property of gradient descent in non-linear neural
 * networks" (anonymous, §5): speed-limited optimisation (SLO, train.Optimizer with optimizer "slo": per-layer
 * steps θ_l ← θ_l − η·C_l·G_l/(ε + ‖G_l‖_F), the paper's "+" corrected to descent) against standard full-batch GD
 * as the first-layer init scale s₀ shrinks. Chain monomial r = 5, n = 256, d = 32 (labels std 1); bias-free ReLU
 * MLP 32 → 256 → 256 → 1 with Gaussian weights of PyTorch's default std, the first layer ×s₀ and the readout
 * ×0.01 (the paper's "divided by 0.01" read as ×0.01, notes' assumption: ×100 diverges); 600 steps with the
 * paper's learning rates (s₀ = 1, 0.1, 0.01, 0.001 → η = 0.03, 0.1, 0.2, 0.4) and speeds C = (500, 0.002, 0.002),
 * ε = 0.1 (App. I). Measured at the end, first layer: UC-NFC, C-NFC, the C/UC ratio and ρ(WᵀW, EGOP) (Fig. 11's
 * feature quality). Not reproduced here: Fig. 12 (adaptive SLO) and Fig. 17 (SVHN, absent offline).
 */
public final class SpeedLimited {
    /**
     * Settings.
     *
     * @param n      training points
     * @param d      input dimension
     * @param r      chain length
     * @param width  hidden width
     * @param scales first-layer init scales s₀
     * @param lrs    learning rate per scale
     * @param steps  GD steps
     * @param speeds SLO speeds C_l, input side first
     * @param eps    SLO ε
     * @param seed   seed
     */
    public record Settings(
            int n,
            int d,
            int r,
            int width,
            double[] scales,
            double[] lrs,
            int steps,
            double[] speeds,
            double eps,
            long seed) {
        public static Settings of(Scale scale) {
            if (scale.quick()) {
                return new Settings(
                        256,
                        32,
                        5,
                        128,
                        new double[] {1, 0.01},
                        new double[] {0.03, 0.2},
                        250,
                        new double[] {500, 0.002, 0.002},
                        0.1,
                        0);
            }
            return new Settings(
                    256,
                    32,
                    5,
                    256,
                    new double[] {1, 0.1, 0.01, 0.001},
                    new double[] {0.03, 0.1, 0.2, 0.4},
                    600,
                    new double[] {500, 0.002, 0.002},
                    0.1,
                    0);
        }
    }

    /** One run at the end of training (first layer). */
    public record Row(
            double scale,
            String optimizer,
            double uc,
            double c,
            double ratio,
            double nfmEgop,
            double trainLoss,
            double testLoss) {}

    public record Result(List<Row> rows, double seconds) {
        Row row(double scale, String opt) {
            return rows.stream()
                    .filter(r -> r.scale() == scale && r.optimizer().equals(opt))
                    .findFirst()
                    .orElseThrow();
        }
    }

    private SpeedLimited() {}

    public static final Study STUDY = Study.of(
            "slo",
            "Feature Learning as Alignment (anon.), Figs 4, 11: speed-limited optimisation keeps C/UC NFC ~1 and the"
                    + " NFM close to the EGOP at every first-layer init scale, unlike GD (chain monomial; cpu: 34 s CPU, 6.6 min wall at load 25)",
            (scale, out, manager) -> Verdicts.text(verdicts(run(Settings.of(scale), out, manager))));

    public static Result run(Settings set, Path out, NDManager manager) {
        long t0 = System.nanoTime();
        RegressionData all = Synthetic.chainMonomial(2 * set.n(), set.d(), set.r(), set.seed());
        RegressionData tr = all.rows(0, set.n());
        RegressionData te = all.rows(set.n(), 2 * set.n());
        Dataset train = Dataset.regression("chain-monomial", tr.x(), new int[] {set.d()}, tr.y(), 1);
        Dataset test = Dataset.regression("chain-monomial-test", te.x(), new int[] {set.d()}, te.y(), 1);
        DMatrixRMaj egop = new DMatrixRMaj(set.d(), set.d(), true, Synthetic.chainMonomialEgop(set.d(), set.r()));
        List<Row> rows = new ArrayList<>();
        Map<String, double[]> ucSeries = new LinkedHashMap<>();
        Map<String, double[]> ratioSeries = new LinkedHashMap<>();
        double[] steps = null;
        for (int i = 0; i < set.scales().length; i++) {
            double s0 = set.scales()[i];
            ModelSpec spec =
                    NfaSetup.mlp("relu2", set.d(), new int[] {set.width(), set.width()}, 1, new double[] {s0, 1, 0.01});
            for (String opt : List.of("gd", "slo")) {
                TrainSpec.Builder b = TrainSpec.builder()
                        .loss("mse")
                        .batchSize(0)
                        .lr(set.lrs()[i])
                        .epochs(set.steps())
                        .seed(set.seed());
                if (opt.equals("slo")) {
                    Map<String, Double> speeds = new LinkedHashMap<>();
                    for (int l = 0; l < set.speeds().length; l++) {
                        speeds.put("dense" + (l + 1), set.speeds()[l]);
                    }
                    b.optimizer("slo").eps(set.eps()).layerLr(speeds);
                }
                NfaSetup.Run run = NfaSetup.train(
                        spec, b.validate("slo"), train, test, set.n(), set.steps() / 20, false, set.seed(), manager);
                CentredNfc.Layer last = run.last(0);
                DMatrixRMaj w = run.weights().get(run.layers().get(0));
                rows.add(new Row(
                        s0,
                        opt,
                        last.uc(),
                        last.c(),
                        last.ratio(),
                        FeatureCorrelation.rho(gram(w), egop),
                        run.result().trainLoss(),
                        run.result().testLoss()));
                String tag = String.format(Locale.ROOT, "%s s0=%s", opt, s0);
                ucSeries.put(tag, run.series(0, CentredNfc.Layer::uc));
                ratioSeries.put(tag, run.series(0, CentredNfc.Layer::ratio));
                steps = run.steps();
            }
        }
        Result res = new Result(rows, (System.nanoTime() - t0) / 1e9);
        Plots.lines(out.resolve("uc-nfc.png"), "first-layer UC-NFC: GD vs SLO", "step", "ρ", steps, ucSeries, false);
        Plots.lines(
                out.resolve("c-uc-ratio.png"), "first-layer C/UC ratio", "step", "ratio", steps, ratioSeries, false);
        write(set, out, res);
        return res;
    }

    private static DMatrixRMaj gram(DMatrixRMaj w) {
        DMatrixRMaj f = new DMatrixRMaj(w.numCols, w.numCols);
        org.ejml.dense.row.CommonOps_DDRM.multTransA(w, w, f);
        return f;
    }

    /** Verdicts: the notes' acceptance checks (notes 002 §6.I), from their numpy replication of Fig. 4. */
    static List<Verdict> verdicts(Result r) {
        List<Verdict> v = new ArrayList<>();
        double[] scales = r.rows().stream().mapToDouble(Row::scale).distinct().toArray();
        double largest = java.util.Arrays.stream(scales).max().orElse(1);
        double smallest = java.util.Arrays.stream(scales).min().orElse(1);
        // SLO C/UC ≥ 0.9 at every scale (paper: "close to 1 across initialization scales")
        double minRatio = r.rows().stream()
                .filter(x -> x.optimizer().equals("slo"))
                .mapToDouble(Row::ratio)
                .min()
                .orElse(Double.NaN);
        v.add(new Verdict(
                "SLO: min C/UC ratio over init scales",
                f3(minRatio),
                "~1",
                Verdicts.grade(minRatio >= 0.9, minRatio >= 0.5),
                "layer 1, end of training; GD at s0=" + largest + ": "
                        + f3(r.row(largest, "gd").ratio())));
        // SLO lifts the UC-NFC at the largest init by ≥ 0.2 (notes: 0.586 → 0.971)
        double gain = r.row(largest, "slo").uc() - r.row(largest, "gd").uc();
        v.add(new Verdict(
                "UC-NFC at s0=" + largest + ": GD -> SLO",
                f3(r.row(largest, "gd").uc()) + " -> "
                        + f3(r.row(largest, "slo").uc()),
                "low -> ~1",
                Verdicts.grade(gain >= 0.2 && r.row(largest, "slo").uc() >= 0.9, gain > 0),
                "NFA fails to develop under GD at large init; SLO restores it"));
        // GD C/UC increases as the init shrinks
        boolean monotone = true;
        double[] sorted = java.util.Arrays.stream(scales).sorted().toArray();
        StringBuilder ratios = new StringBuilder();
        for (int i = sorted.length - 1; i >= 0; i--) {
            ratios.append(f3(r.row(sorted[i], "gd").ratio())).append(i > 0 ? "," : "");
            if (i > 0
                    && r.row(sorted[i - 1], "gd").ratio()
                            < r.row(sorted[i], "gd").ratio() - 0.02) {
                monotone = false;
            }
        }
        boolean up = r.row(smallest, "gd").ratio() > r.row(largest, "gd").ratio();
        v.add(new Verdict(
                "GD: C/UC ratio, s0 large -> small",
                ratios.toString(),
                "increases",
                Verdicts.grade(monotone && up, up),
                "0.02 tolerance for ties near 1"));
        // GD at small init: UC-NFC ≥ 0.9
        v.add(new Verdict(
                "GD: UC-NFC at s0=" + smallest,
                f3(r.row(smallest, "gd").uc()),
                "high (notes 0.95)",
                Verdicts.grade(
                        r.row(smallest, "gd").uc() >= 0.9, r.row(smallest, "gd").uc() >= 0.8),
                "small init: the NFA holds under plain GD"));
        // Fig. 11: SLO's NFM quality invariant to the init scale; GD's degrades at large init
        double[] slo = r.rows().stream()
                .filter(x -> x.optimizer().equals("slo"))
                .mapToDouble(Row::nfmEgop)
                .toArray();
        double spread = java.util.Arrays.stream(slo).max().orElse(0)
                - java.util.Arrays.stream(slo).min().orElse(0);
        double gdDrop = r.row(smallest, "gd").nfmEgop() - r.row(largest, "gd").nfmEgop();
        v.add(new Verdict(
                "Fig. 11: rho(W^TW, EGOP) spread over s0, SLO vs GD drop",
                f3(spread) + " vs " + f3(gdDrop),
                "SLO invariant",
                Verdicts.grade(spread <= 0.1 && gdDrop > 0.2, spread < gdDrop),
                "SLO at s0=" + largest + ": " + f3(r.row(largest, "slo").nfmEgop()) + ", GD: "
                        + f3(r.row(largest, "gd").nfmEgop())));
        return v;
    }

    private static String f3(double x) {
        return String.format(Locale.ROOT, "%.3f", x);
    }

    private static void write(Settings set, Path out, Result r) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("settings", set);
        json.put("result", r);
        json.put("verdicts", verdicts(r));
        Files2.writeString(out.resolve("results.json"), Specs.toJson(json) + "\n");
        Map<String, String> summary = new LinkedHashMap<>();
        for (Row x : r.rows()) {
            summary.put(
                    String.format(Locale.ROOT, "s0 = %s, %s", x.scale(), x.optimizer()),
                    String.format(
                            Locale.ROOT,
                            "UC-NFC %.3f, C-NFC %.3f, C/UC %.3f, ρ(WᵀW, EGOP) %.3f; train loss %.3g, test %.3g",
                            x.uc(),
                            x.c(),
                            x.ratio(),
                            x.nfmEgop(),
                            x.trainLoss(),
                            x.testLoss()));
        }
        HtmlReport.write(
                out,
                "Feature learning as alignment, Figs 4 and 11: speed-limited optimisation",
                summary,
                List.of(
                        String.format(
                                Locale.ROOT,
                                "Chain monomial r = %d, n = %d, d = %d; bias-free ReLU MLP %d → %d → %d → 1 (first"
                                        + " layer ×s0, readout ×0.01 of PyTorch's default std); full-batch GD vs SLO"
                                        + " (speeds %s, ε = %s), %d steps, learning rates %s for s0 = %s.",
                                set.r(),
                                set.n(),
                                set.d(),
                                set.d(),
                                set.width(),
                                set.width(),
                                java.util.Arrays.toString(set.speeds()),
                                set.eps(),
                                set.steps(),
                                java.util.Arrays.toString(set.lrs()),
                                java.util.Arrays.toString(set.scales())),
                        "Paper (Fig. 4): with SLO the C/UC ratio is close to 1 and UC/C-NFC ≈ 1 at every init scale;"
                                + " with GD the C/UC ratio and the UC-NFC grow as the init shrinks, and at init 1"
                                + " the NFA fails to develop. Fig. 11: with SLO the NFM's feature quality is"
                                + " invariant to the init scale. No numbers are printed; the thresholds are the"
                                + " notes' acceptance checks from their replication."));
        Verdicts.addToReport(out, verdicts(r));
    }
}
