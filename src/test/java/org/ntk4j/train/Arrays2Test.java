package org.ntk4j.train;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import org.junit.jupiter.api.Test;
import org.ntk4j.data.LabelledSet;

/**
 * {@link Arrays2#owned}: a set of 8-bit images made float in the engine gives {@link Arrays2#fromFloats} of its Java
 * features bit for bit (every byte value, float32 and float64), in memory of its own (the Java buffer it came
 * through can go); a float set takes the Java features.
 */
class Arrays2Test {
    @Test
    void pixelsMadeFloatInTheEngineEqualTheJavaFeatures() {
        byte[] px = new byte[512];
        for (int i = 0; i < px.length; i++) {
            px[i] = (byte) (i * 37 + 11); // every byte value, twice
        }
        LabelledSet data = LabelledSet.ofPixels("px", px, new int[] {2, 8, 8}, new int[] {0, 1, 2, 3}, 4);
        Shape shape = new Shape(4, 2, 8, 8);
        try (NDManager m = NDManager.newBaseManager()) {
            for (DataType type : new DataType[] {DataType.FLOAT32, DataType.FLOAT64}) {
                NDArray got = Arrays2.owned(m, data, shape, type);
                System.gc(); // the direct buffer the bytes came through may go: the array owns its memory
                NDArray want = Arrays2.fromFloats(m, data.features(), shape, type);
                assertEquals(shape, got.getShape());
                assertEquals(type, got.getDataType());
                double[] g = got.toType(DataType.FLOAT64, false).toDoubleArray();
                double[] w = want.toType(DataType.FLOAT64, false).toDoubleArray();
                for (int i = 0; i < w.length; i++) {
                    assertEquals(
                            Double.doubleToRawLongBits(w[i]),
                            Double.doubleToRawLongBits(g[i]),
                            type + " value " + i + " (byte " + (px[i] & 0xFF) + ")");
                }
            }
            LabelledSet floats =
                    new LabelledSet("f", new float[] {0.25f, -1.5f, 3f, 7e-8f}, new int[] {2}, new int[] {0, 1}, 2);
            assertEquals(
                    java.util.List.of(0.25f, -1.5f, 3f, 7e-8f),
                    toList(Arrays2.owned(m, floats, new Shape(2, 2), DataType.FLOAT32)
                            .toFloatArray()));
        }
    }

    private static java.util.List<Float> toList(float[] v) {
        java.util.List<Float> l = new java.util.ArrayList<>();
        for (float f : v) {
            l.add(f);
        }
        return l;
    }
}
