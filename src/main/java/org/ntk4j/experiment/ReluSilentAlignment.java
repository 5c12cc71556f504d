package org.ntk4j.experiment;

import io.soabase.recordbuilder.core.RecordBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.ntk4j.data.DataPaths;
import org.ntk4j.data.Dataset;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.RegressionData;
import org.ntk4j.data.Split;
import org.ntk4j.data.Standardizer;
import org.ntk4j.data.Synthetic;
import org.ntk4j.data.Whitening;
import org.ntk4j.experiment.Verdicts.Verdict;
import org.ntk4j.job.RegressJob;
import org.ntk4j.report.Files2;
import org.ntk4j.report.HtmlReport;
import org.ntk4j.report.Npz;
import org.ntk4j.report.Plots;
import org.ntk4j.spec.Specs;

/**
 * Atanasov, Bordelon &amp; Pehlevan, "Neural networks as kernel learners: the silent alignment effect", Fig. 1a–c:
 * two-layer ReLU networks f = aᵀReLU(Wx) (N hidden units, no biases, W ~ N(0, σ²/D), a ~ N(0, σ²/N)) trained by
 * full-batch GD on the mean squared loss from small init on whitened two-class data with ±1 targets.
 * <ul>
 *   <li>silent alignment: the kernel–target alignment A(t) = yᵀKy/(‖K‖_F‖y‖²) (eq. 4) of the empirical NTK reaches
 *   90% of its rise before the loss has fallen by 10%;</li>
 *   <li>kernel regression (Atanasov et al. eq. 1, f₀ = 0, pseudo-inverse; the {@code ntk4j regress} code path,
 *   {@link RegressJob}, on an NPZ written like {@code ntk4j kernel}'s) with the final NTK K_∞ reproduces the trained
 *   network's test outputs better than with the initial K₀: corr(f_NN, f_KR∞) &gt; corr(f_NN, f_KR0).</li>
 * </ul>
 * Data: MNIST digits 0/1 (the full set when fetched, else the bundled subset) and CIFAR-10 classes 0/1 when fetched;
 * otherwise the notes' synthetic stand-in (anisotropic Gaussian inputs, labels of a random 4-unit ReLU teacher
 * thresholded at the median). Inputs are centred and whitened ({@link Whitening}, γ = 0, mean eigenvalue 1) and
 * trained in the coordinates of the whitened span ({@link Whitening#coordinates}: an isometry, exact for the i.i.d.
 * Gaussian first layer).
 *
 * <p>Fig. D.2: the same measurements for a depth-3 bias-free ReLU net ({@link DeepReluNet}, all layers N(0,
 * σ²/fan_in)) on the whitened MNIST 0/1 points, trained by full-batch GD. The paper states no settings for it; σ is
 * 0.03 (quick) / 0.01 (cpu): a depth-3 net escapes its small-init plateau on a time ∝ 1/σ (vs ln(1/σ) at depth 2).
 */
public final class ReluSilentAlignment {
    @RecordBuilder
    @RecordBuilder.Options(builderMode = RecordBuilder.BuilderMode.STAGED)
    public record Settings(
            int train,
            int test,
            int hidden,
            double sigma,
            double lr,
            int steps,
            int samples,
            boolean fetched,
            long seed,
            double deepSigma,
            double deepLr,
            int deepSteps) {
        public static Settings of(Scale scale) {
            return scale.choose(Settings::quick, Settings::cpu, Settings::paper);
        }

        public static Settings quick() {
            return ReluSilentAlignmentSettingsBuilder.builder()
                    .train(100)
                    .test(100)
                    .hidden(50)
                    .sigma(0.01)
                    .lr(0.2)
                    .steps(300)
                    .samples(40)
                    .fetched(false)
                    .seed(0)
                    .deepSigma(0.03)
                    .deepLr(0.5)
                    .deepSteps(800)
                    .build();
        }

        public static Settings cpu() {
            return ReluSilentAlignmentSettingsBuilder.builder()
                    .train(200)
                    .test(200)
                    .hidden(100)
                    .sigma(0.01)
                    .lr(0.2)
                    .steps(600)
                    .samples(60)
                    .fetched(true)
                    .seed(0)
                    .deepSigma(0.01)
                    .deepLr(0.2)
                    .deepSteps(4000)
                    .build();
        }

        public static Settings paper() {
            return ReluSilentAlignmentSettingsBuilder.builder()
                    .train(1000)
                    .test(1000)
                    .hidden(100)
                    .sigma(0.01)
                    .lr(0.05)
                    .steps(4000)
                    .samples(100)
                    .fetched(true)
                    .seed(0)
                    .deepSigma(0.01)
                    .deepLr(0.05)
                    .deepSteps(16000)
                    .build();
        }
    }

    /** One data set's run. */
    public record Row(
            String dataset,
            int dim,
            double[] time,
            double[] loss,
            double[] alignment,
            double[] kernelNorm,
            double alignTime,
            double lossTime,
            double corrFinal,
            double corrInitial,
            double errFinal,
            double errInitial,
            double nnTestAcc,
            double finalLoss) {}

    private ReluSilentAlignment() {}

    public static final Study STUDY = Study.of(
            "relu-silent-alignment",
            "Atanasov et al., Silent Alignment, Fig. 1a-c: two-layer ReLU nets on whitened MNIST 0/1 (and CIFAR-10"
                    + " 0/1 or a synthetic stand-in): the NTK aligns before the loss falls; regression with the final"
                    + " NTK (ntk4j regress) matches the trained net better than with K0; Fig. D.2: the same for a"
                    + " depth-3 ReLU net (~25 s)",
            (scale, out, manager) -> {
                List<Row> rows = run(Settings.of(scale), out);
                StringBuilder t = new StringBuilder(String.format(
                        "%-34s %6s %9s %9s %9s %9s %9s %8s%n",
                        "dataset", "dim", "t_align", "t_loss", "corr K_T", "corr K_0", "final A", "NN acc"));
                for (Row r : rows) {
                    t.append(String.format(
                            Locale.ROOT,
                            "%-34s %6d %9.2f %9.2f %9.4f %9.4f %9.4f %8.3f%n",
                            r.dataset(),
                            r.dim(),
                            r.alignTime(),
                            r.lossTime(),
                            r.corrFinal(),
                            r.corrInitial(),
                            r.alignment()[r.alignment().length - 1],
                            r.nnTestAcc()));
                }
                return t + "\n" + Verdicts.text(verdicts(rows));
            });

    /** Whitened two-class data in span coordinates: train/test inputs and ±1 targets. */
    record Data(String name, double[] xTrain, double[] yTrain, double[] xTest, double[] yTest, int dim) {}

    static Data whiten(String name, float[] xTr, double[] yTr, float[] xTe, double[] yTe, int n, int d) {
        return whiten(name, xTr, yTr, xTe, yTe, n, d, 0);
    }

    /**
     * Centred and partially whitened, X_γ = U S^γ Vᵀ (γ = 0 whitened, γ = 1 raw; {@link Whitening}, mean retained
     * eigenvalue 1), in the coordinates of the training span (test points are projected onto it).
     */
    static Data whiten(String name, float[] xTr, double[] yTr, float[] xTe, double[] yTe, int n, int d, double gamma) {
        Standardizer st = Standardizer.fit(xTr, n, d, Standardizer.Mode.CENTRE);
        float[] a = st.apply(xTr);
        float[] b = st.apply(xTe);
        Whitening w = Whitening.fit(a, n, d, gamma, Whitening.DEFAULT_RCOND, Whitening.Rescale.UNIT_MEAN_EIGENVALUE);
        return new Data(
                name + " (rank " + w.rank() + ")",
                SolvableDynamics.toDouble(w.coordinates(a)),
                yTr,
                SolvableDynamics.toDouble(w.coordinates(b)),
                yTe,
                w.rank());
    }

    static Data images(String dataset, Settings set) {
        return images(dataset, set.train(), set.test(), 0);
    }

    /** The first {@code train}/{@code test} images of classes 0 and 1, ±1 targets, at whitening exponent γ. */
    static Data images(String dataset, int train, int test, double gamma) {
        Dataset tr = Preprocess.flatten(Preprocess.classSubset(Datasets.load(dataset, Split.TRAIN), 0, 1))
                .head(train);
        Dataset te = Preprocess.flatten(Preprocess.classSubset(Datasets.load(dataset, Split.TEST), 0, 1))
                .head(test);
        return whiten(
                dataset + " 0/1, " + tr.size() + "/" + te.size() + (gamma == 0 ? "" : ", gamma " + gamma),
                tr.features(),
                pm(tr.labels()),
                te.features(),
                pm(te.labels()),
                tr.size(),
                tr.featureDim(),
                gamma);
    }

    private static double[] pm(int[] labels) {
        double[] y = new double[labels.length];
        for (int i = 0; i < y.length; i++) {
            y[i] = labels[i] == 1 ? 1 : -1;
        }
        return y;
    }

    static boolean fetched(String name) {
        return Files.isDirectory(DataPaths.datasetDir(DataPaths.dataDir(), name));
    }

    public static List<Row> run(Settings set, Path out) {
        List<Data> sets = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        sets.add(images(set.fetched() && fetched(Datasets.MNIST) ? Datasets.MNIST : Datasets.MNIST_SUBSET, set));
        if (set.fetched() && fetched(Datasets.CIFAR10)) {
            sets.add(images(Datasets.CIFAR10, set));
        } else {
            notes.add(
                    "CIFAR-10 is not on this machine (ntk4j data fetch cifar10): its panel (Fig. 1c) is replaced by"
                            + " the synthetic stand-in (D = 50, covariance eigenvalues 1/k, 4-unit ReLU teacher, median labels).");
            int n = set.train() + set.test();
            RegressionData r = Synthetic.reluTeacherMedianLabels(n, 50, 1, 4, set.seed() + 3);
            RegressionData a = r.rows(0, set.train());
            RegressionData b = r.rows(set.train(), n);
            sets.add(whiten(
                    "synthetic ReLU-teacher stand-in",
                    a.x(),
                    SolvableDynamics.toDouble(a.y()),
                    b.x(),
                    SolvableDynamics.toDouble(b.y()),
                    set.train(),
                    50));
        }
        List<Row> rows = new ArrayList<>();
        for (Data d : sets) {
            rows.add(train(d, set, out));
        }
        // Fig. D.2: a depth-3 ReLU net on the same whitened MNIST 0/1 points
        Data mnist = sets.get(0);
        DeepReluNet deep = new DeepReluNet(3, set.hidden(), mnist.dim(), set.deepSigma(), set.seed() + 7);
        rows.add(measure(
                mnist,
                "depth 3, " + mnist.name(),
                deep(deep, set.deepLr()),
                set.deepSteps(),
                set.deepLr(),
                set.samples(),
                out));
        write(set, out, rows, notes);
        return rows;
    }

    static double alignment(double[][] k, double[] y) {
        double yky = 0;
        double f = 0;
        double yy = 0;
        for (int i = 0; i < y.length; i++) {
            yy += y[i] * y[i];
            for (int j = 0; j < y.length; j++) {
                yky += y[i] * k[i][j] * y[j];
                f += k[i][j] * k[i][j];
            }
        }
        return yky / (Math.sqrt(f) * yy);
    }

    /** What the silent-alignment measurement needs of a scalar-output network trained on one data set. */
    interface KernelNet {
        /** The empirical NTK between the na rows of xa and the nb rows of xb. */
        double[][] ntk(double[] xa, int na, double[] xb, int nb);

        /** f(x) of the row stored at x[off ..]. */
        double forward(double[] x, int off);

        /** Mean of (f − y)² over the rows of x. */
        double loss(double[] x, double[] y);

        /** One full-batch optimiser step. */
        void step(double[] x, double[] y);
    }

    /** {@link TwoLayerNet} (scalar output) trained by GD with step lr, or by Adam with step size lr. */
    static KernelNet twoLayer(TwoLayerNet net, double lr, boolean adam) {
        return new KernelNet() {
            @Override
            public double[][] ntk(double[] xa, int na, double[] xb, int nb) {
                return net.ntk(xa, SolvableDynamics.range(na), xb, SolvableDynamics.range(nb));
            }

            @Override
            public double forward(double[] x, int off) {
                return net.forward(x, off)[0];
            }

            @Override
            public double loss(double[] x, double[] y) {
                return net.loss(x, y, SolvableDynamics.range(y.length), TwoLayerNet.Loss.MSE);
            }

            @Override
            public void step(double[] x, double[] y) {
                int[] idx = SolvableDynamics.range(y.length);
                if (adam) {
                    net.adamStep(x, y, idx, TwoLayerNet.Loss.MSE, lr);
                } else {
                    net.sgdStep(x, y, idx, TwoLayerNet.Loss.MSE, lr, lr);
                }
            }
        };
    }

    /** {@link DeepReluNet} trained by full-batch GD with step lr. */
    static KernelNet deep(DeepReluNet net, double lr) {
        return new KernelNet() {
            @Override
            public double[][] ntk(double[] xa, int na, double[] xb, int nb) {
                return net.ntk(xa, na, xb, nb);
            }

            @Override
            public double forward(double[] x, int off) {
                return net.forward(x, off);
            }

            @Override
            public double loss(double[] x, double[] y) {
                return net.loss(x, y);
            }

            @Override
            public void step(double[] x, double[] y) {
                net.gdStep(x, y, lr);
            }
        };
    }

    static Row train(Data data, Settings set, Path out) {
        TwoLayerNet net = TwoLayerNet.gaussian(
                set.hidden(),
                data.dim(),
                1,
                1,
                true,
                set.sigma() / Math.sqrt(set.hidden()),
                set.sigma() / Math.sqrt(data.dim()),
                set.seed() + 5);
        return measure(data, data.name(), twoLayer(net, set.lr(), false), set.steps(), set.lr(), set.samples(), out);
    }

    /**
     * Trains {@code net} for {@code steps} steps (time t = step·dt), sampling the loss, the NTK alignment (eq. 4) and
     * ‖K‖_F at {@code samples} log-spaced steps; then the time the alignment reaches 90% of its rise, the time the
     * loss is down 10%, and the test outputs of kernel regression with the final and the initial NTK against the net.
     */
    static Row measure(Data data, String label, KernelNet net, int steps, double dt, int samples, Path out) {
        int n = data.yTrain().length;
        int m = data.yTest().length;
        int dim = data.dim();
        double[][] k0 = net.ntk(data.xTrain(), n, data.xTrain(), n);
        double[][] k0t = net.ntk(data.xTest(), m, data.xTrain(), n);
        List<double[]> rec = new ArrayList<>();
        int next = 0;
        int sample = 0;
        for (int s = 0; s <= steps; s++) {
            if (s == next || s == steps) {
                double[][] k = s == 0 ? k0 : net.ntk(data.xTrain(), n, data.xTrain(), n);
                double fro = 0;
                for (double[] row : k) {
                    for (double v : row) {
                        fro += v * v;
                    }
                }
                rec.add(new double[] {
                    s * dt, net.loss(data.xTrain(), data.yTrain()), alignment(k, data.yTrain()), Math.sqrt(fro)
                });
                sample++;
                // log-spaced samples: step k = steps^(sample/samples), at least one step apart
                next = Math.max(s + 1, (int) Math.round(Math.pow(steps, sample / (double) samples)));
            }
            if (s < steps) {
                net.step(data.xTrain(), data.yTrain());
            }
        }
        double[][] kt = net.ntk(data.xTrain(), n, data.xTrain(), n);
        double[][] ktt = net.ntk(data.xTest(), m, data.xTrain(), n);
        double[] fnn = new double[m];
        int ok = 0;
        for (int i = 0; i < m; i++) {
            fnn[i] = net.forward(data.xTest(), i * dim);
            ok += Math.signum(fnn[i]) == Math.signum(data.yTest()[i]) ? 1 : 0;
        }
        String tag = label.replaceAll("[^A-Za-z0-9]+", "-");
        double[] fInf = regress(out.resolve(tag + "-final-ntk.npz"), kt, ktt, data);
        double[] fZero = regress(out.resolve(tag + "-initial-ntk.npz"), k0, k0t, data);
        double[] time = rec.stream().mapToDouble(r -> r[0]).toArray();
        double[] loss = rec.stream().mapToDouble(r -> r[1]).toArray();
        double[] align = rec.stream().mapToDouble(r -> r[2]).toArray();
        double[] norm = rec.stream().mapToDouble(r -> r[3]).toArray();
        double aMax = java.util.Arrays.stream(align).max().orElse(align[0]);
        double alignTime = Double.NaN;
        double lossTime = Double.NaN;
        for (int i = 0; i < time.length; i++) {
            if (Double.isNaN(alignTime) && align[i] >= align[0] + 0.9 * (aMax - align[0])) {
                alignTime = time[i];
            }
            if (Double.isNaN(lossTime) && loss[i] <= 0.9 * loss[0]) {
                lossTime = time[i];
            }
        }
        return new Row(
                label,
                dim,
                time,
                loss,
                align,
                norm,
                alignTime,
                lossTime,
                corr(fnn, fInf),
                corr(fnn, fZero),
                relErr(fInf, fnn),
                relErr(fZero, fnn),
                ok / (double) m,
                loss[loss.length - 1]);
    }

    /** Writes the kernels as {@code ntk4j kernel} does (ntk, ntk_test, y1, y2) and runs {@link RegressJob} on them. */
    static double[] regress(Path file, double[][] k, double[][] kt, Data data) {
        int n = k.length;
        int m = kt.length;
        float[] a = new float[n * n];
        float[] b = new float[m * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                a[i * n + j] = (float) k[i][j];
            }
        }
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                b[i * n + j] = (float) kt[i][j];
            }
        }
        new Npz()
                .put("ntk", a, n, n)
                .put("ntk_test", b, m, n)
                .put("y1", toFloat(data.yTrain()), n, 1)
                .put("y2", toFloat(data.yTest()), m, 1)
                .write(file);
        RegressJob.Result r =
                RegressJob.compute(new RegressJob.Config(file, file.getParent(), 0, 1, Double.POSITIVE_INFINITY));
        double[] f = new double[m];
        for (int i = 0; i < m; i++) {
            f[i] = r.testPrediction().get(i, 0);
        }
        return f;
    }

    private static float[] toFloat(double[] v) {
        float[] f = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            f[i] = (float) v[i];
        }
        return f;
    }

    static double corr(double[] a, double[] b) {
        double ma = java.util.Arrays.stream(a).average().orElse(0);
        double mb = java.util.Arrays.stream(b).average().orElse(0);
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

    static double relErr(double[] f, double[] ref) {
        double e = 0;
        double r = 0;
        for (int i = 0; i < f.length; i++) {
            e += (f[i] - ref[i]) * (f[i] - ref[i]);
            r += ref[i] * ref[i];
        }
        return Math.sqrt(e / r);
    }

    static List<Verdict> verdicts(List<Row> rows) {
        List<Verdict> v = new ArrayList<>();
        for (Row r : rows) {
            // silent alignment: 90% of the alignment rise before a 10% loss drop (the paper: alignment by t ≈ 50,
            // loss moving at t ≈ 300, Fig. 1a)
            boolean before = r.alignTime() < r.lossTime();
            v.add(new Verdict(
                    "alignment before loss (" + r.dataset() + ")",
                    String.format(Locale.ROOT, "t_A90 %.2f, t_L10 %.2f", r.alignTime(), r.lossTime()),
                    "align first",
                    Verdicts.grade(before && r.alignTime() < 0.5 * r.lossTime(), before),
                    String.format(
                            Locale.ROOT,
                            "A %.3f → %.3f; ‖K‖_F ×%.3g; final loss %.3g",
                            r.alignment()[0],
                            r.alignment()[r.alignment().length - 1],
                            r.kernelNorm()[r.kernelNorm().length - 1] / r.kernelNorm()[0],
                            r.finalLoss())));
            // Fig. 1b: K_∞ regression tracks the NN (the notes' numpy stand-in: 0.98 whitened), K₀ worse (0.83)
            v.add(new Verdict(
                    "KR(K_T) matches NN better than KR(K_0) (" + r.dataset() + ")",
                    String.format(Locale.ROOT, "corr %.3f vs %.3f", r.corrFinal(), r.corrInitial()),
                    "K_∞ close, K_0 poor",
                    Verdicts.grade(
                            r.corrFinal() > 0.9 && r.corrFinal() > r.corrInitial() + 0.02,
                            r.corrFinal() > r.corrInitial()),
                    String.format(
                            Locale.ROOT,
                            "relative L2 error %.3f vs %.3f; NN test acc %.3f",
                            r.errFinal(),
                            r.errInitial(),
                            r.nnTestAcc())));
        }
        return v;
    }

    private static void write(Settings set, Path out, List<Row> rows, List<String> notes) {
        Map<String, String> summary = new LinkedHashMap<>();
        for (Row r : rows) {
            String tag = r.dataset().replaceAll("[^A-Za-z0-9]+", "-");
            Map<String, double[]> s = new LinkedHashMap<>();
            double a0 = r.alignment()[0];
            double aT = java.util.Arrays.stream(r.alignment()).max().orElse(a0);
            double[] an = java.util.Arrays.stream(r.alignment())
                    .map(a -> (a - a0) / Math.max(aT - a0, 1e-12))
                    .toArray();
            s.put("alignment rise (fraction)", an);
            s.put(
                    "loss / loss₀",
                    java.util.Arrays.stream(r.loss()).map(l -> l / r.loss()[0]).toArray());
            // log-spaced samples drawn on a log₁₀ t axis (t = 0 at half the first step)
            double t1 = r.time()[1];
            double[] t = java.util.Arrays.stream(r.time())
                    .map(x -> Math.log10(Math.max(x, 0.5 * t1)))
                    .toArray();
            Plots.lines(
                    out.resolve(tag + ".png"), "Silent alignment, " + r.dataset(), "log₁₀ t", "fraction", t, s, false);
            summary.put(
                    r.dataset(),
                    String.format(
                            Locale.ROOT,
                            "alignment %.4f → %.4f (90%% of its rise at t = %.2f); loss down 10%% at t = %.2f; test"
                                    + " outputs: corr(NN, KR K_T) %.4f, corr(NN, KR K_0) %.4f; relative errors %.3f /"
                                    + " %.3f; NN test accuracy %.3f",
                            r.alignment()[0],
                            r.alignment()[r.alignment().length - 1],
                            r.alignTime(),
                            r.lossTime(),
                            r.corrFinal(),
                            r.corrInitial(),
                            r.errFinal(),
                            r.errInitial(),
                            r.nnTestAcc()));
        }
        Files2.writeString(
                out.resolve("results.json"),
                Specs.toJson(Map.of("settings", set, "rows", rows, "notes", notes)) + "\n");
        List<String> n = new ArrayList<>(notes);
        n.add(String.format(
                Locale.ROOT,
                "P = %d train / %d test, N = %d hidden, σ = %s, full-batch GD on mean (f − y)² with step %s for %d steps"
                        + " (t = step·lr); kernel regression on the kernels written as NPZ files next to this report"
                        + " (the ntk4j regress code path, pseudo-inverse, f₀ = 0). The paper uses P = 1000 and does not"
                        + " state its step, steps or comparison metric.",
                set.train(),
                set.test(),
                set.hidden(),
                set.sigma(),
                set.lr(),
                set.steps()));
        HtmlReport.write(out, "Atanasov et al., Silent Alignment, Figs. 1a-c and D.2: ReLU networks", summary, n);
        Verdicts.addToReport(out, verdicts(rows));
    }
}
