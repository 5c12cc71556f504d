package org.ntk4j.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link LabelledSet#ofPixels}: the features made from the bytes are those the float readers made, {@code (b & 0xFF)
 * / 255f}, bit for bit, whether a subset is taken before the features are made (bytes copied) or after.
 */
class LabelledSetPixelsTest {
    @Test
    void pixelsGiveTheFloatFeaturesBeforeAndAfterASubset() {
        Random r = new Random(3);
        int n = 50;
        int d = 12;
        byte[] px = new byte[n * d];
        r.nextBytes(px);
        px[0] = (byte) 255;
        px[1] = 0;
        int[] labels = new int[n];
        for (int i = 0; i < n; i++) {
            labels[i] = r.nextInt(4);
        }
        float[] want = new float[px.length];
        for (int i = 0; i < px.length; i++) {
            want[i] = (px[i] & 0xFF) / 255f;
        }
        LabelledSet floats = new LabelledSet("f", want, new int[] {3, 2, 2}, labels, 4);
        int[] idx = {7, 0, 49, 7, 13};
        // subset first: only bytes are copied, then the features are made
        LabelledSet early =
                LabelledSet.ofPixels("p", px, new int[] {3, 2, 2}, labels, 4).subset(idx);
        assertArrayEquals(floats.subset(idx).features(), early.features());
        assertArrayEquals(floats.subset(idx).labels(), early.labels());
        // features first, then the subset of floats
        LabelledSet late = LabelledSet.ofPixels("p", px, new int[] {3, 2, 2}, labels, 4);
        assertArrayEquals(want, late.features());
        assertArrayEquals(floats.subset(idx).features(), late.subset(idx).features());
        int[] relabelled = new int[n];
        assertArrayEquals(
                want,
                LabelledSet.ofPixels("p", px, new int[] {3, 2, 2}, labels, 4)
                        .withLabels(relabelled)
                        .features());
        // straight into a buffer, before and after the features are made
        for (LabelledSet set :
                new LabelledSet[] {LabelledSet.ofPixels("p", px, new int[] {3, 2, 2}, labels, 4), late}) {
            java.nio.FloatBuffer b = java.nio.FloatBuffer.allocate(want.length);
            set.copyFeaturesTo(b);
            assertArrayEquals(want, b.array());
        }
        assertThrows(
                IllegalArgumentException.class,
                () -> LabelledSet.ofPixels("p", new byte[d * n - 1], new int[] {3, 2, 2}, labels, 4));
    }
}
