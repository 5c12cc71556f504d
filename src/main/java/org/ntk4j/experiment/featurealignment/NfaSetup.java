package org.ntk4j.experiment.featurealignment;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Synthetic;
import org.ntk4j.metrics.CentredNfc;
import org.ntk4j.metrics.FeatureAnsatz;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.train.TrainListener;
import org.ntk4j.train.TrainLoop;
import org.ntk4j.train.TrainProgress;

/**
 * Set-up shared by the studies of "Feature learning as alignment" (anonymous): bias-free ReLU MLPs
 * whose layers carry init-scale multipliers on PyTorch's default scale, Gaussian data with a decaying
 * spectrum labelled by the chain monomial, and a training run that records the centred NFC
 * ({@link CentredNfc}) of every layer on a fixed measurement set.
 */
final class NfaSetup {
    private NfaSetup() {}

    /**
     * A bias-free MLP d → widths... → outputs with Gaussian weights of std scale_l/√(3·fan_in) (PyTorch's
     * default U(±1/√fan_in) has std 1/√(3·fan_in); the paper's "init scale" multiplies it), one scale per
     * weight matrix, input side first.
     */
    static ModelSpec mlp(String name, int d, int[] widths, int outputs, double[] scales) {
        StringBuilder w = new StringBuilder();
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < widths.length; i++) {
            w.append(i == 0 ? "" : ", ").append(widths[i]);
        }
        for (int i = 0; i < scales.length; i++) {
            s.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.17g", scales[i] / Math.sqrt(3)));
        }
        return ModelSpec.parse(
                String.format(
                        Locale.ROOT,
                        "{\"name\": \"%s\", \"arch\": \"mlp\", \"input\": [%d], \"widths\": [%s], \"outputs\": %d,"
                                + " \"activation\": \"relu\", \"bias\": false, \"initializer\": \"gaussian\","
                                + " \"layerSigmaW\": [%s]}",
                        name,
                        d,
                        w,
                        outputs,
                        s),
                name);
    }

    /** {@code count} copies of {@code v}. */
    static double[] fill(int count, double v) {
        double[] a = new double[count];
        java.util.Arrays.fill(a, v);
        return a;
    }

    /**
     * n points x ~ N(0, Σ), Σ with a Haar eigenbasis and eigenvalues λ_k = 1/(1 + k^p), k = 1..d (the
     * paper's App. G spectra: p = 0 gives λ = ½·I, then 1/(1+k), 1/(1+k²)), labelled by the chain monomial
     * Σ_{i<r} x_i x_{(i+1) mod r} scaled to std 1 (App. I).
     */
    static LabelledSet spectralChain(String name, int n, int d, int r, double p, long seed) {
        double[] lambda = new double[d];
        for (int k = 0; k < d; k++) {
            lambda[k] = 1 / (1 + Math.pow(k + 1, p));
        }
        float[] x = Synthetic.gaussian(n, lambda, true, seed);
        double[] y = new double[n];
        double mean = 0;
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int k = 0; k < r; k++) {
                s += (double) x[i * d + k] * x[i * d + (k + 1) % r];
            }
            y[i] = s;
            mean += s / n;
        }
        double var = 0;
        for (double v : y) {
            var += (v - mean) * (v - mean) / n;
        }
        float[] yf = new float[n];
        for (int i = 0; i < n; i++) {
            yf[i] = (float) ((y[i] - mean) / Math.sqrt(var));
        }
        return LabelledSet.regression(name, x, new int[] {d}, yf, 1);
    }

    /** The first {@code n} samples of a dataset as a (n, sample shape...) float64 array owned by {@code m}. */
    static NDArray inputs(LabelledSet data, int n, NDManager m) {
        int count = Math.min(n, data.size());
        int dim = data.featureDim();
        double[] v = new double[count * dim];
        float[] f = data.features();
        for (int i = 0; i < v.length; i++) {
            v[i] = f[i];
        }
        int[] s = data.sampleShape();
        long[] shape = new long[s.length + 1];
        shape[0] = count;
        for (int i = 0; i < s.length; i++) {
            shape[i + 1] = s[i];
        }
        try (NDArray tmp = m.create(v, new Shape(shape))) {
            return tmp.duplicate();
        }
    }

    /** One measurement: the step and every layer's correlations. */
    record Point(long step, List<CentredNfc.Layer> layers) {}

    /** A training run's trajectory and final metrics. */
    record Run(
            List<String> layers,
            List<Point> points,
            TrainLoop.Result result,
            double seconds,
            java.util.Map<String, org.ejml.data.DMatrixRMaj> weights) {
        /** The series of one quantity of layer {@code l} over the measurements after initialisation. */
        double[] series(int l, java.util.function.ToDoubleFunction<CentredNfc.Layer> q) {
            return points.stream()
                    .filter(p -> p.step() > 0)
                    .mapToDouble(p -> q.applyAsDouble(p.layers().get(l)))
                    .toArray();
        }

        double[] steps() {
            return points.stream()
                    .filter(p -> p.step() > 0)
                    .mapToDouble(Point::step)
                    .toArray();
        }

        CentredNfc.Layer first(int l) {
            return points.stream()
                    .filter(p -> p.step() > 0)
                    .findFirst()
                    .orElseThrow()
                    .layers()
                    .get(l);
        }

        CentredNfc.Layer last(int l) {
            return points.get(points.size() - 1).layers().get(l);
        }

        CentredNfc.Layer init(int l) {
            return points.get(0).layers().get(l);
        }
    }

    /**
     * Trains {@code spec} (float64) with {@code t} on {@code train}, measuring the centred NFC of every layer on
     * the first {@code measure} training points at initialisation, every {@code every} steps and at the end.
     */
    static Run train(
            ModelSpec spec,
            TrainSpec t,
            LabelledSet train,
            LabelledSet test,
            int measure,
            int every,
            boolean doubleCentred,
            long seed,
            NDManager manager) {
        return train(spec, t, train, test, measure, every, doubleCentred, seed, manager, null);
    }

    /**
     * As {@link #train(ModelSpec, TrainSpec, LabelledSet, LabelledSet, int, int, boolean, long, NDManager)}, with
     * {@code setup} (may be null) given the trainer and the tracker before training (e.g. adaptive SLO's UC-NFC
     * source).
     */
    static Run train(
            ModelSpec spec,
            TrainSpec t,
            LabelledSet train,
            LabelledSet test,
            int measure,
            int every,
            boolean doubleCentred,
            long seed,
            NDManager manager,
            java.util.function.BiConsumer<TrainLoop, CentredNfc.Tracker> setup) {
        long t0 = System.nanoTime();
        try (NDManager m = manager.newSubManager();
                Network net = Network.build(spec, seed, m, DataType.FLOAT64)) {
            NDArray x = inputs(train, measure, m);
            CentredNfc.Tracker tracker = new CentredNfc.Tracker(net, x, doubleCentred);
            List<Point> points = new ArrayList<>();
            points.add(new Point(0, tracker.measure(net)));
            TrainLoop trainer = new TrainLoop(net, t, train, test);
            if (setup != null) {
                setup.accept(trainer, tracker);
            }
            trainer.addListener(new TrainListener() {
                @Override
                public void onStep(TrainProgress p) {
                    if (p.step() % every == 0) {
                        points.add(new Point(p.step(), tracker.measure(p.net())));
                    }
                }
            });
            TrainLoop.Result res = trainer.fit(false);
            if (points.get(points.size() - 1).step() != res.steps()) {
                points.add(new Point(res.steps(), tracker.measure(net)));
            }
            List<String> names = tracker.names();
            tracker.close();
            return new Run(names, points, res, (System.nanoTime() - t0) / 1e9, FeatureAnsatz.weights(net));
        }
    }
}
