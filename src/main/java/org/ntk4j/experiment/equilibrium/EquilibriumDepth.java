package org.ntk4j.experiment.equilibrium;

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
import java.util.SplittableRandom;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.experiment.support.Paper;
import org.ntk4j.experiment.support.Scale;
import org.ntk4j.experiment.support.Series;
import org.ntk4j.experiment.support.Study;
import org.ntk4j.experiment.support.StudyBuilder;
import org.ntk4j.experiment.support.StudyData;
import org.ntk4j.experiment.support.StudyReport;
import org.ntk4j.experiment.support.Tables;
import org.ntk4j.experiment.support.Verdicts;
import org.ntk4j.experiment.support.Verdicts.Verdict;
import org.ntk4j.job.TrainRun;
import org.ntk4j.model.Network;
import org.ntk4j.report.Chart;
import org.ntk4j.report.Files2;
import org.ntk4j.report.Plots;
import org.ntk4j.report.RunFolder;
import org.ntk4j.report.RunReport;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.theory.EquilibriumHypothesis;
import org.ntk4j.train.TrainLoop;

/**
 * Fig. 2 and Tables 1–3 of Lou, Mingard and Hayou, "The Equilibrium Hypothesis: Rethinking implicit
 * regularization in Deep Neural Networks": the most-aligned layer moves deeper as L^{3/5}. For each depth
 * L a bias-free ReLU FFNN ({@link EquilibriumSetup}) is trained (SGD at the paper's scale); at the end the layer CKA of
 * Eq. 5 ({@link org.ntk4j.metrics.LayerCka}) is taken for every layer on a class-balanced training sample,
 * l*(L) = argmax_l A_l, and log l* is fitted against log L:
 * <pre>
 *   fixed slope (Cor. 5):  log l* = (3/5) log L + C,   C = mean_j (log l*_j − 0.6 log L_j)
 *   free OLS:              log l* = a log L + b,       a with a 95% bootstrap interval (depths resampled)
 * </pre>
 * beside the closed-form equilibrium layer l_eq(L) of {@link EquilibriumHypothesis#equilibriumLayer} (the
 * first l with D_f(l) ≤ C·D_b(l, L), ε = 0.1, C = 1; {@code ntk4j theory equilibrium}), and the test
 * accuracies beside the paper's Tables 1–3. The heatmap is Fig. 2's: A_l / max_l A_l at relative depth
 * l/L (rows) for each L (columns).
 *
 * <p>Scale: {@code paper} runs Tables 1–3 as stated (depths 10…100, their lr and epochs, MNIST and
 * Fashion-MNIST at width 100, CIFAR-10 at width 256, full training sets; batch 32, momentum 0.9, weight
 * decay 5e-4 not stated in the paper). {@code cpu} (default) trains width 100 on a class-balanced 50 images per
 * class of MNIST (the bundled subset when MNIST is not fetched) for depths 10…50 by Adam at lr 1e-4, three seeds per
 * depth, each to 99% training accuracy (at most 200 epochs): with SGD and momentum at Table 3's lrs the nets of
 * depth ≥ 40 stalled or fell back to chance on a CPU budget, and l* of untrained nets is not comparable.
 */
public final class EquilibriumDepth {
    /** The paper's Table 1 (CIFAR-10, width 256), Table 2 (Fashion-MNIST, width 100), Table 3 (MNIST, width 100). */
    static final Map<String, double[][]> TABLES = Map.of(
            org.ntk4j.data.Datasets.CIFAR10,
            new double[][] {
                {0.005, 0.003, 0.003, 0.001, 0.001, 0.0007, 0.0005, 0.0005, 0.0001, 0.0001},
                {100, 100, 150, 200, 250, 300, 300, 500, 500, 700},
                {0.56, 0.583, 0.577, 0.587, 0.58, 0.583, 0.591, 0.572, 0.569, 0.56}
            },
            org.ntk4j.data.Datasets.FASHION_MNIST,
            new double[][] {
                {0.003, 0.004, 0.004, 0.002, 0.001, 0.0007, 0.0003, 0.0002, 0.0001, 7e-5},
                {100, 100, 100, 100, 100, 100, 200, 200, 300, 300},
                {0.883, 0.886, 0.896, 0.889, 0.884, 0.877, 0.887, 0.879, 0.876, 0.88}
            },
            org.ntk4j.data.Datasets.MNIST,
            new double[][] {
                {0.003, 0.003, 0.003, 0.002, 0.001, 0.0007, 0.0002, 0.0001, 0.0002, 0.0001},
                {100, 100, 100, 100, 100, 100, 200, 200, 300, 300},
                {0.97, 0.97, 0.969, 0.976, 0.976, 0.976, 0.948, 0.944, 0.961, 0.958}
            });

    /** One depth sweep: a dataset, the width, and per depth the lr and epochs (and the paper's test accuracy, NaN if none). */
    public record Sweep(String dataset, int width, int[] depths, double[] lrs, int[] epochs) {}

    /**
     * Settings.
     *
     * @param sweeps        the depth sweeps (per depth the lr and the largest number of epochs)
     * @param optimizer     {@code sgd} (momentum 0.9, weight decay 5e-4, as the paper) or {@code adam} (no weight decay)
     * @param batch         batch size
     * @param perClass      CKA sample per class
     * @param trainPerClass training cap per class (0 = all)
     * @param seeds         networks per depth (seeds seed … seed + seeds − 1)
     * @param target        the training accuracy every run trains to (0: the epochs as stated); checked every
     *                      {@code chunk} epochs, up to the sweep's epochs
     * @param chunk         epochs between checks
     * @param testCap       test images scored (0 = all)
     * @param bootstrap     bootstrap resamples of the slope
     * @param seed          seed
     */
    @RecordBuilder
    @RecordBuilder.Options(builderMode = RecordBuilder.BuilderMode.STAGED)
    public record Settings(
            List<Sweep> sweeps,
            String optimizer,
            int batch,
            int perClass,
            int trainPerClass,
            int seeds,
            double target,
            int chunk,
            int testCap,
            int bootstrap,
            long seed) {
        /** {@link #quick()} for the tests, {@link #cpu()} (default), {@link #paper()}. */
        public static Settings of(Scale scale) {
            return scale.choose(Settings::quick, Settings::cpu, Settings::paper);
        }

        /** Tables 1–3 as stated: depths 10…100 with their lr and epochs, full training sets. */
        public static Settings paper() {
            List<Sweep> s = new ArrayList<>();
            for (String ds : List.of(
                    org.ntk4j.data.Datasets.MNIST,
                    org.ntk4j.data.Datasets.FASHION_MNIST,
                    org.ntk4j.data.Datasets.CIFAR10)) {
                double[][] t = TABLES.get(ds);
                int[] depths = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
                s.add(new Sweep(
                        ds,
                        ds.equals(org.ntk4j.data.Datasets.CIFAR10) ? 256 : 100,
                        depths,
                        t[0].clone(),
                        Arrays.stream(t[1]).mapToInt(v -> (int) v).toArray()));
            }
            return EquilibriumDepthSettingsBuilder.builder()
                    .sweeps(s)
                    .optimizer("sgd")
                    .batch(32)
                    .perClass(10)
                    .trainPerClass(0)
                    .seeds(1)
                    .target(0)
                    .chunk(1)
                    .testCap(0)
                    .bootstrap(2000)
                    .seed(0)
                    .build();
        }

        /**
         * MNIST (or the bundled subset), width 100, depths 10…50, 50 training images per class, three seeds per
         * depth, each trained by Adam (lr 1e-4, batch 32) to 99% training accuracy, checked every 5 epochs, at most 200.
         * SGD with momentum at Table 3's lrs does not get there on a CPU budget: at depth 50 it stalled at 38% after 120
         * epochs on 100 images per class (lr 0.001) and fell back to chance after reaching 40% on 30 per class.
         */
        public static Settings cpu() {
            String ds = StudyData.mnistIfPresent();
            int[] depths = {10, 20, 30, 40, 50};
            return EquilibriumDepthSettingsBuilder.builder()
                    .sweeps(List.of(
                            new Sweep(ds, 100, depths, constant(depths.length, 1e-4), intConstant(depths.length, 200))))
                    .optimizer("adam")
                    .batch(32)
                    .perClass(5)
                    .trainPerClass(50)
                    .seeds(3)
                    .target(0.99)
                    .chunk(5)
                    .testCap(2000)
                    .bootstrap(2000)
                    .seed(0)
                    .build();
        }

        /**
         * The bundled MNIST subset (30 images per class), width 64, depths 5, 10, 15, two seeds, trained to 60%
         * training accuracy (checked every 2 epochs, at most 6) at lr 0.003.
         */
        public static Settings quick() {
            int[] depths = {5, 10, 15};
            return EquilibriumDepthSettingsBuilder.builder()
                    .sweeps(List.of(new Sweep(
                            org.ntk4j.data.Datasets.MNIST_SUBSET,
                            64,
                            depths,
                            constant(depths.length, 0.003),
                            intConstant(depths.length, 6))))
                    .optimizer("sgd")
                    .batch(32)
                    .perClass(5)
                    .trainPerClass(30)
                    .seeds(2)
                    .target(0.6)
                    .chunk(2)
                    .testCap(500)
                    .bootstrap(1000)
                    .seed(0)
                    .build();
        }
    }

    /** One trained depth: Eq. 5 per layer at the end, its argmax (1-based), l_eq, accuracy and the paper's. */
    public record Point(
            String dataset,
            int depth,
            long seed,
            double lr,
            int epochs,
            double[] cka,
            int peakLayer,
            int equilibriumLayer,
            double trainAccuracy,
            double testAccuracy,
            double paperAccuracy,
            double seconds) {}

    /**
     * The fits of one sweep: the free OLS slope a and intercept b with a 95% bootstrap interval of a, the
     * fixed-slope constant C, and the closed-form l_eq's OLS slope over the same depths.
     */
    public record Fit(
            String dataset,
            double slope,
            double intercept,
            double slopeLow,
            double slopeHigh,
            double fixedC,
            double fixedRms,
            double freeRms,
            double theorySlope) {}

    /** The study's points and fits. */
    public record Result(List<Point> points, List<Fit> fits) {}

    private EquilibriumDepth() {}

    /** The study as {@code ntk4j reproduce equilibrium-depth} runs it. */
    public static final Study STUDY = StudyBuilder.builder()
            .name("equilibrium-depth")
            .paper(Paper.EQUILIBRIUM_HYPOTHESIS)
            .figures("Fig. 2, Tables 1-3")
            .claim("argmax-CKA layer l* grows as L^(3/5) over depths 10..100 (log l* = 3/5 log L + C)")
            .summary(
                    "Equilibrium Hypothesis Fig. 2, Tables 1-3: the argmax-CKA layer l* against depth L = 10..50 (paper"
                            + " 10..100), fit log l* = a log L + C against a = 3/5 with a bootstrap interval, and the"
                            + " closed-form l_eq(L); 3 seeds per depth, each trained by Adam to 99% train accuracy on 50 MNIST"
                            + " images per class (paper: SGD on the full set)")
            .runner((scale, out, manager) -> {
                Settings set = Settings.of(scale);
                Result r = run(set, out, manager);
                StringBuilder t = new StringBuilder(String.format(
                        "%-14s %5s %4s %7s %6s %9s %5s %5s %6s %8s %8s%n",
                        "dataset",
                        "L",
                        "seed",
                        "lr",
                        "epochs",
                        "train acc",
                        "l*",
                        "l_eq",
                        "L^0.6",
                        "test acc",
                        "paper"));
                for (Point p : r.points()) {
                    t.append(String.format(
                            Locale.ROOT,
                            "%-14s %5d %4d %7s %6d %9.4f %5d %5d %6.2f %8.4f %8s%n",
                            p.dataset(),
                            p.depth(),
                            p.seed(),
                            p.lr(),
                            p.epochs(),
                            p.trainAccuracy(),
                            p.peakLayer(),
                            p.equilibriumLayer(),
                            Math.pow(p.depth(), 0.6),
                            p.testAccuracy(),
                            Double.isNaN(p.paperAccuracy()) ? "-" : String.format("%.3f", p.paperAccuracy())));
                }
                for (Fit f : r.fits()) {
                    t.append(String.format(
                            Locale.ROOT,
                            "%s: OLS slope a = %.3f [%.3f, %.3f] (95%% bootstrap), b = %.3f; fixed 3/5: C = %.3f;"
                                    + " l_eq slope %.3f%n",
                            f.dataset(),
                            f.slope(),
                            f.slopeLow(),
                            f.slopeHigh(),
                            f.intercept(),
                            f.fixedC(),
                            f.theorySlope()));
                }
                return t + "\n" + Verdicts.text(verdicts(r, set));
            })
            .build();

    /** Trains every sweep's depths, measures Eq. 5 at the end, fits, writes plots, results.json and report.html. */
    public static Result run(Settings set, Path out, NDManager manager) {
        List<Point> points = new ArrayList<>();
        List<Fit> fits = new ArrayList<>();
        for (Sweep sw : set.sweeps()) {
            EquilibriumSetup.Data d =
                    EquilibriumSetup.data(sw.dataset(), true, set.trainPerClass(), set.perClass(), set.seed());
            double[][] table = TABLES.get(sw.dataset());
            List<Point> sp = new ArrayList<>();
            LabelledSet test = set.testCap() > 0 && d.test().size() > set.testCap()
                    ? d.test().head(set.testCap())
                    : d.test();
            for (int j = 0; j < sw.depths().length; j++) {
                int depth = sw.depths()[j];
                for (int k = 0; k < set.seeds(); k++) {
                    long seed = set.seed() + k;
                    long t0 = System.nanoTime();
                    ModelSpec spec = EquilibriumSetup.ffnn(
                            d.train().featureDim(), depth, sw.width(), d.train().numClasses());
                    String tag = sw.dataset() + "-L" + depth + (set.seeds() > 1 ? "-s" + seed : "");
                    Trained tr = trainToTarget(
                            manager,
                            spec,
                            set,
                            new Schedule(sw.lrs()[j], sw.epochs()[j], seed),
                            d,
                            test,
                            out.resolve(tag));
                    int row = depth / 10 - 1;
                    double paperAcc =
                            table != null && depth % 10 == 0 && row >= 0 && row < 10 ? table[2][row] : Double.NaN;
                    sp.add(new Point(
                            sw.dataset(),
                            depth,
                            seed,
                            sw.lrs()[j],
                            tr.epochs(),
                            tr.cka(),
                            Series.argmax(tr.cka()) + 1,
                            EquilibriumHypothesis.equilibriumLayer(depth, 0.1, 1),
                            tr.result().trainAccuracy(),
                            tr.result().testAccuracy(),
                            paperAcc,
                            (System.nanoTime() - t0) / 1e9));
                }
            }
            points.addAll(sp);
            fits.add(fit(sw.dataset(), sp, set.bootstrap(), set.seed()));
        }
        Result r = new Result(points, fits);
        write(set, out, r);
        return r;
    }

    /** A trained network's last training result, the epochs it took and Eq. 5 per layer at the end. */
    record Trained(TrainLoop.Result result, int epochs, double[] cka) {}

    /** One network's learning rate, epoch budget and seed. */
    record Schedule(double lr, int maxEpochs, long seed) {}

    /**
     * Trains one network (seed {@code seed}) in chunks of {@code set.chunk()} epochs until its training accuracy
     * reaches {@code set.target()} or {@code maxEpochs} have run (target 0: {@code maxEpochs} in one go), each chunk
     * in its own run folder under {@code dir} (the optimiser's state, momentum or Adam's moments, restarts with each chunk); then Eq. 5 per layer.
     */
    static Trained trainToTarget(
            NDManager manager,
            ModelSpec spec,
            Settings set,
            Schedule schedule,
            EquilibriumSetup.Data d,
            LabelledSet test,
            Path dir) {
        double lr = schedule.lr();
        int maxEpochs = schedule.maxEpochs();
        long seed = schedule.seed();
        int chunk = set.target() > 0 ? Math.max(1, set.chunk()) : maxEpochs;
        try (NDManager m = manager.newSubManager();
                Network net = Network.build(spec, seed, m, DataType.FLOAT32)) {
            TrainLoop.Result res = null;
            int done = 0;
            int part = 0;
            while (done < maxEpochs && (res == null || res.trainAccuracy() < set.target())) {
                int epochs = Math.min(chunk, maxEpochs - done);
                TrainSpec t = "adam".equals(set.optimizer())
                        ? EquilibriumSetup.adam(lr, set.batch(), epochs, seed + 1000L * part)
                        : EquilibriumSetup.sgd(lr, set.batch(), epochs, seed + 1000L * part);
                RunFolder run =
                        new RunFolder(StudyData.fresh(chunk == maxEpochs ? dir : dir.resolve("part-" + ++part)));
                res = TrainRun.trainer(net, t, d.train(), test, run).quiet(true).fit(false);
                RunReport.write(
                        run, spec.name() + " on " + d.name() + ", epochs " + (done + 1) + "–" + (done + epochs));
                done += epochs;
            }
            return new Trained(res, done, EquilibriumSetup.layerCka(net, d.probe()));
        }
    }

    /** The fixed-slope and free fits of log l* on log L, and the bootstrap interval of the free slope. */
    static Fit fit(String dataset, List<Point> sp, int resamples, long seed) {
        int n = sp.size();
        double[] x = new double[n];
        double[] y = new double[n];
        double[] yEq = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = Math.log(sp.get(i).depth());
            y[i] = Math.log(sp.get(i).peakLayer());
            yEq[i] = Math.log(sp.get(i).equilibriumLayer());
        }
        double[] ab = ols(x, y);
        double c = 0;
        for (int i = 0; i < n; i++) {
            c += (y[i] - 0.6 * x[i]) / n;
        }
        double fixedRss = 0;
        double freeRss = 0;
        for (int i = 0; i < n; i++) {
            fixedRss += Math.pow(y[i] - 0.6 * x[i] - c, 2);
            freeRss += Math.pow(y[i] - ab[0] * x[i] - ab[1], 2);
        }
        double[] ci = bootstrapSlope(x, y, resamples, seed);
        return new Fit(
                dataset,
                ab[0],
                ab[1],
                ci[0],
                ci[1],
                c,
                Math.sqrt(fixedRss / n),
                Math.sqrt(freeRss / n),
                ols(x, yEq)[0]);
    }

    /** OLS of y on x: {slope, intercept} (slope NaN when x is constant). */
    static double[] ols(double[] x, double[] y) {
        int n = x.length;
        double mx = Arrays.stream(x).average().orElse(Double.NaN);
        double my = Arrays.stream(y).average().orElse(Double.NaN);
        double sxy = 0;
        double sxx = 0;
        for (int i = 0; i < n; i++) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
        }
        double a = sxx > 0 ? sxy / sxx : Double.NaN;
        return new double[] {a, my - a * mx};
    }

    /**
     * The 2.5% and 97.5% percentiles of the OLS slope over {@code resamples} case-resamples of the (log L,
     * log l*) pairs (resamples with a single distinct depth are redrawn).
     */
    static double[] bootstrapSlope(double[] x, double[] y, int resamples, long seed) {
        int n = x.length;
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] s = new double[resamples];
        double[] bx = new double[n];
        double[] by = new double[n];
        for (int b = 0; b < resamples; b++) {
            double a;
            do {
                for (int i = 0; i < n; i++) {
                    int k = rnd.nextInt(n);
                    bx[i] = x[k];
                    by[i] = y[k];
                }
                a = ols(bx, by)[0];
            } while (Double.isNaN(a));
            s[b] = a;
        }
        Arrays.sort(s);
        return new double[] {s[(int) Math.floor(0.025 * (resamples - 1))], s[(int) Math.ceil(0.975 * (resamples - 1))]};
    }

    /**
     * Verdicts: every run trained to the stated training accuracy (the precondition of comparing l* across depths);
     * the slope over every (L, seed) (reproduced when 3/5 is inside the bootstrap interval and |a − 0.6| ≤ 0.2,
     * partly when |a − 0.6| ≤ 0.2 alone or 3/5 is inside an interval no wider than 1); the median l* at the deepest L
     * interior and at most L/2 (Thm 4 rules out l* ∝ L); on the full training sets only, the test accuracy per depth
     * within 3 points of Tables 1–3 (partly within 10): a capped training set is not the paper's.
     */
    static List<Verdict> verdicts(Result r, Settings set) {
        List<Verdict> v = new ArrayList<>();
        if (set.target() > 0) {
            List<Point> missed = r.points().stream()
                    .filter(p -> p.trainAccuracy() < set.target())
                    .toList();
            double min =
                    r.points().stream().mapToDouble(Point::trainAccuracy).min().orElse(Double.NaN);
            v.add(new Verdict(
                    "every depth trained to " + Math.round(100 * set.target()) + "% train accuracy",
                    String.format(
                            Locale.ROOT,
                            "%d of %d runs; lowest %.1f%%",
                            r.points().size() - missed.size(),
                            r.points().size(),
                            100 * min),
                    "trained nets (Tables 1-3)",
                    Verdicts.grade(missed.isEmpty(), missed.size() <= r.points().size() / 5),
                    missed.isEmpty()
                            ? "each within its epoch budget; l* is compared between trained nets"
                            : "short of the target: "
                                    + String.join(
                                            ", ",
                                            missed.stream()
                                                    .map(p -> "L " + p.depth() + " seed " + p.seed())
                                                    .toList())));
        }
        for (Fit f : r.fits()) {
            boolean inside = f.slopeLow() <= 0.6 && 0.6 <= f.slopeHigh();
            boolean close = Math.abs(f.slope() - 0.6) <= 0.2;
            v.add(new Verdict(
                    "OLS slope of log l* on log L (" + f.dataset() + ")",
                    String.format(Locale.ROOT, "%.2f [%.2f, %.2f]", f.slope(), f.slopeLow(), f.slopeHigh()),
                    "≈ 3/5",
                    Verdicts.grade(inside && close, close || (inside && f.slopeHigh() - f.slopeLow() <= 1)),
                    String.format(
                            Locale.ROOT,
                            "over %d runs (%d per depth); 95%% bootstrap; fixed-slope C = %.2f (rms %.3f vs free %.3f);"
                                    + " closed-form l_eq slope over the same depths %.2f (ε 0.1, C 1)",
                            r.points().stream()
                                    .filter(p -> p.dataset().equals(f.dataset()))
                                    .count(),
                            set.seeds(),
                            f.fixedC(),
                            f.fixedRms(),
                            f.freeRms(),
                            f.theorySlope())));
            List<Point> sp = r.points().stream()
                    .filter(p -> p.dataset().equals(f.dataset()))
                    .toList();
            int deepest = sp.stream().mapToInt(Point::depth).max().orElse(0);
            List<Point> deep = sp.stream().filter(p -> p.depth() == deepest).toList();
            int[] peaks = deep.stream().mapToInt(Point::peakLayer).sorted().toArray();
            int median = peaks[peaks.length / 2];
            boolean interior = median > 1 && median < deepest;
            v.add(new Verdict(
                    "l* at the deepest L (" + f.dataset() + ")",
                    "l* = " + Arrays.toString(peaks) + " of L = " + deepest,
                    String.format(Locale.ROOT, "Θ(L^3/5) = %.1f·e^C", Math.pow(deepest, 0.6)),
                    Verdicts.grade(interior && median <= deepest / 2, interior),
                    "median interior and ≤ L/2; l_eq(" + deepest + ") = "
                            + deep.get(0).equilibriumLayer() + "; profile (seed "
                            + deep.get(0).seed() + ") " + Tables.fmt(deep.get(0).cka())));
            if (set.trainPerClass() > 0) {
                continue; // Tables 1–3 train on the full sets: a capped set's accuracy is not comparable
            }
            for (Point p : sp) {
                if (Double.isNaN(p.paperAccuracy())) {
                    continue;
                }
                double gap = Math.abs(p.testAccuracy() - p.paperAccuracy());
                v.add(new Verdict(
                        "test accuracy, L = " + p.depth() + " (" + p.dataset() + ")",
                        String.format(Locale.ROOT, "%.1f%%", 100 * p.testAccuracy()),
                        String.format(Locale.ROOT, "%.1f%%", 100 * p.paperAccuracy()),
                        Verdicts.grade(gap <= 0.03, gap <= 0.10),
                        String.format(
                                Locale.ROOT,
                                "lr %s, %d epochs (paper: Table lr and epochs for L = %d); train acc %.1f%%",
                                p.lr(),
                                p.epochs(),
                                p.depth(),
                                100 * p.trainAccuracy())));
            }
        }
        return v;
    }

    /** Fig. 2's heatmap: rows = relative depth l/L in {@code bins} bins (top = shallow), columns = depths; A_l / max A_l. */
    static double[][] heatmap(List<Point> sp, int bins) {
        double[][] m = new double[bins][sp.size()];
        for (int j = 0; j < sp.size(); j++) {
            double[] a = sp.get(j).cka();
            double max = Arrays.stream(a).max().orElse(1);
            for (int b = 0; b < bins; b++) {
                int l = Math.min(a.length, Math.max(1, (int) Math.ceil((b + 0.5) / bins * a.length)));
                m[b][j] = a[l - 1] / max;
            }
        }
        return m;
    }

    private static void write(Settings set, Path out, Result r) {
        for (Fit f : r.fits()) {
            List<Point> sp = r.points().stream()
                    .filter(p -> p.dataset().equals(f.dataset()))
                    .toList();
            double[] depths = sp.stream().mapToDouble(Point::depth).distinct().toArray();
            double[] mean = new double[depths.length];
            double[] se = new double[depths.length];
            double[] leq = new double[depths.length];
            for (int i = 0; i < depths.length; i++) {
                final double dd = depths[i];
                double[] ls = sp.stream()
                        .filter(p -> p.depth() == dd)
                        .mapToDouble(Point::peakLayer)
                        .toArray();
                mean[i] = Arrays.stream(ls).average().orElse(Double.NaN);
                double var = 0;
                for (double l : ls) {
                    var += (l - mean[i]) * (l - mean[i]) / Math.max(1, ls.length - 1);
                }
                se[i] = Math.sqrt(var / ls.length);
                leq[i] = EquilibriumHypothesis.equilibriumLayer((int) dd, 0.1, 1);
            }
            new Chart("Fig. 2, " + f.dataset() + ": most-aligned layer l* and the closed-form l_eq", "depth L", "layer")
                    .logX()
                    .logY()
                    .scatter(
                            "l* per run",
                            sp.stream().mapToDouble(Point::depth).toArray(),
                            sp.stream().mapToDouble(Point::peakLayer).toArray())
                    .scatter("mean l* ± 1 SE", depths, mean, se)
                    .line("l_eq(L), closed form (ε 0.1, C 1)", depths, leq)
                    .line(
                            "e^C L^(3/5) (fixed slope)",
                            depths,
                            Arrays.stream(depths)
                                    .map(l -> Math.exp(f.fixedC()) * Math.pow(l, 0.6))
                                    .toArray())
                    .line(
                            String.format(Locale.ROOT, "e^b L^a, OLS a = %.2f", f.slope()),
                            depths,
                            Arrays.stream(depths)
                                    .map(l -> Math.exp(f.intercept()) * Math.pow(l, f.slope()))
                                    .toArray())
                    .save(out.resolve("fit-" + f.dataset() + ".png"));
            List<Point> first = sp.stream() // one run per depth (the first seed) for the heatmap
                    .filter(p -> p.seed() == sp.get(0).seed())
                    .toList();
            String[] cols = first.stream().map(p -> "" + p.depth()).toArray(String[]::new);
            int bins = 20;
            String[] rows = new String[bins];
            for (int b = 0; b < bins; b++) {
                rows[b] = String.format(Locale.ROOT, "%.2f", (b + 0.5) / bins);
            }
            Plots.heatmap(
                    out.resolve("heatmap-" + f.dataset() + ".png"),
                    "A_l / max A_l, " + f.dataset() + " (rows l/L, columns L; seed "
                            + sp.get(0).seed() + ")",
                    "depth L",
                    "l/L",
                    cols,
                    rows,
                    heatmap(first, bins));
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("settings", set);
        json.put("points", r.points());
        json.put("fits", r.fits());
        json.put("verdicts", verdicts(r, set));
        Files2.writeString(out.resolve("results.json"), Specs.toJson(json) + "\n");
        Map<String, String> summary = new LinkedHashMap<>();
        for (Point p : r.points()) {
            summary.put(
                    p.dataset() + ", L = " + p.depth() + ", seed " + p.seed(),
                    String.format(
                            Locale.ROOT,
                            "%d epochs, train accuracy %.4f; l* = %d (l_eq %d, L^0.6 = %.2f); Eq. 5 A_l: %s; test accuracy"
                                    + " %.4f (paper %s); %.0f s",
                            p.epochs(),
                            p.trainAccuracy(),
                            p.peakLayer(),
                            p.equilibriumLayer(),
                            Math.pow(p.depth(), 0.6),
                            Tables.fmt(p.cka()),
                            p.testAccuracy(),
                            Double.isNaN(p.paperAccuracy()) ? "-" : String.format("%.3f", p.paperAccuracy()),
                            p.seconds()));
        }
        StringBuilder sweeps = new StringBuilder();
        for (Sweep sw : set.sweeps()) {
            sweeps.append(String.format(
                    Locale.ROOT,
                    " %s: width %d, depths %s, lr %s, epochs %s.",
                    sw.dataset(),
                    sw.width(),
                    Arrays.toString(sw.depths()),
                    Arrays.toString(sw.lrs()),
                    Arrays.toString(sw.epochs())));
        }
        new StudyReport("Equilibrium Hypothesis, Fig. 2: the most-aligned layer against depth")
                .summary(summary)
                .notes(List.of(String.format(
                        Locale.ROOT,
                        "Bias-free ReLU FFNNs, He init, inputs scaled to ‖x‖² = d; %s, batch %d; training set capped to %s images per class; %d seeds per depth, each trained"
                                + " to %.0f%% training accuracy (checked every %d epochs, up to the sweep's epochs); Eq. 5"
                                + " at the end of training on %d class-balanced training images; bootstrap %d resamples.%s"
                                + " The paper"
                                + " (Tables 1–3): depths 10…100, width 100 (MNIST, Fashion-MNIST) / 256 (CIFAR-10),"
                                + " per-depth lr 0.005…7e-5 and 100–700 epochs on the full sets.",
                        "adam".equals(set.optimizer())
                                ? "Adam (no weight decay)"
                                : "SGD momentum 0.9, weight decay 5e-4",
                        set.batch(),
                        set.trainPerClass() > 0 ? "" + set.trainPerClass() : "all",
                        set.seeds(),
                        100 * set.target(),
                        set.chunk(),
                        set.perClass() * 10,
                        set.bootstrap(),
                        sweeps)))
                .verdicts(verdicts(r, set))
                .write(out);
    }

    private static double[] constant(int n, double v) {
        double[] a = new double[n];
        Arrays.fill(a, v);
        return a;
    }

    private static int[] intConstant(int n, int v) {
        int[] a = new int[n];
        Arrays.fill(a, v);
        return a;
    }
}
