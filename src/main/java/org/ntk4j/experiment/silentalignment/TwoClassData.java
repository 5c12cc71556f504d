package org.ntk4j.experiment.silentalignment;

import java.util.Locale;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Split;
import org.ntk4j.data.Standardizer;
import org.ntk4j.data.Whitening;

/**
 * The two-class regression data of Atanasov, Bordelon &amp; Pehlevan, Silent Alignment (Figs. 1, 6, D.4, I.1): the
 * first P/2 images of class 0 and of class 1 of a dataset, targets −1 (class 0) and +1 (class 1), centred with the
 * training mean and partially whitened, X_γ = U S^γ Vᵀ (γ = 0 whitened, γ = 1 raw), rescaled so the retained
 * covariance eigenvalues average 1 ({@link Whitening}, {@link Whitening.Rescale#UNIT_MEAN_EIGENVALUE}); test points
 * go through the same centring and linear map. The images keep their sample shape (for convolutional nets).
 */
final class TwoClassData {
    /** Training and test sets. */
    record Split2(LabelledSet train, LabelledSet test) {}

    private TwoClassData() {}

    /** {@code points} training and {@code testPoints} test images of classes 0 and 1 of {@code dataset}. */
    static Split2 of(String dataset, int points, int testPoints, double gamma) {
        LabelledSet train = pick(Datasets.load(dataset, Split.TRAIN), points);
        Standardizer centre = Standardizer.fit(train, Standardizer.Mode.CENTRE);
        LabelledSet ct = centre.apply(train);
        int d = ct.featureDim();
        Whitening w = Whitening.fit(
                ct.features(), ct.size(), d, gamma, Whitening.DEFAULT_RCOND, Whitening.Rescale.UNIT_MEAN_EIGENVALUE);
        String name = String.format(Locale.ROOT, "%s-01-gamma-%g", dataset, gamma);
        LabelledSet tr = regression(name, w.fittedTrain(), train);
        LabelledSet te = null;
        if (testPoints > 0) {
            LabelledSet test = pick(Datasets.load(dataset, Split.TEST), testPoints);
            te = regression(name + "-test", w.apply(centre.apply(test).features()), test);
        }
        return new Split2(tr, te);
    }

    /** The first n/2 images of class 0 and n − n/2 of class 1, in dataset order. */
    private static LabelledSet pick(LabelledSet all, int n) {
        int[] idx = new int[n];
        int zeros = 0;
        int ones = 0;
        int k = 0;
        for (int i = 0; i < all.size() && k < n; i++) {
            int label = all.labels()[i];
            if (label == 0 && zeros < n / 2) {
                idx[k++] = i;
                zeros++;
            } else if (label == 1 && ones < n - n / 2) {
                idx[k++] = i;
                ones++;
            }
        }
        return all.subset(java.util.Arrays.copyOf(idx, k));
    }

    private static LabelledSet regression(String name, float[] x, LabelledSet labelled) {
        float[] y = new float[labelled.size()];
        for (int i = 0; i < y.length; i++) {
            y[i] = labelled.labels()[i] == 1 ? 1f : -1f;
        }
        return LabelledSet.regression(name, x, labelled.sampleShape(), y, 1);
    }
}
