package org.ntk4j.data;

/**
 * Summary statistics of a {@link LabelledSet}: size, sample shape, class counts, and the mean and
 * (population) standard deviation of all feature values, overall and per channel (the first axis
 * of the sample shape), accumulated in double precision.
 */
public record DatasetSummary(
        String name,
        int size,
        int[] sampleShape,
        int[] classCounts,
        double mean,
        double std,
        double[] channelMeans,
        double[] channelStds) {

    /** Computes the summary of {@code data}. */
    public static DatasetSummary of(LabelledSet data) {
        int[] shape = data.sampleShape();
        int channels = shape.length >= 2 ? shape[0] : 1;
        int d = data.featureDim();
        int per = d / channels;
        double[] s = new double[channels];
        double[] ss = new double[channels];
        float[] f = data.features();
        for (int i = 0; i < data.size(); i++) {
            int base = i * d;
            for (int c = 0; c < channels; c++) {
                double a = 0;
                double b = 0;
                for (int k = base + c * per, end = k + per; k < end; k++) {
                    double v = f[k];
                    a += v;
                    b += v * v;
                }
                s[c] += a;
                ss[c] += b;
            }
        }
        double cnt = (double) data.size() * per;
        double[] means = new double[channels];
        double[] stds = new double[channels];
        double tot = 0;
        double tot2 = 0;
        for (int c = 0; c < channels; c++) {
            means[c] = s[c] / cnt;
            stds[c] = Math.sqrt(Math.max(0, ss[c] / cnt - means[c] * means[c]));
            tot += s[c];
            tot2 += ss[c];
        }
        double all = cnt * channels;
        double mean = tot / all;
        double std = Math.sqrt(Math.max(0, tot2 / all - mean * mean));
        return new DatasetSummary(data.name(), data.size(), shape, data.classCounts(), mean, std, means, stds);
    }
}
