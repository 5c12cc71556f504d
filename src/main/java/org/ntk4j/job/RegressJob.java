package org.ntk4j.job;

import com.google.gson.JsonObject;
import com.google.gson.annotations.SerializedName;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ejml.data.DMatrixRMaj;
import org.ntk4j.OptionException;
import org.ntk4j.OptionKey;
import org.ntk4j.UserException;
import org.ntk4j.report.Files2;
import org.ntk4j.report.HtmlReport;
import org.ntk4j.report.Npz;
import org.ntk4j.report.NpzReader;
import org.ntk4j.request.KernelOption;
import org.ntk4j.spec.Specs;
import org.ntk4j.theory.KernelRegression;

/**
 * Kernel regression with a kernel file written by {@link KernelJob} ({@code ntk4j kernel}): with the traced train
 * kernel Θ = ntk (N×N), the test×train kernel Θ* = ntk_test (M×N), targets Y from y1 (labels → one-hot, or regression
 * targets) and f₀ = 0, the predictor of Seleznova, NTK thesis, eqs. (2.59)–(2.61) (Atanasov, Bordelon &amp; Pehlevan,
 * Silent Alignment, eq. (1)), via {@link KernelRegression}:
 * <pre>
 *   f_t(x*) = Θ(x*, X) Θ⁻¹(I − e^{−ηΘt}) Y,     t = ∞:  f(x*) = Θ(x*, X) (Θ + λI)⁺ Y
 * </pre>
 * (ridge λ ≥ 0 added to Θ first). Reports train and test MSE (mean over points and outputs) and, for labels, the
 * arg-max accuracy; writes results.json, predictions.npz (f_train, f_test) and report.html.
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

    /** Targets as an N×O matrix: one-hot labels (O classes, from the largest label) or the regression targets. */
    static DMatrixRMaj targets(NpzReader.Array y, int classes) {
        int n = y.rows();
        if (y.shape().length == 1) {
            DMatrixRMaj t = new DMatrixRMaj(n, classes);
            for (int i = 0; i < n; i++) {
                int c = (int) y.data()[i];
                if (c < 0 || c >= classes) {
                    throw new UserException("label " + c + " of point " + i + " is outside 0.." + (classes - 1));
                }
                t.set(i, c, 1);
            }
            return t;
        }
        return new DMatrixRMaj(n, y.cols(), true, y.data());
    }

    /** The classes of labels y1 (and y2, if any): one more than the largest label. */
    private static int classes(NpzReader.Array y1, NpzReader.Array y2) {
        int classes = 0;
        for (NpzReader.Array y : y2 == null ? java.util.List.of(y1) : java.util.List.of(y1, y2)) {
            for (double v : y.data()) {
                classes = Math.max(classes, (int) v + 1);
            }
        }
        return classes;
    }

    static DMatrixRMaj square(NpzReader.Array k, String name, Path file) {
        if (k.shape().length != 2) {
            throw new OptionException(
                    file + ": '" + name + "' has shape " + java.util.Arrays.toString(k.shape())
                            + "; regress needs a traced kernel (2-D); run 'ntk4j kernel ",
                    KernelOption.MODE,
                    " trace'");
        }
        return new DMatrixRMaj((int) k.shape()[0], (int) k.shape()[1], true, k.data());
    }

    /** Runs the regression (no files written). */
    public static Result compute(Config c) {
        if (c.ridge() < 0 || !(c.lr() > 0) || !(c.time() > 0)) {
            throw new OptionException(
                    Option.RIDGE,
                    " must be >= 0, ",
                    Option.LR,
                    " and ",
                    Option.TIME,
                    " > 0 (got " + c.ridge() + ", " + c.lr() + ", " + c.time() + ")");
        }
        NpzReader r = new NpzReader(c.kernel());
        DMatrixRMaj k = square(r.read("ntk"), "ntk", c.kernel());
        int n = k.numRows;
        if (k.numCols != n) {
            throw new UserException(
                    c.kernel() + ": 'ntk' is " + n + "x" + k.numCols + ", a square train kernel expected");
        }
        NpzReader.Array y1 = r.read("y1");
        if (y1.rows() != n) {
            throw new UserException(c.kernel() + ": y1 has " + y1.rows() + " rows but the kernel is " + n + "x" + n);
        }
        boolean labels = y1.shape().length == 1;
        NpzReader.Array y2 = r.has("y2") ? r.read("y2") : null;
        int classes = labels ? classes(y1, y2) : 0;
        DMatrixRMaj y = targets(y1, classes);
        DMatrixRMaj kr = k.copy();
        for (int i = 0; i < n; i++) {
            kr.add(i, i, c.ridge());
        }
        KernelRegression reg = new KernelRegression(kr);
        DMatrixRMaj fTrain = reg.testPrediction(k, y, null, null, c.lr(), c.time());
        Double trainAccuracy = labels ? accuracy(fTrain, y1.data()) : null;
        DMatrixRMaj fTest = null;
        int test = 0;
        Double testMse = null;
        Double testAccuracy = null;
        String note = null;
        if (r.has("ntk_test")) {
            DMatrixRMaj kt = square(r.read("ntk_test"), "ntk_test", c.kernel());
            if (kt.numCols != n) {
                throw new UserException(c.kernel() + ": ntk_test has " + kt.numCols
                        + " columns but the train kernel is " + n + "x" + n);
            }
            fTest = reg.testPrediction(kt, y, null, null, c.lr(), c.time());
            test = kt.numRows;
            if (y2 != null) {
                DMatrixRMaj yt = targets(y2, classes);
                testMse = mse(fTest, yt);
                if (labels) {
                    testAccuracy = accuracy(fTest, y2.data());
                }
            }
        } else {
            note = "no test×train kernel (ntk_test) in the file: run 'ntk4j kernel --test M' for test predictions";
        }
        Metrics m = new Metrics(
                c.kernel().toString(),
                n,
                y.numCols,
                labels ? "one-hot labels (" + classes + " classes)" : "regression targets",
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

    /** Runs the regression and writes results.json, predictions.npz and report.html into the output folder. */
    public static Result run(Config c) {
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

    static double accuracy(DMatrixRMaj f, double[] labels) {
        int ok = 0;
        for (int i = 0; i < f.numRows; i++) {
            int best = 0;
            for (int j = 1; j < f.numCols; j++) {
                if (f.get(i, j) > f.get(i, best)) {
                    best = j;
                }
            }
            ok += best == (int) labels[i] ? 1 : 0;
        }
        return ok / (double) f.numRows;
    }

    private static float[] toFloat(DMatrixRMaj a) {
        float[] r = new float[a.getNumElements()];
        for (int i = 0; i < r.length; i++) {
            r[i] = (float) a.get(i);
        }
        return r;
    }
}
