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
import org.ntk4j.kernel.factor.Mode;

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

    /** NpzReader decodes across its 1 MiB-value buffer: float32 and int32 entries of 1.5M values read back exact. */
    @Test
    void readerDecodesPastItsBuffer(@TempDir Path dir) throws Exception {
        int n = 1_500_001;
        float[] f = new float[n];
        int[] ints = new int[n];
        for (int i = 0; i < n; i++) {
            f[i] = i * 0.25f - 7;
            ints[i] = n - i;
        }
        Path file = dir.resolve("big.npz");
        new Npz().put("f", f, n).put("i", ints, n).write(file);
        NpzReader r = new NpzReader(file);
        double[] gf = r.read("f").data();
        double[] gi = r.read("i").data();
        assertEquals(n, gf.length);
        for (int i = 0; i < n; i++) {
            assertEquals(f[i], gf[i], 0.0, "f " + i);
            assertEquals(ints[i], gi[i], 0.0, "i " + i);
        }
    }

    /**
     * The hashes {@link Npz#writeHashed} computes on the way to the disk equal the files' SHA-256 read back, for a
     * stored NPZ (engine-held, heap and mapped kernels, the CRC computed before each header), a deflated one (read
     * back) and a directory of .npy files; the stored file is what DJL's decoder reads.
     */
    @Test
    void hashesTheBytesAsTheyAreWritten(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray k = m.arange(0f, 2 * 3 * 5 * 5, 1f).reshape(2, 3, 5, 5);
            KernelMatrix engine = KernelMatrix.of(k, Mode.FULL, 5);
            KernelMatrix heap = new KernelMatrix(2, 2, Mode.TRACE, 5, true);
            heap.addBlock(0, 0, 2, 2, new double[] {1, 2, 3, Math.E}, false);
            KernelMatrix disk = new KernelMatrix(3, 3, Mode.TRACE, 5, false, dir.resolve("spill"));
            disk.addBlock(0, 0, 3, 3, new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, false);
            for (Npz.Format format : Npz.Format.values()) {
                for (boolean compress : new boolean[] {false, true}) {
                    Path f = dir.resolve("k-" + format + compress + (format == Npz.Format.NPZ ? ".npz" : ""));
                    java.util.SortedMap<String, String> h = new Npz()
                            .format(format)
                            .compress(compress && format == Npz.Format.NPZ)
                            .put("engine", engine)
                            .put("heap", heap)
                            .put("disk", disk)
                            .put("x", m.arange(6f))
                            .writeHashed(f);
                    if (format == Npz.Format.NPZ) {
                        assertEquals(java.util.Map.of(f.getFileName().toString(), sha256(f)), h);
                        try (InputStream is = Files.newInputStream(f)) {
                            NDList l = NDList.decode(m, is);
                            assertArrayEquals(k.toFloatArray(), l.get("engine").toFloatArray(), 0f);
                            assertArrayEquals(
                                    new double[] {1, 2, 3, Math.E},
                                    l.get("heap").toDoubleArray(),
                                    0.0);
                        }
                    } else {
                        assertEquals(4, h.size());
                        for (var e : h.entrySet()) {
                            assertEquals(sha256(f.resolve(e.getKey())), e.getValue(), e.getKey());
                        }
                    }
                }
            }
            engine.release();
            disk.release();
        }
    }

    private static String sha256(Path f) throws Exception {
        java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
        md.update(Files.readAllBytes(f));
        StringBuilder hex = new StringBuilder();
        for (byte b : md.digest()) {
            hex.append(String.format("%02x", b));
        }
        return hex.toString();
    }
}
