package org.ntk4j.job;

import com.google.gson.JsonObject;
import com.google.gson.annotations.SerializedName;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.ejml.data.DMatrixRMaj;
import org.ntk4j.OptionException;
import org.ntk4j.OptionKey;
import org.ntk4j.UserException;
import org.ntk4j.approx.LowRankKernel;
import org.ntk4j.report.Files2;
import org.ntk4j.report.HtmlReport;
import org.ntk4j.report.Npz;
import org.ntk4j.report.NpzReader;
import org.ntk4j.request.KernelOption;
import org.ntk4j.spec.Specs;
import org.ntk4j.theory.KernelRegression;
import org.ntk4j.theory.KernelSolve;

/**
 * Kernel regression with a kernel file written by {@link KernelJob} ({@code ntk4j kernel}): with the traced train
 * kernel Θ = ntk (N×N), the test×train kernel Θ* = ntk_test (M×N), targets Y from y1 (labels → one-hot, or regression
 * targets) and f₀ = 0, the predictor of Seleznova, NTK thesis, eqs. (2.59)–(2.61) (Atanasov, Bordelon &amp; Pehlevan,
 * Silent Alignment, eq. (1)), via {@link KernelRegression} (at t = ∞ via {@link KernelSolve} when its LU inverse solves
 * the system):
 * <pre>
 *   f_t(x*) = Θ(x*, X) Θ⁻¹(I − e^{−ηΘt}) Y,     t = ∞:  f(x*) = Θ(x*, X) (Θ + λI)⁺ Y
 * </pre>
 * (ridge λ ≥ 0 added to Θ first). Reports train and test MSE (mean over points and outputs) and, for labels, the
 * arg-max accuracy; writes results.json, predictions.npz (f_train, f_test) and report.html. A low-rank kernel file
 * (features F, features_test G from {@code ntk4j kernel --approx nystrom:M}) is regressed in r dimensions instead,
 * Θ ≈ F Fᵀ never formed.
 */
public final class RegressJob {
    /** Settings: the kernel file, the output folder, ridge λ, learning rate η and time t (∞ for the limit). */
    public record Config(Path kernel, Path out, double ridge, double lr, double time) {}

    /** The settings the checks name ({@link OptionException}). */
    public enum Option implements OptionKey {
        RIDGE,
        LR,
        TIME
    }

    /**
     * What a regression measured, as results.json holds it (keys in snake case, absent values left out).
     *
     * @param kernel the kernel file
     * @param n training points N
     * @param outputs outputs O of the targets
     * @param targets "one-hot labels (C classes)" or "regression targets"
     * @param ridge λ
     * @param lr η
     * @param time t, or "inf"
     * @param trainMse mean squared error on the training points (over points and outputs)
     * @param trainAccuracy arg-max accuracy on the training points; null for regression targets
     * @param test test points M (0 without a test×train kernel)
     * @param testMse mean squared error on the test points; null without test targets
     * @param testAccuracy arg-max accuracy on the test points; null without test labels
     * @param note why there are no test predictions; null when there are
     */
    public record Metrics(
            String kernel,
            int n,
            int outputs,
            String targets,
            double ridge,
            double lr,
            Object time,
            @SerializedName("train_mse") double trainMse,
            @SerializedName("train_accuracy") Double trainAccuracy,
            int test,
            @SerializedName("test_mse") Double testMse,
            @SerializedName("test_accuracy") Double testAccuracy,
            String note) {
        /** The metrics as (key, value) pairs in order, as results.json writes them (absent ones left out). */
        public Map<String, String> asText() {
            Map<String, String> m = new LinkedHashMap<>();
            JsonObject o = Specs.GSON.toJsonTree(this).getAsJsonObject();
            o.entrySet()
                    .forEach(e -> m.put(
                            e.getKey(),
                            e.getValue().isJsonPrimitive()
                                    ? e.getValue().getAsString()
                                    : e.getValue().toString()));
            return m;
        }
    }

    /** What a regression gave: metrics and the predictions (N×O train, M×O test or null). */
    public record Result(Metrics metrics, DMatrixRMaj trainPrediction, DMatrixRMaj testPrediction) {}

    private RegressJob() {}

    /**
     * Targets as an N×O matrix: one-hot labels (one column per distinct label of {@code classes}, in increasing order,
     * so labels 100..109 are 10 classes) or the regression targets.
     */
    static DMatrixRMaj targets(NpzReader.Array y, double[] classes) {
        int n = y.rows();
        if (y.shape().length == 1) {
            DMatrixRMaj t = new DMatrixRMaj(n, classes.length);
            for (int i = 0; i < n; i++) {
                int c = java.util.Arrays.binarySearch(classes, y.data()[i]);
                if (c < 0) {
                    throw new UserException("label " + y.data()[i] + " of point " + i + " is not one of the labels "
                            + java.util.Arrays.toString(classes));
                }
                t.set(i, c, 1);
            }
            return t;
        }
        return new DMatrixRMaj(n, y.cols(), true, y.data());
    }

    /** The distinct labels of y1 and y2 (integers), in increasing order: the classes of the one-hot targets. */
    static double[] classes(NpzReader.Array y1, NpzReader.Array y2, Path file) {
        java.util.TreeSet<Double> labels = new java.util.TreeSet<>();
        for (NpzReader.Array y : new NpzReader.Array[] {y1, y2}) {
            if (y == null) {
                continue;
            }
            for (double v : y.data()) {
                if (v != Math.rint(v) || !Double.isFinite(v)) {
                    throw new UserException(file + ": label " + v + " is not an integer (y1 and y2 hold class labels;"
                            + " regression targets are N×O)");
                }
                labels.add(v);
            }
        }
        return labels.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** Refuses an array with NaN or ±Infinity entries, naming it: kernel regression would turn them into garbage. */
    static NpzReader.Array finite(NpzReader.Array a, String name, Path file) {
        long bad = java.util.Arrays.stream(a.data())
                .filter(v -> !Double.isFinite(v))
                .count();
        if (bad > 0) {
            throw new UserException(file + ": '" + name + "' has " + bad + " non-finite entr" + (bad == 1 ? "y" : "ies")
                    + " (NaN or ±Infinity) of " + a.data().length + "; regress needs finite kernels and targets");
        }
        return a;
    }

    static DMatrixRMaj square(NpzReader.Array k, String name, Path file) {
        if (k.shape().length != 2) {
            throw new OptionException(
                    file + ": '" + name + "' has shape " + java.util.Arrays.toString(k.shape())
                            + "; regress needs a traced kernel (2-D); run 'ntk4j kernel ",
                    KernelOption.MODE,
                    " trace'");
        }
        return DMatrixRMaj.wrap((int) k.shape()[0], (int) k.shape()[1], k.data()); // no copy: the array is ours
    }

    /** Ridge finite and >= 0, learning rate finite and > 0, time > 0 (∞ allowed). */
    private static void checkSettings(Config c) {
        if (!(c.ridge() >= 0)
                || !Double.isFinite(c.ridge())
                || !(c.lr() > 0)
                || !Double.isFinite(c.lr())
                || !(c.time() > 0)) {
            throw new OptionException(
                    Option.RIDGE,
                    " must be a finite number >= 0, ",
                    Option.LR,
                    " finite and > 0, ",
                    Option.TIME,
                    " > 0 (got " + c.ridge() + ", " + c.lr() + ", " + c.time() + ")");
        }
    }

    /**
     * The predictions Θ(rows, X) · coefficients for any kernel rows (the train kernel itself, or the test×train one):
     * at t = ∞ from α = (Θ + λI)⁻¹ Y by the engine's LU inverse ({@link KernelSolve}, when it solves the system to its
     * tolerance), otherwise from the eigendecomposition of Θ + λI ({@link KernelRegression}).
     */
    private static UnaryOperator<DMatrixRMaj> predictor(DMatrixRMaj k, DMatrixRMaj y, Config c) {
        if (Double.isInfinite(c.time())) {
            DMatrixRMaj alpha = KernelSolve.coefficients(k, c.ridge(), y);
            if (alpha != null) {
                return rows -> KernelSolve.times(rows, alpha);
            }
        }
        KernelRegression reg = regression(k, c.ridge());
        return rows -> reg.testPrediction(rows, y, null, null, c.lr(), c.time());
    }

    /**
     * Refuses a ridge beside which the kernel vanishes in float64: when λ·2⁻⁵² exceeds the largest |Θ_ij|, Θ + λI
     * rounds to λI and the "regression" predicts zero whatever the data.
     */
    static void checkRidgeAgainst(DMatrixRMaj k, double ridge) {
        double largest = 0;
        for (int i = 0; i < k.getNumElements(); i++) {
            largest = Math.max(largest, Math.abs(k.get(i)));
        }
        if (largest > 0 && ridge * Math.ulp(1.0) > largest) {
            throw new OptionException(
                    Option.RIDGE,
                    String.format(
                            Locale.ROOT,
                            " %s swamps the kernel (largest entry %.4g): Θ + λI rounds to λI in float64; use a ridge"
                                    + " below %.4g",
                            ridge,
                            largest,
                            largest / Math.ulp(1.0)));
        }
    }

    /** The regression with Θ + λI; a matrix it cannot decompose is named with the ridge. */
    private static KernelRegression regression(DMatrixRMaj k, double ridge) {
        DMatrixRMaj kr = k.copy();
        for (int i = 0; i < k.numRows; i++) {
            kr.add(i, i, ridge);
        }
        try {
            return new KernelRegression(kr);
        } catch (UserException e) {
            throw new OptionException(e.getMessage() + " with ", Option.RIDGE, " " + ridge);
        }
    }

    /** Runs the regression (no files written). */
    public static Result compute(Config c) {
        checkSettings(c);
        NpzReader r = new NpzReader(c.kernel());
        if (!r.has("ntk") && r.has("features")) {
            return lowRank(c, r);
        }
        DMatrixRMaj k = square(finite(r.read("ntk"), "ntk", c.kernel()), "ntk", c.kernel());
        int n = k.numRows;
        if (k.numCols != n) {
            throw new UserException(
                    c.kernel() + ": 'ntk' is " + n + "x" + k.numCols + ", a square train kernel expected");
        }
        NpzReader.Array y1 = finite(r.read("y1"), "y1", c.kernel());
        if (y1.rows() != n) {
            throw new UserException(c.kernel() + ": y1 has " + y1.rows() + " rows but the kernel is " + n + "x" + n);
        }
        boolean labels = y1.shape().length == 1;
        NpzReader.Array y2 = r.has("y2") ? finite(r.read("y2"), "y2", c.kernel()) : null;
        double[] classes = labels ? classes(y1, y2, c.kernel()) : new double[0];
        DMatrixRMaj y = targets(y1, classes);
        checkRidgeAgainst(k, c.ridge());
        UnaryOperator<DMatrixRMaj> reg = predictor(k, y, c);
        DMatrixRMaj fTrain = reg.apply(k);
        Double trainAccuracy = labels ? accuracy(fTrain, y) : null;
        DMatrixRMaj fTest = null;
        int test = 0;
        Double testMse = null;
        Double testAccuracy = null;
        String note = null;
        if (r.has("ntk_test")) {
            DMatrixRMaj kt = square(finite(r.read("ntk_test"), "ntk_test", c.kernel()), "ntk_test", c.kernel());
            if (kt.numCols != n) {
                throw new UserException(c.kernel() + ": ntk_test has " + kt.numCols
                        + " columns but the train kernel is " + n + "x" + n);
            }
            fTest = reg.apply(kt);
            test = kt.numRows;
            if (y2 != null && y2.rows() != kt.numRows) {
                throw new UserException(c.kernel() + ": y2 has " + y2.rows() + " rows but ntk_test has " + kt.numRows);
            }
            if (y2 != null) {
                DMatrixRMaj yt = targets(y2, classes);
                testMse = mse(fTest, yt);
                if (labels) {
                    testAccuracy = accuracy(fTest, yt);
                }
            } else {
                note = "no test targets (y2) in the file: test predictions are written to predictions.npz, but no"
                        + " test metrics are computed";
            }
        } else {
            note = "no test×train kernel (ntk_test) in the file: run 'ntk4j kernel --test M' for test predictions";
        }
        Metrics m = new Metrics(
                c.kernel().toString(),
                n,
                y.numCols,
                labels ? oneHot(classes) : "regression targets",
                c.ridge(),
                c.lr(),
                Double.isInfinite(c.time()) ? "inf" : c.time(),
                mse(fTrain, y),
                trainAccuracy,
                test,
                testMse,
                testAccuracy,
                note);
        return new Result(m, fTrain, fTest);
    }

    /**
     * Regression on a low-rank kernel file ({@code ntk4j kernel --approx nystrom:M}): features F (N×r) and
     * features_test G (M×r) with Θ ≈ F Fᵀ and Θ* ≈ G Fᵀ, solved in r dimensions ({@link LowRankKernel#regress}); the
     * converged predictor only (t = ∞).
     */
    private static Result lowRank(Config c, NpzReader r) {
        if (!Double.isInfinite(c.time())) {
            throw new OptionException(
                    c.kernel() + ": a low-rank kernel (features) is regressed at ",
                    Option.TIME,
                    " inf only (got " + c.time() + ")");
        }
        NpzReader.Array f = finite(r.read("features"), "features", c.kernel());
        if (f.shape().length != 2) {
            throw new UserException(c.kernel() + ": 'features' has shape " + java.util.Arrays.toString(f.shape())
                    + "; N×r features expected");
        }
        int n = f.rows();
        int rank = f.cols();
        NpzReader.Array g =
                r.has("features_test") ? finite(r.read("features_test"), "features_test", c.kernel()) : null;
        if (g != null && (g.shape().length != 2 || g.cols() != rank)) {
            throw new UserException(c.kernel() + ": 'features_test' has shape " + java.util.Arrays.toString(g.shape())
                    + "; M×" + rank + " expected (the rank of 'features')");
        }
        NpzReader.Array y1 = finite(r.read("y1"), "y1", c.kernel());
        if (y1.rows() != n) {
            throw new UserException(c.kernel() + ": y1 has " + y1.rows() + " rows but 'features' has " + n);
        }
        boolean labels = y1.shape().length == 1;
        NpzReader.Array y2 = r.has("y2") ? finite(r.read("y2"), "y2", c.kernel()) : null;
        double[] classes = labels ? classes(y1, y2, c.kernel()) : new double[0];
        DMatrixRMaj y = targets(y1, classes);
        LowRankKernel k = new LowRankKernel(
                "features", toFloat(f.data()), n, g == null ? null : toFloat(g.data()), g == null ? 0 : g.rows(), rank);
        LowRankKernel.Predictions p = k.regress(y, c.ridge());
        DMatrixRMaj fTest = p.test();
        Double testMse = null;
        Double testAccuracy = null;
        String note = null;
        if (fTest != null && y2 != null) {
            if (y2.rows() != fTest.numRows) {
                throw new UserException(
                        c.kernel() + ": y2 has " + y2.rows() + " rows but features_test has " + fTest.numRows);
            }
            DMatrixRMaj yt = targets(y2, classes);
            testMse = mse(fTest, yt);
            testAccuracy = labels ? accuracy(fTest, yt) : null;
        } else {
            note = fTest == null
                    ? "no test features (features_test) in the file: run 'ntk4j kernel --test M' for test predictions"
                    : "no test targets (y2) in the file: no test metrics are computed";
        }
        Metrics m = new Metrics(
                c.kernel().toString(),
                n,
                y.numCols,
                labels ? oneHot(classes) : "regression targets",
                c.ridge(),
                c.lr(),
                "inf",
                mse(p.train(), y),
                labels ? accuracy(p.train(), y) : null,
                fTest == null ? 0 : fTest.numRows,
                testMse,
                testAccuracy,
                note);
        return new Result(m, p.train(), fTest);
    }

    private static float[] toFloat(double[] a) {
        float[] out = new float[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = (float) a[i];
        }
        return out;
    }

    /** Runs the regression and writes results.json, predictions.npz and report.html into the output folder. */
    public static Result run(Config c) {
        // one regression per output folder at a time: two would mix their results.json, predictions and report
        try (org.ntk4j.files.OutputLock lock =
                org.ntk4j.files.OutputLock.acquire(c.out().resolve("results.json"), "--out " + c.out())) {
            return runLocked(c);
        }
    }

    private static Result runLocked(Config c) {
        Result res = compute(c);
        Path out = c.out();
        Files2.writeString(out.resolve("results.json"), Specs.toJson(res.metrics()) + "\n");
        Npz npz = new Npz()
                .put(
                        "f_train",
                        toFloat(res.trainPrediction()),
                        res.trainPrediction().numRows,
                        res.trainPrediction().numCols);
        if (res.testPrediction() != null) {
            npz.put(
                    "f_test",
                    toFloat(res.testPrediction()),
                    res.testPrediction().numRows,
                    res.testPrediction().numCols);
        }
        npz.write(out.resolve("predictions.npz"));
        Map<String, String> summary = res.metrics().asText();
        HtmlReport.write(
                out,
                "Kernel regression with " + c.kernel().getFileName(),
                summary,
                List.of("f(x*) = Θ(x*, X) Θ⁻¹(I − e^{−ηΘt}) Y with f₀ = 0 (t = ∞: (Θ + λI)⁺); targets one-hot labels or"
                        + " the regression targets; MSE averaged over points and outputs."));
        return res;
    }

    static double mse(DMatrixRMaj f, DMatrixRMaj y) {
        double s = 0;
        for (int i = 0; i < f.getNumElements(); i++) {
            double e = f.get(i) - y.get(i);
            s += e * e;
        }
        return s / f.getNumElements();
    }

    /** The fraction of rows whose largest prediction is in the column of their one-hot target. */
    static double accuracy(DMatrixRMaj f, DMatrixRMaj oneHot) {
        int ok = 0;
        for (int i = 0; i < f.numRows; i++) {
            int best = 0;
            for (int j = 1; j < f.numCols; j++) {
                if (f.get(i, j) > f.get(i, best)) {
                    best = j;
                }
            }
            ok += oneHot.get(i, best) == 1 ? 1 : 0;
        }
        return ok / (double) f.numRows;
    }

    /** "one-hot labels (C classes)", naming the labels when they are not 0..C-1. */
    private static String oneHot(double[] classes) {
        boolean plain = classes.length == 0 || classes[0] == 0 && classes[classes.length - 1] == classes.length - 1;
        return "one-hot labels (" + classes.length + " classes" + (plain ? "" : ": labels " + labelList(classes)) + ")";
    }

    private static String labelList(double[] classes) {
        java.util.StringJoiner j = new java.util.StringJoiner(", ");
        for (int i = 0; i < classes.length; i++) {
            if (i == 8 && classes.length > 10) {
                j.add("…");
                i = classes.length - 1;
            }
            j.add(Long.toString((long) classes[i]));
        }
        return j.toString();
    }

    private static float[] toFloat(DMatrixRMaj a) {
        float[] r = new float[a.getNumElements()];
        for (int i = 0; i < r.length; i++) {
            r[i] = (float) a.get(i);
        }
        return r;
    }
}
