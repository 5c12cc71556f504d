package org.ntk4j.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.Mode;

/** ntk4j's NPZ writer read back by DJL's own (independent) NPZ decoder. */
class NpzTest {
    @Test
    void roundTripsThroughDjlsDecoder(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            KernelMatrix k32 = new KernelMatrix(3, 2, Mode.DIAGONAL, 4, false);
            KernelMatrix k64 = new KernelMatrix(2, 2, Mode.FULL, 2, true, null);
            KernelMatrix disk = new KernelMatrix(5, 5, Mode.TRACE, 10, false, dir.resolve("spill"));
            double[] b32 = new double[3 * 2 * 4];
            double[] b64 = new double[16];
            double[] bd = new double[25];
            for (int i = 0; i < b32.length; i++) {
                b32[i] = i * 0.5 - 3;
            }
            for (int i = 0; i < b64.length; i++) {
                b64[i] = Math.PI * i;
            }
            for (int i = 0; i < bd.length; i++) {
                bd[i] = i * i;
            }
            k32.addBlock(0, 0, 3, 2, b32, false);
            k64.addBlock(0, 0, 2, 2, b64, false);
            disk.addBlock(0, 0, 5, 5, bd, false);
            NDArray w = m.arange(12f).reshape(3, 4);
            Path f = dir.resolve("x.npz");
            new Npz()
                    .put("k32", k32)
                    .put("k64", k64)
                    .put("disk", disk)
                    .put("w", w)
                    .put("labels", new int[] {3, 1, 4}, 3)
                    .put("v", new float[] {1.5f, -2f}, 2)
                    .write(f);
            disk.release();
            NDList l;
            try (InputStream is = Files.newInputStream(f)) {
                l = NDList.decode(m, is);
            }
            assertEquals(6, l.size());
            NDArray a = l.get("k32");
            assertEquals(new Shape(3, 2, 4), a.getShape());
            assertEquals(DataType.FLOAT32, a.getDataType());
            float[] fa = a.toFloatArray();
            for (int i = 0; i < fa.length; i++) {
                assertEquals(b32[i], fa[i], 0.0);
            }
            NDArray b = l.get("k64");
            assertEquals(new Shape(2, 2, 2, 2), b.getShape());
            assertArrayEquals(b64, b.toDoubleArray(), 0.0);
            NDArray d = l.get("disk");
            assertEquals(new Shape(5, 5), d.getShape());
            for (int i = 0; i < 25; i++) {
                assertEquals(bd[i], d.toFloatArray()[i], 0.0);
            }
            assertArrayEquals(w.toFloatArray(), l.get("w").toFloatArray(), 0f);
            assertArrayEquals(new int[] {3, 1, 4}, l.get("labels").toIntArray());
            assertArrayEquals(new float[] {1.5f, -2f}, l.get("v").toFloatArray(), 0f);
        }
    }
}
