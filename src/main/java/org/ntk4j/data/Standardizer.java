package org.ntk4j.data;

import org.ntk4j.UserException;

/**
 * Standardisation fitted on a training set and applied unchanged to any other set (test data get
 * the training statistics): {@code x'_j = (x_j − μ_j) / σ_j}.
 *
 * <ul>
 *   <li>{@link Mode#PER_FEATURE}: μ_j, σ_j are the mean and population standard deviation of
 *       feature j over the training samples ("each pixel standardized to mean 0, std 1",
 *       Feature Learning as Alignment (anon.), Fig. 17).</li>
 *   <li>{@link Mode#GLOBAL}: one μ and one σ over all training values.</li>
 *   <li>{@link Mode#CENTRE}: per-feature μ_j, σ_j = 1 (centring only, as before whitening).</li>
 * </ul>
 * A feature whose training standard deviation is below {@value #MIN_STD} (e.g. MNIST's always-zero
 * corner pixels) is only centred (σ = 1), so it maps to 0 on train instead of dividing by zero.
 */
public final class Standardizer {
    /** How the statistics are pooled. */
    public enum Mode {
        PER_FEATURE,
        GLOBAL,
        CENTRE
    }

    /** Standard deviations below this are treated as 0 (feature only centred). */
    public static final double MIN_STD = 1e-8;

    private final Mode mode;
    private final float[] mean;
    private final float[] scale; // 1/σ

    private Standardizer(Mode mode, float[] mean, float[] scale) {
        this.mode = mode;
        this.mean = mean;
        this.scale = scale;
    }

    /** Fits the statistics on the features of {@code train}. */
    public static Standardizer fit(LabelledSet train, Mode mode) {
        return fit(train.features(), train.size(), train.featureDim(), mode);
    }

    /** Fits on an n×d row-major matrix. */
    public static Standardizer fit(float[] x, int n, int d, Mode mode) {
        if (n < 1 || (long) n * d != x.length) {
            throw new UserException("standardise: " + x.length + " values do not form " + n + " samples of " + d
                    + " features (need n >= 1)");
        }
        double[] s = new double[d];
        double[] ss = new double[d];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < d; j++) {
                double v = x[i * d + j];
                s[j] += v;
            }
        }
        for (int j = 0; j < d; j++) {
            s[j] /= n;
        }
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < d; j++) {
                double v = x[i * d + j] - s[j];
                ss[j] += v * v;
            }
        }
        float[] mean = new float[d];
        float[] scale = new float[d];
        if (mode == Mode.GLOBAL) {
            double m = 0;
            for (int j = 0; j < d; j++) {
                m += s[j];
            }
            m /= d;
            double var = 0; // total variance about the global mean = within-feature + between-feature parts
            for (int j = 0; j < d; j++) {
                var += ss[j] + n * (s[j] - m) * (s[j] - m);
            }
            double sd = Math.sqrt(var / ((double) n * d));
            java.util.Arrays.fill(mean, (float) m);
            java.util.Arrays.fill(scale, (float) (sd < MIN_STD ? 1.0 : 1.0 / sd));
        } else {
            for (int j = 0; j < d; j++) {
                mean[j] = (float) s[j];
                double sd = Math.sqrt(ss[j] / n);
                scale[j] = mode == Mode.CENTRE || sd < MIN_STD ? 1f : (float) (1.0 / sd);
            }
        }
        return new Standardizer(mode, mean, scale);
    }

    public Mode mode() {
        return mode;
    }

    /** Number of features this transform expects. */
    public int featureDim() {
        return mean.length;
    }

    /** Fitted means μ_j (length d; all equal for GLOBAL). */
    public float[] means() {
        return mean.clone();
    }

    /** Fitted standard deviations σ_j as used (1 where the feature was only centred). */
    public float[] stds() {
        float[] s = new float[scale.length];
        for (int j = 0; j < s.length; j++) {
            s[j] = 1f / scale[j];
        }
        return s;
    }

    /** Applies the fitted transform to a dataset with the same feature dimension (shape kept). */
    public LabelledSet apply(LabelledSet data) {
        return data.withFeatures(apply(data.features()), data.sampleShape());
    }

    /** Applies the fitted transform to an n×d row-major matrix (returns a new array). */
    public float[] apply(float[] x) {
        int d = mean.length;
        if (x.length % d != 0) {
            throw new UserException("standardise: " + x.length + " values are not a whole number of samples of " + d
                    + " features (the dimension it was fitted on)");
        }
        float[] out = new float[x.length];
        for (int k = 0; k < x.length; k++) {
            int j = k % d;
            out[k] = (x[k] - mean[j]) * scale[j];
        }
        return out;
    }
}
