package org.ntk4j.experiment.solvable;

import java.util.SplittableRandom;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Split;
import org.ntk4j.experiment.support.Series;
import org.ntk4j.experiment.support.StudyData;

/**
 * The data of the ReLU studies of Xu &amp; Ziyin, "When Does Feature Learning Happen? Perspective from an Analytically
 * Solvable Model": the first CIFAR-10 images on the unit sphere with their labels, or, when CIFAR-10 is absent or not
 * asked for, a synthetic CIFAR-shaped substitute (unit-norm Gaussian inputs labelled by a rank-8 ReLU teacher).
 */
final class SolvableSetup {
    private SolvableSetup() {}

    /** The data: CIFAR-10 when present and asked for, else the synthetic CIFAR-shaped substitute. */
    record Data(String name, double[] xTrain, double[] yTrain, double[] xTest, double[] yTest, int d0) {}

    static Data data(int side, int train, int test, boolean cifarIfPresent, long seed) {
        int d0 = 3 * side * side;
        if (cifarIfPresent && StudyData.availableDatasets().contains(Datasets.CIFAR10)) {
            LabelledSet tr = StudyData.load(Datasets.CIFAR10, Split.TRAIN).head(train);
            LabelledSet te = StudyData.load(Datasets.CIFAR10, Split.TEST).head(test);
            return new Data(
                    "cifar10 (first " + train + "/" + test + ")",
                    unit(tr.features(), tr.featureDim()),
                    labels(tr),
                    unit(te.features(), te.featureDim()),
                    labels(te),
                    tr.featureDim());
        }
        // substitute: x ~ N(0, I) in R^{3·side·side}, scaled to ‖x‖ = 1; y = argmax_k (A ReLU(Bx))_k with a rank-8
        // teacher B (unit rows) and A ~ N(0, 1) 10×8: labels that depend on an 8-dimensional feature subspace
        SplittableRandom r = new SplittableRandom(seed + 100);
        int rank = 8;
        double[][] b = new double[rank][d0];
        for (double[] row : b) {
            double s = 0;
            for (int j = 0; j < d0; j++) {
                row[j] = r.nextGaussian();
                s += row[j] * row[j];
            }
            for (int j = 0; j < d0; j++) {
                row[j] /= Math.sqrt(s);
            }
        }
        double[][] a = new double[10][rank];
        for (double[] row : a) {
            for (int j = 0; j < rank; j++) {
                row[j] = r.nextGaussian();
            }
        }
        int n = train + test;
        double[] x = new double[n * d0];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int j = 0; j < d0; j++) {
                x[i * d0 + j] = r.nextGaussian();
                s += x[i * d0 + j] * x[i * d0 + j];
            }
            for (int j = 0; j < d0; j++) {
                x[i * d0 + j] /= Math.sqrt(s);
            }
            double[] h = new double[rank];
            for (int q = 0; q < rank; q++) {
                double v = 0;
                for (int j = 0; j < d0; j++) {
                    v += b[q][j] * x[i * d0 + j];
                }
                h[q] = Math.max(0, v);
            }
            int best = 0;
            double bv = Double.NEGATIVE_INFINITY;
            for (int k = 0; k < 10; k++) {
                double v = 0;
                for (int q = 0; q < rank; q++) {
                    v += a[k][q] * h[q];
                }
                if (v > bv) {
                    bv = v;
                    best = k;
                }
            }
            y[i] = best;
        }
        int m = train * d0;
        return new Data(
                "synthetic CIFAR-shaped substitute (3x" + side + "x" + side + ", rank-8 ReLU teacher)",
                java.util.Arrays.copyOf(x, m),
                java.util.Arrays.copyOf(y, train),
                java.util.Arrays.copyOfRange(x, m, x.length),
                java.util.Arrays.copyOfRange(y, train, n),
                d0);
    }

    private static double[] unit(float[] f, int dim) {
        double[] x = Series.toDouble(f);
        for (int i = 0; i < x.length / dim; i++) {
            double s = 0;
            for (int j = 0; j < dim; j++) {
                s += x[i * dim + j] * x[i * dim + j];
            }
            for (int j = 0; j < dim; j++) {
                x[i * dim + j] /= Math.sqrt(Math.max(s, 1e-30));
            }
        }
        return x;
    }

    private static double[] labels(LabelledSet d) {
        double[] y = new double[d.size()];
        for (int i = 0; i < y.length; i++) {
            y[i] = d.labels()[i];
        }
        return y;
    }
}
