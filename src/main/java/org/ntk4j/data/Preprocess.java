package org.ntk4j.data;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.ntk4j.UserException;

/**
 * Stateless preprocessing of {@link LabelledSet}s and labels: flattening, class subsets, balanced
 * sampling, target encodings and label corruption. Transforms with statistics fitted on a training
 * set live in {@link Standardizer} and {@link Whitening}; pixel scaling to [0,1] is done by the
 * readers ({@code byte / 255}).
 *
 * <p>Random choices use {@link SplittableRandom} seeded with the given seed, so results are
 * reproducible across runs and machines.
 */
public final class Preprocess {
    private Preprocess() {}

    /**
     * Divides every feature by {@code divisor}: x' = x / divisor. The readers already return
     * {@code byte/255} in [0,1]; use this for raw 0..255 data from elsewhere ({@code divisor = 255}).
     */
    public static LabelledSet scale(LabelledSet data, float divisor) {
        if (!(divisor != 0 && Float.isFinite(divisor))) {
            throw new UserException("scale: divisor " + divisor + " must be finite and nonzero");
        }
        float[] f = data.features();
        float[] out = new float[f.length];
        for (int i = 0; i < f.length; i++) {
            out[i] = f[i] / divisor;
        }
        return data.withFeatures(out, data.sampleShape());
    }

    /** Same samples with sample shape {d} (d = featureDim); the feature array is shared, not copied. */
    public static LabelledSet flatten(LabelledSet data) {
        return data.withFeatures(data.features(), new int[] {data.featureDim()});
    }

    /**
     * The samples whose label is one of {@code classes}, in their original order, with labels
     * remapped to their position in {@code classes}: {@code classes[i] → i}, so the result has
     * {@code classes.length} classes. Example: MNIST 0 vs 1 is {@code classSubset(mnist, 0, 1)}.
     */
    public static LabelledSet classSubset(LabelledSet data, int... classes) {
        if (classes.length == 0) {
            throw new UserException("class subset: no classes given (expected at least one class index)");
        }
        int[] map = new int[data.numClasses()];
        Arrays.fill(map, -1);
        for (int i = 0; i < classes.length; i++) {
            int c = classes[i];
            if (c < 0 || c >= data.numClasses()) {
                throw new UserException("class subset: class " + c + " is out of range for " + data.name()
                        + " (expected 0.." + (data.numClasses() - 1) + ")");
            }
            if (map[c] >= 0) {
                throw new UserException("class subset: class " + c + " is listed twice");
            }
            map[c] = i;
        }
        int[] labels = data.labels();
        int count = 0;
        for (int y : labels) {
            if (map[y] >= 0) {
                count++;
            }
        }
        int[] idx = new int[count];
        int k = 0;
        for (int i = 0; i < labels.length; i++) {
            if (map[labels[i]] >= 0) {
                idx[k++] = i;
            }
        }
        LabelledSet sub = data.subset(idx);
        int[] newLabels = new int[count];
        for (int i = 0; i < count; i++) {
            newLabels[i] = map[sub.labels()[i]];
        }
        return new LabelledSet(sub.name(), sub.features(), sub.sampleShape(), newLabels, classes.length);
    }

    /**
     * Indices of a class-balanced sample: for each class, {@code perClass} indices drawn without
     * replacement (a seeded Fisher–Yates shuffle of that class's indices, first {@code perClass}
     * kept), returned sorted ascending so the sample keeps the original order of the data.
     *
     * @throws UserException if some class has fewer than {@code perClass} samples
     */
    public static int[] balancedIndices(int[] labels, int numClasses, int perClass, long seed) {
        if (perClass < 0) {
            throw new UserException("balanced sample: per-class count " + perClass + " is negative (expected >= 0)");
        }
        List<List<Integer>> byClass = new ArrayList<>();
        for (int c = 0; c < numClasses; c++) {
            byClass.add(new ArrayList<>());
        }
        for (int i = 0; i < labels.length; i++) {
            byClass.get(labels[i]).add(i);
        }
        for (int c = 0; c < numClasses; c++) { // before allocating perClass × classes
            if (byClass.get(c).size() < perClass) {
                throw new UserException("balanced sample: class " + c + " has only "
                        + byClass.get(c).size() + " samples (asked for " + perClass + " per class)");
            }
        }
        SplittableRandom rng = new SplittableRandom(seed);
        int[] out = new int[perClass * numClasses];
        int k = 0;
        for (int c = 0; c < numClasses; c++) {
            List<Integer> members = byClass.get(c);
            if (members.size() < perClass) {
                throw new UserException("balanced sample: class " + c + " has only " + members.size()
                        + " samples (asked for " + perClass + " per class)");
            }
            int[] m = members.stream().mapToInt(Integer::intValue).toArray();
            for (int i = 0; i < perClass; i++) { // partial Fisher-Yates
                int j = i + rng.nextInt(m.length - i);
                int t = m[i];
                m[i] = m[j];
                m[j] = t;
                out[k++] = m[i];
            }
        }
        Arrays.sort(out);
        return out;
    }

    /** A class-balanced sample of {@code perClass} samples per class; see {@link #balancedIndices}. */
    public static LabelledSet balancedSample(LabelledSet data, int perClass, long seed) {
        return data.subset(balancedIndices(data.labels(), data.numClasses(), perClass, seed));
    }

    /** One-hot targets, n×K row-major: {@code T[i][c] = 1 if labels[i] == c else 0}. */
    public static float[] oneHot(int[] labels, int numClasses) {
        float[] t = new float[labels.length * numClasses];
        for (int i = 0; i < labels.length; i++) {
            checkLabel(labels[i], i, numClasses);
            t[i * numClasses + labels[i]] = 1f;
        }
        return t;
    }

    /** Number of target columns {@link #plusMinusOne} produces: 1 for two classes, K otherwise. */
    public static int plusMinusOneOutputs(int numClasses) {
        return numClasses == 2 ? 1 : numClasses;
    }

    /**
     * ±1 targets. Two classes: one output, class 0 → −1 and class 1 → +1 (the "two-class
     * regression" of Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, Fig. 1; n×1). More classes: one-hot scaled to
     * ±1, {@code T = 2·onehot − 1} (+1 at the true class, −1 elsewhere; n×K).
     */
    public static float[] plusMinusOne(int[] labels, int numClasses) {
        if (numClasses == 2) {
            float[] t = new float[labels.length];
            for (int i = 0; i < labels.length; i++) {
                checkLabel(labels[i], i, 2);
                t[i] = labels[i] == 1 ? 1f : -1f;
            }
            return t;
        }
        float[] t = oneHot(labels, numClasses);
        for (int i = 0; i < t.length; i++) {
            t[i] = 2f * t[i] - 1f;
        }
        return t;
    }

    /**
     * Centred one-hot targets, n×K: {@code T[i][c] = 1[labels[i] == c] − 1/K}, so every row sums to
     * zero (the class-centred targets of Lou, Mingard &amp; Hayou, Equilibrium Hypothesis,
     * {@code Ỹ = C·Y}).
     */
    public static float[] centredOneHot(int[] labels, int numClasses) {
        float[] t = oneHot(labels, numClasses);
        float shift = 1f / numClasses;
        for (int i = 0; i < t.length; i++) {
            t[i] -= shift;
        }
        return t;
    }

    /**
     * Label corruption ("random labels", Zhang et al. 2017, §2 "partially corrupted labels"): each
     * sample independently, with probability {@code fraction}, gets a label drawn uniformly from all
     * K classes (which may equal its true label). So the number of samples chosen is
     * Binomial(n, fraction) and the number of labels that actually change is
     * Binomial(n, fraction·(K−1)/K). {@code fraction = 1} gives fully random labels.
     */
    public static LabelledSet corruptLabels(LabelledSet data, double fraction, long seed) {
        if (!(fraction >= 0 && fraction <= 1)) {
            throw new UserException("label corruption: fraction " + fraction + " is outside [0, 1]");
        }
        SplittableRandom rng = new SplittableRandom(seed);
        int[] labels = data.labels().clone();
        int k = data.numClasses();
        for (int i = 0; i < labels.length; i++) {
            if (rng.nextDouble() < fraction) {
                labels[i] = rng.nextInt(k);
            }
        }
        return data.withLabels(labels);
    }

    private static void checkLabel(int y, int i, int numClasses) {
        if (y < 0 || y >= numClasses) {
            throw new UserException(
                    "label " + y + " at index " + i + " is out of range (expected 0.." + (numClasses - 1) + ")");
        }
    }

    /**
     * Zero-pads every image by {@code p} pixels on each side: (C, H, W) → (C, H+2p, W+2p), e.g. MNIST
     * 28×28 → 32×32 for networks with CIFAR-sized inputs (the VGG on MNIST of Seleznova et al., Neural (Tangent Kernel)
     * Collapse).
     */
    public static LabelledSet pad(LabelledSet data, int p) {
        int[] sh = data.sampleShape();
        if (sh.length != 3) {
            throw new UserException(
                    "pad: " + data.name() + " samples have shape " + Arrays.toString(sh) + "; expected (C, H, W)");
        }
        if (p < 0) {
            throw new UserException("pad: " + p + " pixels; expected >= 0");
        }
        int c = sh[0];
        int h = sh[1];
        int w = sh[2];
        long h2l = h + 2L * p;
        long w2l = w + 2L * p;
        long values = (long) data.size() * c * h2l * w2l; // no overflow: each factor is below 2^32
        if (h2l * w2l > Integer.MAX_VALUE || values > Integer.MAX_VALUE - 8) {
            throw new UserException("pad " + p + ": " + data.size() + " images of " + c + "×" + h2l + "×" + w2l + " = "
                    + values + " values are more than one array holds (2^31 − 1); pad by fewer pixels or use fewer"
                    + " images");
        }
        if (values * 4 > Runtime.getRuntime().maxMemory()) {
            throw new UserException("pad " + p + ": " + data.size() + " images of " + c + "×" + h2l + "×" + w2l
                    + " take " + (values * 4 >> 20) + " MiB, more than the Java heap ("
                    + (Runtime.getRuntime().maxMemory() >> 20) + " MiB)");
        }
        int h2 = (int) h2l;
        int w2 = (int) w2l;
        float[] src = data.features();
        float[] out = new float[(int) values];
        for (int i = 0; i < data.size(); i++) {
            for (int k = 0; k < c; k++) {
                for (int y = 0; y < h; y++) {
                    System.arraycopy(src, ((i * c + k) * h + y) * w, out, ((i * c + k) * h2 + y + p) * w2 + p, w);
                }
            }
        }
        return data.withFeatures(out, new int[] {c, h2, w2});
    }
}
