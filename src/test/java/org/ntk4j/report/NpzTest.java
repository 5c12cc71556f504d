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

    /**
     * An entry given later ({@link Npz#putLater}) is waited for only when the writer reaches it: a write started on
     * another thread has the entries before it on the disk while the future is still open, and then ends with a file
     * byte for byte equal to the one written with the bytes at hand (as the uint8 entry of an NDArray); a future that
     * fails fails the write, leaving neither the file nor its temporary.
     */
    @Test
    void waitsForAnEntryGivenLaterOnlyWhenItGetsThere(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            float[] big = new float[(80 << 20) / 4]; // past DirectFileChannel.MIN_BYTES: the direct path
            for (int i = 0; i < big.length; i++) {
                big[i] = i % 977;
            }
            byte[] meta = "{\"metrics\": {}}\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            Path eager = dir.resolve("eager.npz");
            new Npz()
                    .put("k", big, 2, big.length / 2)
                    .put("meta.json", m.create(java.nio.ByteBuffer.wrap(meta), new Shape(meta.length), DataType.UINT8))
                    .write(eager);

            java.util.concurrent.CompletableFuture<byte[]> later = new java.util.concurrent.CompletableFuture<>();
            Path laterFile = dir.resolve("later.npz");
            Npz npz = new Npz().put("k", big, 2, big.length / 2).putLater("meta.json", later);
            var writing = java.util.concurrent.CompletableFuture.supplyAsync(() -> npz.writeHashed(laterFile));
            // the writer has the kernel in its temporary before the sidecar is there (all but the direct channel's two
            // 8 MiB stages, which wait for more bytes)
            long onDisk = big.length * 4L - (16 << 20);
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (tempBytes(dir) < onDisk && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(false, writing.isDone(), "the write ended without its last entry");
            org.junit.jupiter.api.Assertions.assertTrue(tempBytes(dir) >= onDisk, "entries before it not written");
            later.complete(meta);
            assertEquals(java.util.Map.of("later.npz", sha256(eager)), writing.get());
            assertArrayEquals(Files.readAllBytes(eager), Files.readAllBytes(laterFile));

            java.util.concurrent.CompletableFuture<byte[]> failed = new java.util.concurrent.CompletableFuture<>();
            Path failedFile = dir.resolve("failed.npz");
            var failing = java.util.concurrent.CompletableFuture.supplyAsync(() -> new Npz()
                    .put("k", big, 2, big.length / 2)
                    .putLater("meta.json", failed)
                    .writeHashed(failedFile));
            failed.completeExceptionally(new IllegalStateException("metrics failed"));
            java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, failing::get);
            org.junit.jupiter.api.Assertions.assertTrue(
                    e.getCause().getMessage().contains("meta.json"),
                    e.getCause().getMessage());
            assertEquals(false, Files.exists(failedFile));
            assertEquals(0, tempBytes(dir), "a temporary was left");
        }
    }

    /** Bytes in the hidden temporaries of {@code dir} (the writer's files before they are moved into place). */
    private static long tempBytes(Path dir) throws Exception {
        try (var s = Files.list(dir)) {
            long sum = 0;
            for (Path p :
                    s.filter(p -> p.getFileName().toString().startsWith(".")).toList()) {
                sum += Files.size(p);
            }
            return sum;
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
