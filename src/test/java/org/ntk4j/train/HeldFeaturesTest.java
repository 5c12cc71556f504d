package org.ntk4j.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import org.junit.jupiter.api.Test;
import org.ntk4j.data.LabelledSet;

/**
 * {@link HeldFeatures}: a set of 8-bit images held as bytes gives, batch by batch, the float features the readers
 * make in Java, {@code (b & 0xFF) / 255f}, bit for bit (every byte value, gathered rows and slices, float32 and
 * float64 networks), and holds a quarter of their bytes; a float set gives its features as they are.
 */
class HeldFeaturesTest {
    /** Every byte value 0..255, in 4 samples of 2×4×8 = 64 values, labels 0..3. */
    private static LabelledSet allBytes() {
        byte[] px = new byte[256];
        for (int i = 0; i < px.length; i++) {
            px[i] = (byte) (i * 37 + 11); // a permutation of 0..255
        }
        return LabelledSet.ofPixels("px", px, new int[] {2, 4, 8}, new int[] {0, 1, 2, 3}, 4);
    }

    @Test
    void bytesGiveTheReadersFloatsBitForBit() {
        LabelledSet data = allBytes();
        float[] want = data.features(); // Java's (b & 0xFF) / 255f
        int d = data.featureDim();
        try (NDManager m = NDManager.newBaseManager()) {
            Shape shape = new Shape(4, 2, 4, 8);
            HeldFeatures held = HeldFeatures.of(m, data, shape, DataType.FLOAT32, true);
            assertArrayEquals(want, held.all().toFloatArray(), 0f, "the whole set");
            try (NDArray order = m.create(new long[] {3, 0, 2})) {
                NDArray rows = held.gather(new NDIndex("{}", order)).all(); // an epoch's copy in its order
                assertEquals(new Shape(3, 2, 4, 8), rows.getShape());
                assertEquals(DataType.FLOAT32, rows.getDataType());
                float[] got = rows.toFloatArray();
                int[] idx = {3, 0, 2};
                for (int k = 0; k < idx.length; k++) {
                    for (int j = 0; j < d; j++) {
                        assertEquals(
                                Float.floatToRawIntBits(want[idx[k] * d + j]),
                                Float.floatToRawIntBits(got[k * d + j]),
                                "row " + idx[k] + ", value " + j);
                    }
                }
            }
            HeldFeatures f64 = HeldFeatures.of(m, data, shape, DataType.FLOAT64, true);
            NDArray slice = f64.range(1, 3); // a view of a float block, as a training step takes its batch
            assertEquals(DataType.FLOAT64, slice.getDataType());
            double[] got = slice.toDoubleArray();
            for (int i = 0; i < got.length; i++) {
                assertEquals(
                        (double) want[d + i], got[i], 0.0, "float64 value " + i + ": the float32 feature, widened");
            }
        }
    }

    @Test
    void aFloatSetIsHeldAsItsFeatures() {
        LabelledSet bytes = allBytes();
        LabelledSet floats = bytes.withFeatures(bytes.features(), bytes.sampleShape());
        try (NDManager m = NDManager.newBaseManager()) {
            Shape shape = new Shape(4, 2, 4, 8);
            HeldFeatures held = HeldFeatures.of(m, floats, shape, DataType.FLOAT32, true);
            assertArrayEquals(bytes.features(), held.all().toFloatArray(), 0f);
            HeldFeatures fullBatch = HeldFeatures.of(m, bytes, shape, DataType.FLOAT32, false);
            assertEquals(DataType.FLOAT32, fullBatch.all().getDataType(), "a full-batch run holds floats");
            assertEquals(
                    DataType.UINT8,
                    HeldFeatures.of(m, bytes, shape, DataType.FLOAT32, true).storedType());
        }
    }
}
