package org.ntk4j.data;

import java.util.Arrays;
import java.util.Objects;

/**
 * An in-memory labelled image set: {@code n} samples of shape {@link #sampleShape()} (e.g. 1×28×28
 * or 3×32×32, channel-first), stored row-major as float32 in {@link #features()} (length
 * n·featureDim), with integer class labels in [0, numClasses). A regression set (synthetic teachers,
 * seeds 001 and 004) also carries real-valued targets, n × {@link #targetOutputs()} row-major, which
 * training and the probes use instead of labels; its labels are all 0 (one class).
 *
 * <p>Immutable by convention: methods that transform return a new LabelledSet; the arrays returned
 * by the accessors are the backing arrays and must not be modified.
 *
 * <p>A set read from 8-bit images ({@link #ofPixels}) keeps its bytes and makes the float features, {@code (b &amp;
 * 0xFF) / 255f}, on the first call of {@link #features()}: a subset ({@link #subset}, {@link #head}) taken before
 * copies bytes only, so that training ResNet-20 on 2,000 of CIFAR-10's 50,000 images no longer fills a 614 MB float
 * array first (benchmarks/RESULTS.md, "Memory's first touch"). The values are the same either way.
 */
public final class LabelledSet {
    private final String name;
    /** The features; for a set of pixels, null until {@link #features()} makes them. */
    private float[] features;
    /** Unsigned 8-bit pixels whose features are {@code (b & 0xFF) / 255f}, or null. */
    private final byte[] pixels;

    private final int[] sampleShape;
    private final int[] labels;
    private final int numClasses;
    private final float[] targets;
    private final int targetOutputs;

    public LabelledSet(String name, float[] features, int[] sampleShape, int[] labels, int numClasses) {
        this(name, features, sampleShape, labels, numClasses, null, 0);
    }

    /**
     * A set of 8-bit images: sample i's features are {@code (pixels[i·d + j] & 0xFF) / 255f}, made when first asked
     * for ({@link #features()}).
     */
    public static LabelledSet ofPixels(String name, byte[] pixels, int[] sampleShape, int[] labels, int numClasses) {
        return new LabelledSet(name, pixels, sampleShape, labels, numClasses);
    }

    private LabelledSet(
            String name,
            float[] features,
            int[] sampleShape,
            int[] labels,
            int numClasses,
            float[] targets,
            int targetOutputs) {
        this.name = Objects.requireNonNull(name);
        this.features = Objects.requireNonNull(features);
        this.pixels = null;
        this.sampleShape = sampleShape.clone();
        this.labels = Objects.requireNonNull(labels);
        this.numClasses = numClasses;
        this.targets = targets;
        this.targetOutputs = targetOutputs;
        check(features.length);
    }

    /** A set of pixels (no real-valued targets), see {@link #ofPixels}. */
    private LabelledSet(String name, byte[] pixels, int[] sampleShape, int[] labels, int numClasses) {
        this.name = Objects.requireNonNull(name);
        this.features = null;
        this.pixels = Objects.requireNonNull(pixels);
        this.sampleShape = sampleShape.clone();
        this.labels = Objects.requireNonNull(labels);
        this.numClasses = numClasses;
        this.targets = null;
        this.targetOutputs = 0;
        check(pixels.length);
    }

    private void check(long values) {
        if (targets != null && (targetOutputs <= 0 || (long) labels.length * targetOutputs != targets.length)) {
            throw new IllegalArgumentException(name + ": " + targets.length + " target values for " + labels.length
                    + " samples × " + targetOutputs + " outputs");
        }
        int d = featureDim();
        if ((long) labels.length * d != values) {
            throw new IllegalArgumentException(name + ": " + labels.length + " labels but " + values
                    + " feature values (expected " + (long) labels.length * d + ")");
        }
        for (int i = 0; i < labels.length; i++) {
            if (labels[i] < 0 || labels[i] >= numClasses) {
                throw new IllegalArgumentException(
                        name + ": label " + labels[i] + " at index " + i + " is outside [0, " + numClasses + ")");
            }
        }
    }

    public String name() {
        return name;
    }

    public int size() {
        return labels.length;
    }

    /** Channel-first shape of one sample, e.g. {1, 28, 28}; {d} for flat or synthetic data. */
    public int[] sampleShape() {
        return sampleShape.clone();
    }

    /** Number of values per sample: the product of {@link #sampleShape()}. */
    public int featureDim() {
        int d = 1;
        for (int s : sampleShape) {
            d *= s;
        }
        return d;
    }

    /** Row-major features, length size()·featureDim(). Do not modify. */
    public synchronized float[] features() {
        if (features == null) {
            features = unit(pixels);
        }
        return features;
    }

    /** The features of 8-bit pixels: {@code (b & 0xFF) / 255f} for each byte, in a new array. */
    public static float[] unit(byte[] px) {
        float[] f = new float[px.length];
        unit(px, 0, f, 0, px.length);
        return f;
    }

    private static void unit(byte[] px, int from, float[] out, int off, int len) {
        for (int i = 0; i < len; i++) {
            out[off + i] = (px[from + i] & 0xFF) / 255f;
        }
    }

    /**
     * Puts the features into {@code dst} (size()·featureDim() values from its position on), from the bytes when the
     * float features are not made yet, without making them: the training set goes into the engine's buffer without a
     * float array on the Java heap first.
     */
    public void copyFeaturesTo(java.nio.FloatBuffer dst) {
        if (!pixelsOnly()) {
            dst.put(features());
            return;
        }
        float[] chunk = new float[Math.min(pixels.length, 1 << 16)];
        for (int from = 0; from < pixels.length; from += chunk.length) {
            int len = Math.min(chunk.length, pixels.length - from);
            unit(pixels, from, chunk, 0, len);
            dst.put(chunk, 0, len);
        }
    }

    /** Whether the features are 8-bit pixels' {@code (b & 0xFF) / 255f} ({@link #ofPixels}), whose bytes are kept. */
    public boolean hasPixels() {
        return pixels != null;
    }

    /** Puts the 8-bit pixels (size()·featureDim() bytes) into {@code dst}; only for a set that {@link #hasPixels}. */
    public void copyPixelsTo(java.nio.ByteBuffer dst) {
        if (pixels == null) {
            throw new IllegalStateException(name + " holds float features, not 8-bit pixels");
        }
        dst.put(pixels);
    }

    /** Whether the float features are not made yet (a set of {@link #ofPixels} whose features nobody asked for). */
    private synchronized boolean pixelsOnly() {
        return features == null;
    }

    /** Class labels in [0, numClasses). Do not modify. */
    public int[] labels() {
        return labels;
    }

    public int numClasses() {
        return numClasses;
    }

    /** A regression set: these samples with real-valued targets y (n × outputs, row-major), labels all 0. */
    public static LabelledSet regression(String name, float[] features, int[] sampleShape, float[] y, int outputs) {
        int n = outputs <= 0 ? 0 : y.length / outputs;
        return new LabelledSet(name, features, sampleShape, new int[n], 1, y, outputs);
    }

    /** Whether the set carries real-valued targets (a regression task) rather than class labels only. */
    public boolean isRegression() {
        return targets != null;
    }

    /** Real-valued targets, n × {@link #targetOutputs()} row-major, or null for a classification set. Do not modify. */
    public float[] targets() {
        return targets;
    }

    /** Outputs per sample of the real-valued targets (0 for a classification set). */
    public int targetOutputs() {
        return targetOutputs;
    }

    /** Samples at the given indices, in that order (bytes only, for a set of pixels whose features are not made). */
    public LabelledSet subset(int[] indices) {
        int d = featureDim();
        boolean bytes = pixelsOnly();
        float[] from = bytes ? null : features();
        float[] f = bytes ? null : new float[indices.length * d];
        byte[] b = bytes ? new byte[indices.length * d] : null;
        int[] l = new int[indices.length];
        float[] t = targets == null ? null : new float[indices.length * targetOutputs];
        for (int k = 0; k < indices.length; k++) {
            int i = indices[k];
            if (i < 0 || i >= size()) {
                throw new IndexOutOfBoundsException("index " + i + " outside [0, " + size() + ")");
            }
            if (bytes) {
                System.arraycopy(pixels, i * d, b, k * d, d);
            } else {
                System.arraycopy(from, i * d, f, k * d, d);
            }
            l[k] = labels[i];
            if (t != null) {
                System.arraycopy(targets, i * targetOutputs, t, k * targetOutputs, targetOutputs);
            }
        }
        return bytes
                ? new LabelledSet(name, b, sampleShape, l, numClasses) // a set of pixels has no targets
                : new LabelledSet(name, f, sampleShape, l, numClasses, t, targetOutputs);
    }

    /** The first n samples. */
    public LabelledSet head(int n) {
        int[] idx = new int[Math.min(n, size())];
        Arrays.setAll(idx, i -> i);
        return subset(idx);
    }

    /** Same samples, new features (e.g. after preprocessing); shape may change (flatten). */
    public LabelledSet withFeatures(float[] newFeatures, int[] newSampleShape) {
        return new LabelledSet(name, newFeatures, newSampleShape, labels, numClasses, targets, targetOutputs);
    }

    /** Same samples and features, new labels (e.g. after label corruption). */
    public LabelledSet withLabels(int[] newLabels) {
        return pixelsOnly()
                ? new LabelledSet(name, pixels, sampleShape, newLabels, numClasses)
                : new LabelledSet(name, features(), sampleShape, newLabels, numClasses, targets, targetOutputs);
    }

    /** Samples per class. */
    public int[] classCounts() {
        int[] c = new int[numClasses];
        for (int y : labels) {
            c[y]++;
        }
        return c;
    }

    @Override
    public String toString() {
        return name + "[n=" + size() + ", shape=" + Arrays.toString(sampleShape)
                + (targets == null ? ", classes=" + numClasses : ", regression outputs=" + targetOutputs) + "]";
    }
}
