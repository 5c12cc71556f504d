package org.ntk4j.experiment.silentalignment;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import com.google.gson.JsonObject;
import io.soabase.recordbuilder.core.RecordBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.ejml.data.DMatrixRMaj;
import org.ntk4j.data.Datasets;
import org.ntk4j.experiment.support.Paper;
import org.ntk4j.experiment.support.Scale;
import org.ntk4j.experiment.support.Series;
import org.ntk4j.experiment.support.Study;
import org.ntk4j.experiment.support.StudyBuilder;
import org.ntk4j.experiment.support.StudyData;
import org.ntk4j.experiment.support.StudyReport;
import org.ntk4j.experiment.support.Verdicts;
import org.ntk4j.experiment.support.Verdicts.Verdict;
import org.ntk4j.job.TrainRun;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Network;
import org.ntk4j.probe.NtkProbe;
import org.ntk4j.probe.ProbeListener;
import org.ntk4j.report.Files2;
import org.ntk4j.report.Plots;
import org.ntk4j.report.RunFolder;
import org.ntk4j.report.RunReport;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.theory.KernelRegression;
import org.ntk4j.train.Arrays2;
import org.ntk4j.train.Schedule;

/**
 * Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, Fig. 1d/e and Fig. I.1: a Wide-ResNet (Zagoruyko &amp;
 * Komodakis; neural-tangents' WideResnet, b = 1 block per group, no biases, σ = 0.3 in standard parameterisation and
 * σ = 6.0 on the first conv, {@code models/wrn-10-4.json} at k = 4) trained with full-batch Adam on the MSE
 * ℒ = (1/2P)‖f − y‖² of P two-class images (targets ±1, {@link TwoClassData}), whitened (Fig. 1d/e) or raw (Fig.
 * I.1), with the NTK of the P training points probed during training. Measured:
 *
 * <ul>
 *   <li>the ordering of Fig. 1d: the fraction of the alignment's rise A₀ → A_∞ (A = yᵀKy/(‖K‖_F‖y‖²)) done when
 *       the loss has fallen by 10%, and the time the kernel "starts growing significantly" (10% of the total rise
 *       of ln λ_max(K), the top eigenvalue; it grows by 10³–10⁵ here) against the time the alignment reached 90%
 *       of its rise;</li>
 *   <li>Fig. 1e: on held-out images, the correlation of the trained network's outputs with kernel regression
 *       k(x)ᵀK⁻¹y with the final NTK K_∞ and with the initial NTK K₀ (the paper: K_∞ "strongly correlated");</li>
 *   <li>Fig. I.1: on raw data the loss falls before the alignment is done, and K_∞ predicts the net less well.</li>
 * </ul>
 *
 * <p>Scales: {@code paper} is the paper's setting (CIFAR-10 classes 0/1, P = 100, k = 4, Adam 1e-5; needs
 * {@code ntk4j data fetch cifar10} and a GPU; the step count is not stated, 40 000 here). {@code cpu} shrinks it:
 * CIFAR-10 classes 0/1 when fetched (else the bundled MNIST digits 0/1), widening k = 1, fewer points, and Adam at a
 * larger rate (1e-4) so the same dynamics take a few hundred steps instead of tens of thousands; {@code quick} (the
 * tests) always uses the bundled MNIST subset.
 */
public final class WrnAlignment {
    /** Settings; {@code gammas} are the whitening exponents run (0 = Fig. 1d/e, 1 = Fig. I.1). */
    @RecordBuilder
    @RecordBuilder.Options(builderMode = RecordBuilder.BuilderMode.STAGED)
    public record Settings(
            String dataset,
            int widen,
            int points,
            int testPoints,
            double lr,
            int steps,
            int probes,
            double[] gammas,
            long seed) {
        public static Settings of(Scale scale) {
            return scale.choose(Settings::quick, Settings::cpu, Settings::paper);
        }

        public static Settings paper() {
            return WrnAlignmentSettingsBuilder.builder()
                    .dataset(Datasets.CIFAR10)
                    .widen(4)
                    .points(100)
                    .testPoints(500)
                    .lr(1e-5)
                    .steps(40_000)
                    .probes(80)
                    .gammas(new double[] {0, 1})
                    .seed(0)
                    .build();
        }

        /** CIFAR-10 classes 0/1 when fetched (else the bundled MNIST 0/1 digits), k = 1, 48 points, Adam 1e-4. */
        public static Settings cpu() {
            return WrnAlignmentSettingsBuilder.builder(paper())
                    .dataset(StudyData.fetched(Datasets.CIFAR10) ? Datasets.CIFAR10 : Datasets.MNIST_SUBSET)
                    .widen(1)
                    .points(48)
                    .testPoints(200)
                    .lr(1e-4)
                    .steps(300)
                    .probes(30)
                    .build();
        }

        public static Settings quick() {
            return WrnAlignmentSettingsBuilder.builder(paper())
                    .dataset(Datasets.MNIST_SUBSET)
                    .widen(1)
                    .points(24)
                    .testPoints(60)
                    .lr(1e-4)
                    .steps(150)
                    .probes(15)
                    .gammas(new double[] {0})
                    .build();
        }
    }

    /** One whitening exponent's measurements. */
    public record Row(
            double gamma,
            double initialAlignment,
            double finalAlignment,
            double riseDoneAtLossDrop,
            double lossDropTime,
            double alignTime,
            double growTime,
            double finalLossRatio,
            double corrFinalKernel,
            double corrInitialKernel) {}

    private WrnAlignment() {}

    public static final Study STUDY = StudyBuilder.builder()
            .name("wrn-alignment")
            .paper(Paper.SILENT_ALIGNMENT)
            .figures("Fig. 1d,e, I.1")
            .claim("WRN on CIFAR with Adam: kernel alignment ordering (GPU scale; CPU variant)")
            .summary(
                    "Atanasov et al., Silent Alignment, Fig. 1d,e, I.1: Wide-ResNet with Adam; NTK alignment done before the"
                            + " loss falls and the kernel grows (whitened), not on raw data; NN vs final/initial-NTK regression"
                            + " (cpu: k = 1 on 48 CIFAR-10 0/1 images when fetched, else MNIST 0/1, Adam 1e-4, 300 steps;"
                            + " paper: k = 4 on CIFAR-10, Adam 1e-5, GPU)")
            .runner((scale, out, manager) -> {
                List<Row> rows = run(Settings.of(scale), out, manager);
                StringBuilder t = new StringBuilder(String.format(
                        "%-6s %8s %8s %10s %9s %9s %9s %10s %10s %10s%n",
                        "gamma",
                        "A0",
                        "A_final",
                        "rise done",
                        "t(-10%)",
                        "t_align",
                        "t_grow",
                        "loss end",
                        "corr K_inf",
                        "corr K_0"));
                for (Row r : rows) {
                    t.append(String.format(
                            "%-6.2f %8.4f %8.4f %10.3f %9.0f %9.0f %9.0f %10.2e %10.4f %10.4f%n",
                            r.gamma(),
                            r.initialAlignment(),
                            r.finalAlignment(),
                            r.riseDoneAtLossDrop(),
                            r.lossDropTime(),
                            r.alignTime(),
                            r.growTime(),
                            r.finalLossRatio(),
                            r.corrFinalKernel(),
                            r.corrInitialKernel()));
                }
                return t + "\n" + Verdicts.text(verdicts(rows));
            })
            .build();

    /** The wide ResNet of the paper at widening k for the dataset's image shape: σ = 0.3, first conv σ = 6, no bias. */
    static ModelSpec wrn(int widen, int[] input) {
        return ModelSpec.builder()
                .name(String.format(Locale.ROOT, "wrn-10-%d-silent-alignment", widen))
                .arch("wrn")
                .depth(10)
                .widen(widen)
                .input(input)
                .outputs(1)
                .activation("relu")
                .parameterization("standard")
                .initializer("gaussian")
                .sigmaW(0.3)
                .firstSigmaW(6.0)
                .bias(false)
                .validate("wrn-alignment");
    }

    public static List<Row> run(Settings set, Path out, NDManager manager) {
        // an absent dataset (CIFAR-10 at paper scale) fails in Datasets.load with a one-line UserException
        List<Row> rows = new ArrayList<>();
        Map<String, double[]> curves = new LinkedHashMap<>();
        Map<String, double[]> scales = new LinkedHashMap<>();
        double[] axis = null;
        for (double gamma : set.gammas()) {
            TwoClassData.Split2 data = TwoClassData.of(set.dataset(), set.points(), set.testPoints(), gamma);
            ModelSpec spec = wrn(set.widen(), data.train().sampleShape());
            String tag = String.format(Locale.ROOT, "gamma-%g", gamma);
            TrainSpec.Builder tb = TrainSpec.builder();
            tb.optimizer = "adam";
            tb.loss = "mse";
            tb.batchSize = 0;
            tb.lr = set.lr();
            tb.epochs = set.steps();
            tb.seed = set.seed();
            TrainSpec ts = tb.build().validate(tag);
            int every = Math.max(1, set.steps() / set.probes());
            RunFolder run = new RunFolder(out.resolve(tag));
            ProbeListener probes =
                    new ProbeListener(run).add(new NtkProbe(data.train(), run, Schedule.parse("every:" + every)));
            double[] kr0;
            double[] krInf;
            double[] nn;
            try (NDManager sub = manager.newSubManager();
                    Network net = Network.build(spec, set.seed(), sub)) {
                kr0 = kernelRegression(net, data, sub);
                TrainRun.trainer(net, ts, data.train(), null, run)
                        .quiet(true)
                        .addListener(probes)
                        .fit(false);
                krInf = kernelRegression(net, data, sub);
                nn = outputs(net, data, sub);
            }
            RunReport.write(run, spec.name() + " on " + data.train().name(), probes.reportSections());
            List<JsonObject> epochs = run.records("epoch");
            double[] l = epochs.stream()
                    .mapToDouble(e -> e.get("train_loss").getAsDouble())
                    .toArray();
            double[] steps = new double[l.length];
            for (int k = 0; k < l.length; k++) {
                steps[k] = k;
            }
            List<JsonObject> ntk = run.records("probe").stream()
                    .filter(r -> r.has("alignment"))
                    .toList();
            double[] tp =
                    ntk.stream().mapToDouble(r -> r.get("step").getAsDouble()).toArray();
            double[] a = ntk.stream()
                    .mapToDouble(r -> r.get("alignment").getAsDouble())
                    .toArray();
            double[] top = ntk.stream()
                    .mapToDouble(r -> r.getAsJsonArray("eigenvalues").get(0).getAsDouble())
                    .toArray();
            double drop = Series.crossing(steps, l, 0.9 * l[0]);
            double aDrop = Series.interpolate(tp, a, drop);
            double a0 = a[0];
            double aEnd = a[a.length - 1];
            double[] rise =
                    java.util.Arrays.stream(a).map(x -> (x - a0) / (aEnd - a0)).toArray();
            double[] growth = java.util.Arrays.stream(top).map(x -> x / top[0]).toArray();
            // "starts growing significantly" (Fig. 1d's dashed line): 10% of the total rise of ln λ_max done
            double logRise = Math.log(growth[growth.length - 1]);
            double[] logGrowth = java.util.Arrays.stream(growth)
                    .map(x -> Math.log(x) / logRise)
                    .toArray();
            rows.add(new Row(
                    gamma,
                    a0,
                    aEnd,
                    (aDrop - a0) / (aEnd - a0),
                    drop,
                    Series.rising(tp, rise, 0.9),
                    Series.rising(tp, logGrowth, 0.1),
                    l[l.length - 1] / l[0],
                    correlation(nn, krInf),
                    correlation(nn, kr0)));
            double[] lossAtProbe = new double[tp.length];
            for (int k = 0; k < tp.length; k++) {
                lossAtProbe[k] = l[Math.min(l.length - 1, (int) tp[k])] / l[0];
            }
            axis = tp;
            curves.put("γ = " + gamma + ": loss / ℒ₀", lossAtProbe);
            curves.put("γ = " + gamma + ": alignment (A − A₀)/(A_∞ − A₀)", rise);
            scales.put("γ = " + gamma + ": λ_max(K)/λ_max(K₀)", growth);
        }
        write(set, out, rows, axis, curves, scales);
        return rows;
    }

    /** Kernel regression k(x)ᵀK⁻¹y on the test points with the network's current NTK (pseudo-inverse, f₀ = 0). */
    private static double[] kernelRegression(Network net, TwoClassData.Split2 data, NDManager m) {
        try (NDManager s = m.newSubManager()) {
            NDArray xtr = Arrays2.inputs(s, net, data.train(), 0, data.train().size());
            NDArray xte = Arrays2.inputs(s, net, data.test(), 0, data.test().size());
            double[][] k =
                    Ntk.of(net).mode(Mode.TRACE).float64().compute(xtr).total().traced();
            double[][] kx = Ntk.of(net)
                    .mode(Mode.TRACE)
                    .float64()
                    .compute(xte, xtr)
                    .total()
                    .traced();
            DMatrixRMaj y = new DMatrixRMaj(data.train().size(), 1);
            for (int i = 0; i < y.numRows; i++) {
                y.data[i] = data.train().targets()[i];
            }
            DMatrixRMaj pred = new KernelRegression(new DMatrixRMaj(k), 1e-10)
                    .testPrediction(new DMatrixRMaj(kx), y, null, null, 1, Double.POSITIVE_INFINITY);
            return pred.data;
        }
    }

    private static double[] outputs(Network net, TwoClassData.Split2 data, NDManager m) {
        try (NDManager s = m.newSubManager()) {
            NDArray x = Arrays2.inputs(s, net, data.test(), 0, data.test().size());
            float[] f = net.forward(x, Forward.eval(s))
                    .toType(ai.djl.ndarray.types.DataType.FLOAT32, false)
                    .toFloatArray();
            double[] out = new double[f.length];
            for (int i = 0; i < f.length; i++) {
                out[i] = f[i];
            }
            return out;
        }
    }

    /** Pearson correlation. */
    static double correlation(double[] a, double[] b) {
        int n = a.length;
        double ma = 0;
        double mb = 0;
        for (int i = 0; i < n; i++) {
            ma += a[i] / n;
            mb += b[i] / n;
        }
        double ab = 0;
        double aa = 0;
        double bb = 0;
        for (int i = 0; i < n; i++) {
            ab += (a[i] - ma) * (b[i] - mb);
            aa += (a[i] - ma) * (a[i] - ma);
            bb += (b[i] - mb) * (b[i] - mb);
        }
        return ab / Math.sqrt(aa * bb);
    }

    /**
     * Verdicts. Whitened (Fig. 1d): silent when 90–125% of the alignment's rise is done at the 10% loss drop (above
     * that it overshoots and the kernel must move back while the loss falls) and the
     * alignment reached 90% of its rise before the kernel started growing (10% of ln λ_max's rise); partly when one of
     * the two holds.
     * Fig. 1e: "strongly correlated", read as corr ≥ 0.9 (partly ≥ 0.7) and above the initial kernel's. Raw data (I.1):
     * the loss falls before the alignment is done (rise done &lt; 0.9).
     */
    static List<Verdict> verdicts(List<Row> rows) {
        List<Verdict> v = new ArrayList<>();
        for (Row r : rows) {
            String where = r.gamma() == 0 ? "whitened (Fig. 1d/e)" : "γ = " + r.gamma() + " (Fig. I.1)";
            String detail = String.format(
                    "A %.4f → %.4f; 90%% of the rise at step %.0f, K starts growing (10%% of ln λ_max's rise) at step %.0f,"
                            + " loss −10%% at step %.0f",
                    r.initialAlignment(), r.finalAlignment(), r.alignTime(), r.growTime(), r.lossDropTime());
            boolean beforeGrowth = !(r.alignTime() >= r.growTime());
            if (r.gamma() == 0) {
                boolean risen = r.riseDoneAtLossDrop() >= 0.9;
                boolean settled = risen && r.riseDoneAtLossDrop() <= 1.25; // no large overshoot to undo later
                v.add(new Verdict(
                        where + ": rise done at ℒ = 0.9ℒ₀",
                        String.format("%.3f", r.riseDoneAtLossDrop()),
                        "≈ 1, before K grows",
                        Verdicts.grade(settled && beforeGrowth, risen || beforeGrowth),
                        (risen && !settled
                                        ? "aligned first but overshoots, then moves back during the loss drop; "
                                        : "")
                                + detail));
            } else {
                v.add(new Verdict(
                        where + ": rise done at ℒ = 0.9ℒ₀",
                        String.format("%.3f", r.riseDoneAtLossDrop()),
                        "< 1 (loss first)",
                        Verdicts.grade(r.riseDoneAtLossDrop() < 0.9, r.riseDoneAtLossDrop() < 0.97),
                        detail));
            }
            v.add(new Verdict(
                    where + ": corr(NN, KR with K_∞) on test",
                    String.format("%.4f", r.corrFinalKernel()),
                    r.gamma() == 0 ? "strongly correlated" : "less than whitened",
                    r.gamma() == 0
                            ? Verdicts.grade(
                                    r.corrFinalKernel() >= 0.9 && r.corrFinalKernel() > r.corrInitialKernel(),
                                    r.corrFinalKernel() >= 0.7)
                            : Verdicts.grade(
                                    rows.get(0).gamma() == 0
                                            && r.corrFinalKernel() < rows.get(0).corrFinalKernel(),
                                    r.corrFinalKernel() > r.corrInitialKernel()),
                    String.format(
                            "with K₀: %.4f; loss at the end %.1e of ℒ₀", r.corrInitialKernel(), r.finalLossRatio())));
        }
        return v;
    }

    private static void write(
            Settings set,
            Path out,
            List<Row> rows,
            double[] axis,
            Map<String, double[]> curves,
            Map<String, double[]> scales) {
        Plots.lines(
                out.resolve("alignment-and-loss.png"),
                "Fig. 1d / I.1: alignment rise and loss",
                "step",
                "fraction",
                axis,
                curves,
                false);
        Plots.lines(
                out.resolve("kernel-scale.png"),
                "Fig. 1d: kernel scale, top NTK eigenvalue over its initial value",
                "step",
                "λ_max(K_t)/λ_max(K₀)",
                axis,
                scales,
                true);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("settings", set);
        json.put("rows", rows);
        json.put("verdicts", verdicts(rows));
        Files2.writeString(out.resolve("results.json"), Specs.toJson(json) + "\n");
        Map<String, String> summary = new LinkedHashMap<>();
        for (Row r : rows) {
            summary.put(
                    "γ = " + r.gamma(),
                    String.format(
                            "alignment %.4f → %.4f, %.0f%% of the rise done at the 10%% loss drop (step %.0f);"
                                    + " 90%% at step %.0f, K starts growing at step %.0f; corr(NN, KR K_∞) %.4f, (NN, KR K₀)"
                                    + " %.4f",
                            r.initialAlignment(),
                            r.finalAlignment(),
                            100 * r.riseDoneAtLossDrop(),
                            r.lossDropTime(),
                            r.alignTime(),
                            r.growTime(),
                            r.corrFinalKernel(),
                            r.corrInitialKernel()));
        }
        new StudyReport("Atanasov et al., Silent Alignment, Fig. 1d/e and I.1: a Wide-ResNet trained with Adam")
                .summary(summary)
                .notes(List.of(String.format(
                        "WRN-10-%d (b = 1, σ = 0.3, first conv σ = 6, no biases) on P = %d images of classes 0/1 of %s"
                                + " (whitening γ = %s; %d test images), full-batch Adam lr %s for %d steps, NTK every %d"
                                + " steps. The paper: k = 4, CIFAR-10, P = 100, Adam 1e-5 (step count not stated)."
                                + " Kernel regression: pseudo-inverse (rcond 1e-10), f₀ = 0. Kernel scale: top eigenvalue"
                                + " of the traced NTK (the paper: ‖K‖_F).",
                        set.widen(),
                        set.points(),
                        set.dataset(),
                        java.util.Arrays.toString(set.gammas()),
                        set.testPoints(),
                        set.lr(),
                        set.steps(),
                        Math.max(1, set.steps() / set.probes()))))
                .verdicts(verdicts(rows))
                .write(out);
    }
}
