package org.ntk4j.experiment.silentalignment;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.data.Standardizer;
import org.ntk4j.data.Whitening;
import org.ntk4j.experiment.support.Series;
import org.ntk4j.experiment.support.TwoLayerNet;
import org.ntk4j.job.RegressJob;
import org.ntk4j.report.Npz;

/**
 * The two-class data and the measurement of Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, Figs 1 and 6 for
 * scalar-output ReLU networks: whitened (or partially whitened) MNIST/CIFAR-10 classes 0/1 in span coordinates, the
 * NTK–target alignment (eq. 4) over training, the time it reaches 90% of its rise against the time the loss is down
 * 10%, and kernel regression with the final and the initial NTK against the trained net; shared by
 * {@link ReluSilentAlignment} and {@link MulticlassAnisotropic}.
 */
final class ReluSetup {
    private ReluSetup() {}

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
                Series.toDouble(w.coordinates(a)),
                yTr,
                Series.toDouble(w.coordinates(b)),
                yTe,
                w.rank());
    }

    /** The first {@code train}/{@code test} images of classes 0 and 1, ±1 targets, at whitening exponent γ. */
    static Data images(String dataset, int train, int test, double gamma) {
        LabelledSet tr = Preprocess.flatten(Preprocess.classSubset(Datasets.load(dataset, Split.TRAIN), 0, 1))
                .head(train);
        LabelledSet te = Preprocess.flatten(Preprocess.classSubset(Datasets.load(dataset, Split.TEST), 0, 1))
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
                return net.ntk(xa, Series.range(na), xb, Series.range(nb));
            }

            @Override
            public double forward(double[] x, int off) {
                return net.forward(x, off)[0];
            }

            @Override
            public double loss(double[] x, double[] y) {
                return net.loss(x, y, Series.range(y.length), TwoLayerNet.Loss.MSE);
            }

            @Override
            public void step(double[] x, double[] y) {
                int[] idx = Series.range(y.length);
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
}
