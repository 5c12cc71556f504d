package org.ntk4j.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ntk4j.data.IdxReaderTest.assertOneLine;

import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;

class PreprocessTest {
    private static LabelledSet small(int[] labels, int k) {
        float[] f = new float[labels.length * 2];
        for (int i = 0; i < f.length; i++) {
            f[i] = i;
        }
        return new LabelledSet("small", f, new int[] {1, 1, 2}, labels, k);
    }

    @Test
    void scaleDivides() {
        LabelledSet d = Preprocess.scale(small(new int[] {0, 1}, 2), 2f);
        assertArrayEquals(new float[] {0, 0.5f, 1, 1.5f}, d.features());
        assertThrows(UserException.class, () -> Preprocess.scale(small(new int[] {0}, 2), 0f));
    }

    @Test
    void flattenKeepsValues() {
        LabelledSet d = Preprocess.flatten(small(new int[] {0, 1}, 2));
        assertArrayEquals(new int[] {2}, d.sampleShape());
        assertArrayEquals(new float[] {0, 1, 2, 3}, d.features());
    }

    @Test
    void classSubsetRemapsLabelsInGivenOrder() {
        LabelledSet d = small(new int[] {3, 1, 7, 1, 3, 0}, 10);
        LabelledSet s = Preprocess.classSubset(d, 3, 1);
        assertEquals(2, s.numClasses());
        assertArrayEquals(new int[] {0, 1, 1, 0}, s.labels());
        assertArrayEquals(new float[] {0, 1, 2, 3, 6, 7, 8, 9}, s.features());
        assertOneLine(assertThrows(UserException.class, () -> Preprocess.classSubset(d, 10)), "class 10", "0..9");
        assertOneLine(assertThrows(UserException.class, () -> Preprocess.classSubset(d, 1, 1)), "class 1", "twice");
    }

    @Test
    void mnistZeroVersusOneFromBundledSubset() {
        LabelledSet s = Preprocess.classSubset(Datasets.loadSubset(Split.TRAIN), 0, 1);
        assertEquals(400, s.size());
        assertArrayEquals(new int[] {200, 200}, s.classCounts());
    }

    @Test
    void balancedSamplingCountsOrderAndSeed() {
        LabelledSet train = Datasets.loadSubset(Split.TRAIN);
        LabelledSet s = Preprocess.balancedSample(train, 17, 5);
        assertEquals(170, s.size());
        for (int c : s.classCounts()) {
            assertEquals(17, c);
        }
        int[] idx = Preprocess.balancedIndices(train.labels(), 10, 17, 5);
        for (int i = 1; i < idx.length; i++) {
            assertTrue(idx[i] > idx[i - 1], "sorted, no repeats");
        }
        assertArrayEquals(idx, Preprocess.balancedIndices(train.labels(), 10, 17, 5), "same seed, same sample");
        assertTrue(!java.util.Arrays.equals(idx, Preprocess.balancedIndices(train.labels(), 10, 17, 6)));
        assertOneLine(
                assertThrows(UserException.class, () -> Preprocess.balancedSample(train, 201, 1)),
                "class 0 has only 200",
                "201 per class");
    }

    @Test
    void targetEncodings() {
        int[] y = {2, 0, 1};
        assertArrayEquals(new float[] {0, 0, 1, 1, 0, 0, 0, 1, 0}, Preprocess.oneHot(y, 3));
        assertArrayEquals(new float[] {-1, -1, 1, 1, -1, -1, -1, 1, -1}, Preprocess.plusMinusOne(y, 3));
        assertArrayEquals(new float[] {1, -1, -1}, Preprocess.plusMinusOne(new int[] {1, 0, 0}, 2));
        assertEquals(1, Preprocess.plusMinusOneOutputs(2));
        assertEquals(3, Preprocess.plusMinusOneOutputs(3));
        float[] c = Preprocess.centredOneHot(y, 3);
        for (int i = 0; i < 3; i++) {
            assertEquals(0f, c[3 * i] + c[3 * i + 1] + c[3 * i + 2], 1e-6f, "rows sum to zero");
        }
        assertEquals(2f / 3f, c[2], 1e-6f);
        assertEquals(-1f / 3f, c[0], 1e-6f);
        assertOneLine(assertThrows(UserException.class, () -> Preprocess.oneHot(new int[] {3}, 3)), "label 3", "0..2");
    }

    /**
     * Each label is redrawn uniformly with probability p, so the number of changed labels is
     * Binomial(n, q) with q = p(K−1)/K. With n = 2000, p = 0.3, K = 10: mean 540, σ = √(n q (1−q))
     * ≈ 19.9; we accept ±5σ (a two-sided probability of about 6e-7 of failing by chance).
     */
    @Test
    void corruptionFractionWithinBinomialTolerance() {
        LabelledSet train = Datasets.loadSubset(Split.TRAIN);
        int n = train.size();
        double p = 0.3;
        double q = p * 9 / 10;
        for (long seed = 1; seed <= 3; seed++) {
            LabelledSet c = Preprocess.corruptLabels(train, p, seed);
            int changed = 0;
            for (int i = 0; i < n; i++) {
                if (c.labels()[i] != train.labels()[i]) {
                    changed++;
                }
            }
            double sigma = Math.sqrt(n * q * (1 - q));
            assertEquals(n * q, changed, 5 * sigma, "seed " + seed);
            assertArrayEquals(train.features(), c.features());
        }
        assertArrayEquals(train.labels(), Preprocess.corruptLabels(train, 0, 1).labels());
        assertArrayEquals(
                Preprocess.corruptLabels(train, 0.5, 9).labels(),
                Preprocess.corruptLabels(train, 0.5, 9).labels());
        assertOneLine(
                assertThrows(UserException.class, () -> Preprocess.corruptLabels(train, 1.5, 1)), "1.5", "[0, 1]");
    }
}
