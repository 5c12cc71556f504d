package org.ntk4j.experiment.featurealignment;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import io.soabase.recordbuilder.core.RecordBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;
import org.ejml.interfaces.decomposition.QRDecomposition;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.RegressionData;
import org.ntk4j.data.Synthetic;
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
import org.ntk4j.metrics.FeatureAnsatz;
import org.ntk4j.metrics.FeatureCorrelation;
import org.ntk4j.model.Network;
import org.ntk4j.probe.Probe;
import org.ntk4j.probe.ProbeListener;
import org.ntk4j.report.Files2;
import org.ntk4j.report.Plots;
import org.ntk4j.report.RunFolder;
import org.ntk4j.report.RunReport;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.train.TrainLoop;

/**
 * Fig. 1 of "Feature learning as alignment: a structural property of gradient descent in non-linear
 * neural networks" (anonymous, under review; §2.2, Prop. 2): the neural feature ansatz on the chain
 * monomial y(x) = Σ_{i=0}^{r−1} x_i x_{(i+1) mod r} (Eq. 2, r = 5, x ~ N(0, I_d), labels scaled to std 1).
 * A two-hidden-layer bias-free ReLU MLP (width 128, first layer at init scale 0.01, the others at the
 * default scale) is trained by full-batch gradient descent on the mean squared error. At the end the
 * first layer's
 * <ul>
 *   <li>NFC ρ(F, Ḡ) of the NFM F = WᵀW and the AGOP Ḡ = WᵀKW (paper: 0.93), ρ the matrix cosine of
 *   the paper's eq. "NFC";</li>
 *   <li>corruption control ρ(F, WᵀQW), Q = UΛUᵀ with Λ the eigenvalues of the PTK feature covariance K
 *   and U Haar-random (paper: 0.53 for its one draw; here the mean and spread over many draws);</li>
 *   <li>the eigenvalue std/mean of K, i.e. how far K is from a multiple of I (paper: 5.9);</li>
 *   <li>ρ(F, EGOP) and ρ(Ḡ, EGOP) with the exact EGOP A_r² of the target (the paper shows the 5×5 block
 *   visually; no number), and the centred NFC ρ(W̄ᵀW̄, W̄ᵀKW̄), W̄ = W − W(0).</li>
 * </ul>
 * The paper does not state the learning rate, the number of steps or the loss for Fig. 1; n = 384,
 * d = 32, width 128 and the init scales are from its App. I. The defaults here (MSE, lr 0.05, 800 GD
 * steps) are the settings of its Figs 5–10 (App. I), which the notes' replication also used. "Default
 * scale" is PyTorch's U(±1/√fan_in), std 1/√(3·fan_in); the layers here are Gaussian with that std (the
 * first ×0.01). The run is small enough that the paper's scale is the CPU scale: there is no --scale.
 */
public final class NfaChainMonomial {
    /** Settings; {@link #paper()} is Fig. 1's n, d, r, width and init with the Figs 5–10 optimiser. */
    @RecordBuilder
    @RecordBuilder.Options(builderMode = RecordBuilder.BuilderMode.STAGED)
    public record Settings(
            int n,
            int d,
            int r,
            int width,
            double firstScale,
            double lr,
            int steps,
            int probeEvery,
            int testPoints,
            int corruptions,
            long seed) {
        /** {@link #quick()} for the tests, {@link #cpu()} (the default), {@link #paper()}. */
        public static Settings of(Scale scale) {
            return scale.choose(Settings::quick, Settings::cpu, Settings::paper);
        }

        /** The paper's own settings: they already run in about a minute or less on a CPU. */
        public static Settings cpu() {
            return paper();
        }

        public static Settings paper() {
            return NfaChainMonomialSettingsBuilder.builder()
                    .n(384)
                    .d(32)
                    .r(5)
                    .width(128)
                    .firstScale(0.01)
                    .lr(0.05)
                    .steps(800)
                    .probeEvery(20)
                    .testPoints(1000)
                    .corruptions(200)
                    .seed(0)
                    .build();
        }

        /** The same network and data, a larger step for fewer steps, fewer corruption draws: seconds (the tests). */
        public static Settings quick() {
            return NfaChainMonomialSettingsBuilder.builder(paper())
                    .lr(0.1)
                    .steps(300)
                    .probeEvery(50)
                    .testPoints(500)
                    .corruptions(50)
                    .build();
        }
    }

    /**
     * The measurements at the end of training.
     *
     * @param nfc             first-layer ρ(F, Ḡ)
     * @param corruptedMean   mean over draws of ρ(F, WᵀQW)
     * @param corruptedSd     their standard deviation
     * @param eigStdOverMean  std/mean of K's eigenvalues (population std)
     * @param nfmEgop         ρ(F, EGOP)
     * @param agopEgop        ρ(Ḡ, EGOP)
     * @param centredNfc      ρ(W̄ᵀW̄, W̄ᵀKW̄)
     * @param secondLayerNfc  ρ(F, Ḡ) of the second layer
     * @param trainLoss       final training loss (½·mean squared error)
     * @param testLoss        on fresh points of the same distribution
     * @param initialNfc      first-layer ρ(F, Ḡ) at initialisation
     * @param seconds         wall time of the run
     */
    public record Result(
            double nfc,
            double corruptedMean,
            double corruptedSd,
            double eigStdOverMean,
            double nfmEgop,
            double agopEgop,
            double centredNfc,
            double secondLayerNfc,
            double trainLoss,
            double testLoss,
            double initialNfc,
            double seconds) {}

    private NfaChainMonomial() {}

    /** The study as {@code ntk4j reproduce nfa-chain-monomial} runs it. */
    public static final Study STUDY = StudyBuilder.builder()
            .name("nfa-chain-monomial")
            .paper(Paper.FEATURE_LEARNING_AS_ALIGNMENT)
            .figures("Fig. 1")
            .claim("first-layer NFC rho(W^TW, AGOP) ~0.93; random-eigenvector control ~0.53; K eig std/mean ~5.9")
            .summary(
                    "Feature Learning as Alignment (anon.), Fig. 1: first-layer NFC rho(W^TW, AGOP) on the chain monomial (0.93), the random-eigenvector"
                            + " corruption (0.53), K's eigenvalue std/mean (5.9), rho against the EGOP (8-16 s)")
            .runner((scale, out, manager) -> {
                Result r = NfaChainMonomial.run(Settings.of(scale), out, manager);
                return Verdicts.text(verdicts(r));
            })
            .build();

    /** Trains, measures and writes plots, results.json and report.html into {@code out}. */
    public static Result run(Settings set, Path out, NDManager manager) {
        long t0 = System.nanoTime();
        RegressionData all = Synthetic.chainMonomial(set.n() + set.testPoints(), set.d(), set.r(), set.seed());
        RegressionData tr = all.rows(0, set.n());
        RegressionData te = all.rows(set.n(), set.n() + set.testPoints());
        LabelledSet train =
                LabelledSet.regression("chain-monomial-r" + set.r(), tr.x(), new int[] {set.d()}, tr.y(), 1);
        LabelledSet test =
                LabelledSet.regression("chain-monomial-r" + set.r() + "-test", te.x(), new int[] {set.d()}, te.y(), 1);
        ModelSpec spec = ModelSpec.parse(
                String.format(
                        Locale.ROOT,
                        "{\"name\": \"relu2-w%d\", \"arch\": \"mlp\", \"input\":"
                                + " [%d], \"widths\": [%d, %d], \"outputs\": 1, \"activation\": \"relu\", \"bias\": false, \"initializer\":"
                                + " \"gaussian\", \"layerSigmaW\": [%s, %s, %s]}",
                        set.width(),
                        set.d(),
                        set.width(),
                        set.width(),
                        set.firstScale() / Math.sqrt(3),
                        1 / Math.sqrt(3),
                        1 / Math.sqrt(3)),
                "nfa-chain-monomial");
        TrainSpec t = TrainSpec.builder()
                .loss("mse")
                .batchSize(0)
                .lr(set.lr())
                .epochs(set.steps())
                .seed(set.seed())
                .validate("nfa-chain-monomial");
        RunFolder run = new RunFolder(StudyData.fresh(out.resolve("run")));
        List<double[]> trace = new ArrayList<>(); // step, NFC layer 1, NFC layer 2, C-NFC layer 1
        List<FeatureAnsatz.Layer> fin;
        double[] egop = Synthetic.chainMonomialEgop(set.d(), set.r());
        DMatrixRMaj egopM = new DMatrixRMaj(set.d(), set.d(), true, egop);
        double corruptedMean;
        double corruptedSd;
        double eigRatio;
        TrainLoop.Result res;
        try (NDManager m = manager.newSubManager();
                Network net = Network.build(spec, set.seed(), m, DataType.FLOAT64)) {
            Map<String, DMatrixRMaj> w0 = FeatureAnsatz.weights(net);
            NDArray x = m.create(Series.toDouble(tr.x()), new Shape(set.n(), set.d()));
            TrainLoop trainer = TrainRun.trainer(net, t, train, test, run).quiet(true);
            trainer.addListener(new ProbeListener(run).add(new Probe() {
                @Override
                public String name() {
                    return "nfa";
                }

                @Override
                public boolean due(long step, boolean epochEnd) {
                    return step % set.probeEvery() == 0;
                }

                @Override
                public Map<String, Object> run(Network n, long step, int epoch) {
                    List<FeatureAnsatz.Layer> ls = FeatureAnsatz.measure(n, x, w0);
                    double c = ls.get(0).centred().nfc();
                    trace.add(new double[] {step, ls.get(0).nfc(), ls.get(1).nfc(), Double.isNaN(c) ? 0 : c});
                    Map<String, Object> rec = new LinkedHashMap<>();
                    rec.put("nfc1", ls.get(0).nfc());
                    rec.put("nfc2", ls.get(1).nfc());
                    rec.put("cnfc1", c);
                    return rec;
                }
            }));
            res = trainer.fit(false);
            fin = FeatureAnsatz.measure(net, x, w0);
            DMatrixRMaj w = FeatureAnsatz.weights(net).values().iterator().next();
            DMatrixRMaj k = fin.get(0).ptkCovariance();
            double[] eig = symmetricEigenvalues(k);
            eigRatio = sd(eig) / mean(eig);
            double[] rho = new double[set.corruptions()];
            SplittableRandom rng = new SplittableRandom(set.seed() + 12345);
            for (int q = 0; q < rho.length; q++) {
                DMatrixRMaj qm = randomEigenvectors(eig, rng);
                rho[q] = FeatureCorrelation.rho(fin.get(0).nfm(), sandwich(w, qm));
            }
            corruptedMean = mean(rho);
            corruptedSd = sd(rho);
            RunReport.write(run, spec.name() + " on " + train.name());
        }
        FeatureAnsatz.Layer first = fin.get(0);
        Result r = new Result(
                first.nfc(),
                corruptedMean,
                corruptedSd,
                eigRatio,
                FeatureCorrelation.rho(first.nfm(), egopM),
                FeatureCorrelation.rho(first.agop(), egopM),
                first.centred().nfc(),
                fin.get(1).nfc(),
                res.trainLoss(),
                res.testLoss(),
                trace.isEmpty() ? Double.NaN : trace.get(0)[1],
                (System.nanoTime() - t0) / 1e9);
        write(set, out, r, trace, first, egop);
        return r;
    }

    /** The verdict of each claim; thresholds from the notes' acceptance checks and their replication's spread. */
    static List<Verdict> verdicts(Result r) {
        List<Verdict> v = new ArrayList<>();
        // 0.05: the paper's single run with unstated lr/steps against the notes' replications (0.949, 0.955 at
        // two optimiser settings); 0.85 is the notes' acceptance floor (notes 002 §5.1)
        v.add(new Verdict(
                "first-layer NFC rho(W^TW, AGOP)",
                f3(r.nfc()),
                "0.93",
                Verdicts.grade(Math.abs(r.nfc() - 0.93) <= 0.05, r.nfc() >= 0.85),
                r.nfc() >= 0.85 ? "NFM and AGOP strongly aligned after training" : "alignment below the 0.85 floor"));
        // the paper's 0.53 is one random Q; the notes' draws gave 0.67 and 0.62, so ±0.15 of 0.53 and a drop ≥ 0.15
        // from the NFC (notes' acceptance check) is "reproduced"; the drop alone is "partly"
        boolean drop = r.nfc() - r.corruptedMean() >= 0.15;
        v.add(new Verdict(
                "corrupted rho(W^TW, W^TQW), Q random eigvecs",
                String.format("%.3f ± %.3f", r.corruptedMean(), r.corruptedSd()),
                "0.53",
                Verdicts.grade(drop && Math.abs(r.corruptedMean() - 0.53) <= 0.15, drop),
                drop
                        ? "K's eigenvectors, not its spectrum, carry the alignment (drop "
                                + f3(r.nfc() - r.corruptedMean()) + ")"
                        : "random eigenvectors do not lower the correlation enough"));
        // ±20%: the notes' replication gave 6.2 and 5.6 at two optimiser settings; > 2 still says "far from c·I"
        v.add(new Verdict(
                "K eigenvalue std/mean",
                String.format("%.2f", r.eigStdOverMean()),
                "5.9",
                Verdicts.grade(Math.abs(r.eigStdOverMean() / 5.9 - 1) <= 0.2, r.eigStdOverMean() > 2),
                "K far from a multiple of I, so the NFC is not trivially 1"));
        // the paper shows the EGOP's 5×5 block only as an image; the notes' replication measured 0.93
        v.add(new Verdict(
                "rho(W^TW, EGOP)",
                f3(r.nfmEgop()),
                "block visible (notes 0.93)",
                Verdicts.grade(r.nfmEgop() >= 0.85, r.nfmEgop() >= 0.6),
                "the NFM recovers the target's 5×5 block; rho(AGOP, EGOP) = " + f3(r.agopEgop())));
        return v;
    }

    private static String f3(double x) {
        return String.format("%.3f", x);
    }

    static double[] symmetricEigenvalues(DMatrixRMaj k) {
        EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(k.numRows, false, true);
        if (!eig.decompose(k.copy())) {
            throw new IllegalStateException("eigendecomposition failed");
        }
        double[] e = new double[k.numRows];
        for (int i = 0; i < e.length; i++) {
            e[i] = eig.getEigenvalue(i).getReal();
        }
        return e;
    }

    /** Q = U diag(λ) Uᵀ with U Haar-distributed (QR of a Gaussian matrix, signs fixed by R's diagonal). */
    static DMatrixRMaj randomEigenvectors(double[] lambda, SplittableRandom rng) {
        int n = lambda.length;
        DMatrixRMaj g = new DMatrixRMaj(n, n);
        for (int i = 0; i < g.data.length; i++) {
            g.data[i] = rng.nextGaussian();
        }
        QRDecomposition<DMatrixRMaj> qr = DecompositionFactory_DDRM.qr(n, n);
        if (!qr.decompose(g)) {
            throw new IllegalStateException("QR failed");
        }
        DMatrixRMaj u = qr.getQ(null, false);
        DMatrixRMaj rr = qr.getR(null, false);
        for (int j = 0; j < n; j++) {
            double s = Math.signum(rr.get(j, j));
            for (int i = 0; i < n; i++) {
                u.set(i, j, u.get(i, j) * (s == 0 ? 1 : s));
            }
        }
        DMatrixRMaj ul = u.copy();
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                ul.set(i, j, u.get(i, j) * lambda[j]);
            }
        }
        DMatrixRMaj q = new DMatrixRMaj(n, n);
        CommonOps_DDRM.multTransB(ul, u, q);
        return q;
    }

    /** WᵀQW for W (out × in). */
    static DMatrixRMaj sandwich(DMatrixRMaj w, DMatrixRMaj q) {
        DMatrixRMaj qw = new DMatrixRMaj(q.numRows, w.numCols);
        CommonOps_DDRM.mult(q, w, qw);
        DMatrixRMaj out = new DMatrixRMaj(w.numCols, w.numCols);
        CommonOps_DDRM.multTransA(w, qw, out);
        return out;
    }

    static double mean(double[] v) {
        double s = 0;
        for (double e : v) {
            s += e;
        }
        return s / v.length;
    }

    static double sd(double[] v) {
        double m = mean(v);
        double s = 0;
        for (double e : v) {
            s += (e - m) * (e - m);
        }
        return Math.sqrt(s / v.length);
    }

    private static double[][] square(DMatrixRMaj a, int size) {
        double[][] out = new double[size][size];
        for (int i = 0; i < size; i++) {
            for (int j = 0; j < size; j++) {
                out[i][j] = a.get(i, j);
            }
        }
        return out;
    }

    private static void write(
            Settings set, Path out, Result r, List<double[]> trace, FeatureAnsatz.Layer first, double[] egop) {
        double[] steps = trace.stream().mapToDouble(p -> p[0]).toArray();
        Map<String, double[]> s = new LinkedHashMap<>();
        s.put("layer 1 NFC ρ(F, Ḡ)", trace.stream().mapToDouble(p -> p[1]).toArray());
        s.put("layer 2 NFC", trace.stream().mapToDouble(p -> p[2]).toArray());
        s.put(
                "layer 1 centred NFC (undefined at init, drawn as 0)",
                trace.stream().mapToDouble(p -> p[3]).toArray());
        Plots.lines(
                out.resolve("nfc.png"),
                "NFC during training (chain monomial r = " + set.r() + ")",
                "GD step",
                "ρ",
                steps,
                s,
                false);
        int show = Math.min(set.d(), 12); // the r×r block and its surroundings; the rest is noise around 0
        Plots.heatmap(out.resolve("nfm.png"), "NFM WᵀW, first " + show + " inputs", square(first.nfm(), show));
        Plots.heatmap(out.resolve("agop.png"), "AGOP, first " + show + " inputs", square(first.agop(), show));
        Plots.heatmap(
                out.resolve("egop.png"),
                "EGOP A_r², first " + show + " inputs",
                square(new DMatrixRMaj(set.d(), set.d(), true, egop), show));
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("settings", set);
        json.put("result", r);
        json.put("verdicts", verdicts(r));
        Files2.writeString(out.resolve("results.json"), Specs.toJson(json) + "\n");
        Map<String, String> summary = new LinkedHashMap<>();
        summary.put(
                "training",
                String.format(
                        "train loss %.3g, test loss %.3g (½·MSE, labels of std 1); %.1f s",
                        r.trainLoss(), r.testLoss(), r.seconds()));
        summary.put(
                "first layer",
                String.format(
                        "NFC %.3f (at init %.3f), centred NFC %.3f; ρ(AGOP, EGOP) %.3f",
                        r.nfc(), r.initialNfc(), r.centredNfc(), r.agopEgop()));
        summary.put("second layer", String.format("NFC %.3f", r.secondLayerNfc()));
        new StudyReport("Feature learning as alignment, Fig. 1: the NFA on the chain monomial")
                .summary(summary)
                .notes(List.of(
                        String.format(
                                Locale.ROOT,
                                "Chain monomial r = %d, n = %d, d = %d (labels scaled to std 1); bias-free ReLU MLP"
                                        + " %d → %d → %d → 1, Gaussian init with PyTorch-default std 1/√(3·fan_in), first layer ×%s; full-batch"
                                        + " GD on ½·MSE, lr %s, %d steps (the paper does not state Fig. 1's optimiser: these are its Figs 5–10"
                                        + " settings). Corruption: %d draws of Q = UΛUᵀ with K's eigenvalues Λ and Haar U.",
                                set.r(),
                                set.n(),
                                set.d(),
                                set.d(),
                                set.width(),
                                set.width(),
                                set.firstScale(),
                                set.lr(),
                                set.steps(),
                                set.corruptions()),
                        "Paper: ρ(F, Ḡ) = 0.93, ρ(F, WᵀQW) = 0.53 (one Q), K's eigenvalue std = 5.9 × mean; the EGOP, NFM and AGOP"
                                + " all show the r×r block (image only)."))
                .verdicts(verdicts(r))
                .write(out);
    }
}
