package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.report.NpzReader;

/**
 * Weight files as numpy writes them: every float dtype read (float16, float32, float64, little-endian) or refused by
 * name (big-endian, complex, Fortran order); a header whose shape does not match the bytes (a huge shape over a
 * 16-byte body, a shape whose size overflows) refused before anything is allocated; non-finite weights refused with
 * the parameter's name. Each is one line with exit status 2.
 */
class WeightFilesTest {
    @TempDir
    static Path dir;

    private static Path weights;

    static final String[] KERNEL = {"kernel", "--model", "mlp-quickstart", "--dataset", "mnist-subset", "--n", "8"};

    static String[] kernel(Path w, Path out) {
        String[] a = java.util.Arrays.copyOf(KERNEL, KERNEL.length + 4);
        a[KERNEL.length] = "--weights";
        a[KERNEL.length + 1] = w.toString();
        a[KERNEL.length + 2] = "--out";
        a[KERNEL.length + 3] = out.toString();
        return a;
    }

    /** The weights of a kernel run (float32, as ntk4j writes them), to rewrite. */
    @BeforeAll
    static void weights() {
        Path k = dir.resolve("seed.npz");
        CliTest.Run r =
                CliTest.run("kernel", "--model", "mlp-quickstart", "--n", "2", "--seed", "3", "--out", k.toString());
        assertEquals(0, r.code(), r.err());
        weights = k;
    }

    /** A .npy file's bytes: header (format 1.0, padded to 64) and body. */
    static byte[] npy(String descr, boolean fortran, long[] shape, byte[] body) {
        String dims = "("
                + String.join(
                        ", ",
                        java.util.Arrays.stream(shape).mapToObj(Long::toString).toList())
                + (shape.length == 1 ? ",)" : ")");
        String dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': "
                + dims + ", }";
        int total = 10 + dict.length() + 1;
        int pad = (64 - total % 64) % 64;
        String header = dict + " ".repeat(pad) + "\n";
        ByteBuffer b = ByteBuffer.allocate(10 + header.length() + body.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0x93)
                .put("NUMPY".getBytes(StandardCharsets.US_ASCII))
                .put((byte) 1)
                .put((byte) 0);
        b.putShort((short) header.length());
        b.put(header.getBytes(StandardCharsets.US_ASCII));
        b.put(body);
        return b.array();
    }

    /** The parameter entries (name → float32 values and shape) of an ntk4j NPZ. */
    record Param(float[] values, long[] shape) {}

    static Map<String, Param> params(Path npz) {
        NpzReader r = new NpzReader(npz);
        Map<String, Param> out = new LinkedHashMap<>();
        for (String n : r.names()) {
            if (n.endsWith(".weight") || n.endsWith(".bias")) {
                NpzReader.Array a = r.read(n);
                float[] v = new float[a.data().length];
                for (int i = 0; i < v.length; i++) {
                    v[i] = (float) a.data()[i];
                }
                out.put(n, new Param(v, a.shape()));
            }
        }
        return out;
    }

    /** Writes the parameters as an NPZ, each entry's bytes from {@code entry.apply(name, param)}. */
    static Path npz(Path file, Map<String, Param> params, BiFunction<String, Param, byte[]> entry) throws Exception {
        try (OutputStream os = Files.newOutputStream(file);
                ZipOutputStream zip = new ZipOutputStream(os)) {
            for (Map.Entry<String, Param> e : params.entrySet()) {
                zip.putNextEntry(new ZipEntry(e.getKey() + ".npy"));
                zip.write(entry.apply(e.getKey(), e.getValue()));
                zip.closeEntry();
            }
        }
        return file;
    }

    static byte[] body(float[] v, ByteOrder order, int bytes) {
        ByteBuffer b = ByteBuffer.allocate(v.length * bytes).order(order);
        for (float x : v) {
            switch (bytes) {
                case 2 -> b.putShort(half(x));
                case 4 -> b.putFloat(x);
                default -> b.putDouble(x);
            }
        }
        return b.array();
    }

    /** float → IEEE half (round to nearest even; the weights here are small and normal). */
    static short half(float x) {
        int f = Float.floatToIntBits(x);
        int sign = (f >>> 16) & 0x8000;
        int exp = ((f >>> 23) & 0xff) - 127 + 15;
        int mant = f & 0x7fffff;
        if (exp <= 0) {
            return (short) sign; // below float16's normal range: zero (subnormals are not needed here)
        }
        int h = sign | (exp << 10) | (mant >>> 13);
        int rest = mant & 0x1fff;
        if (rest > 0x1000 || rest == 0x1000 && (h & 1) == 1) {
            h++;
        }
        return (short) h;
    }

    static double[] ntk(Path k) {
        return new NpzReader(k).read("ntk").data();
    }

    @Test
    void everyLittleEndianFloatDtypeIsRead() throws Exception {
        Map<String, Param> p = params(weights);
        Path f4 = npz(
                dir.resolve("w-f4.npz"),
                p,
                (n, q) -> npy("<f4", false, q.shape(), body(q.values(), ByteOrder.LITTLE_ENDIAN, 4)));
        Path ref = dir.resolve("ref.npz");
        CliTest.Run r0 = CliTest.run(kernel(f4, ref));
        assertEquals(0, r0.code(), r0.err());
        Path f8 = npz(
                dir.resolve("w-f8.npz"),
                p,
                (n, q) -> npy("<f8", false, q.shape(), body(q.values(), ByteOrder.LITTLE_ENDIAN, 8)));
        Path k8 = dir.resolve("k8.npz");
        CliTest.Run r = CliTest.run(kernel(f8, k8));
        assertEquals(0, r.code(), r.err());
        assertArrayEquals(ntk(ref), ntk(k8), 0.0, "float64 weights holding float32 values give the same kernel");
        Path f2 = npz(
                dir.resolve("w-f2.npz"),
                p,
                (n, q) -> npy("<f2", false, q.shape(), body(q.values(), ByteOrder.LITTLE_ENDIAN, 2)));
        Path k2 = dir.resolve("k2.npz");
        r = CliTest.run(kernel(f2, k2));
        assertEquals(0, r.code(), r.err());
        double[] a = ntk(ref);
        double[] b = ntk(k2);
        for (int i = 0; i < a.length; i++) {
            assertEquals(a[i], b[i], 2e-2 * Math.abs(a[i]), "float16 weights: the kernel to float16's precision");
        }
    }

    @Test
    void bigEndianComplexAndFortranOrderAreRefusedByName() throws Exception {
        Map<String, Param> p = params(weights);
        for (String[] c : new String[][] {
            {">f4", "big-endian ('>f4')"}, {">f8", "big-endian ('>f8')"}, {"<c8", "dtype '<c8'"}, {"fortran", "Fortran"}
        }) {
            Path w = npz(dir.resolve("w-" + c[0].replaceAll("[<>]", "") + ".npz"), p, (n, q) -> {
                if (!n.equals("dense1.weight")) {
                    return npy("<f4", false, q.shape(), body(q.values(), ByteOrder.LITTLE_ENDIAN, 4));
                }
                return switch (c[0]) {
                    case ">f4" -> npy(">f4", false, q.shape(), body(q.values(), ByteOrder.BIG_ENDIAN, 4));
                    case ">f8" -> npy(">f8", false, q.shape(), body(q.values(), ByteOrder.BIG_ENDIAN, 8));
                    case "<c8" -> npy("<c8", false, q.shape(), body(q.values(), ByteOrder.LITTLE_ENDIAN, 8));
                    default -> npy("<f4", true, q.shape(), body(q.values(), ByteOrder.LITTLE_ENDIAN, 4));
                };
            });
            CliTest.Run r = CliTest.run(kernel(w, dir.resolve("never.npz")));
            CliTest.assertOneLineError(r, "entry 'dense1.weight' of " + w);
            assertTrue(r.err().contains(c[1]), r.err());
        }
    }

    @Test
    void aHeaderPromisingMoreThanTheFileHoldsIsRefusedBeforeAllocating() throws Exception {
        Map<String, Param> p = params(weights);
        for (String[] c : new String[][] {
            {"100000,100000,100000", "promises 4000000000000000 bytes"},
            {"4294967296,4294967296", "larger than any file"},
            {"-3,4", "negative size"}
        }) {
            long[] shape = java.util.Arrays.stream(c[0].split(","))
                    .mapToLong(Long::parseLong)
                    .toArray();
            Path w = npz(
                    dir.resolve("w-huge.npz"),
                    p,
                    (n, q) -> n.equals("dense1.weight")
                            ? npy("<f4", false, shape, new byte[16])
                            : npy("<f4", false, q.shape(), body(q.values(), ByteOrder.LITTLE_ENDIAN, 4)));
            CliTest.Run r = CliTest.run(kernel(w, dir.resolve("never.npz")));
            CliTest.assertOneLineError(r, "entry 'dense1.weight' of " + w);
            assertTrue(r.err().contains(c[1]), r.err());
        }
        Files.writeString(dir.resolve("w-text.npz"), "PK this is not a zip");
        CliTest.assertOneLineError(
                CliTest.run(kernel(dir.resolve("w-text.npz"), dir.resolve("never.npz"))), "w-text.npz");
    }

    @Test
    void nonFiniteWeightsAreRefusedWithTheParameterName() throws Exception {
        Map<String, Param> p = params(weights);
        for (float bad : new float[] {Float.NaN, Float.POSITIVE_INFINITY}) {
            Path w = npz(dir.resolve("w-nan.npz"), p, (n, q) -> {
                float[] v = q.values().clone();
                if (n.equals("dense2.weight")) {
                    v[7] = bad;
                }
                return npy("<f4", false, q.shape(), body(v, ByteOrder.LITTLE_ENDIAN, 4));
            });
            CliTest.Run r = CliTest.run(kernel(w, dir.resolve("never.npz")));
            CliTest.assertOneLineError(r, "parameter 'dense2.weight' holds 1 non-finite value");
        }
    }

    /**
     * Finite weights far out of scale (×1e12, as a diverged run leaves them): the float32 kernel overflows. It is
     * written as computed, its metrics are skipped with the count of non-finite entries in the sidecar and a one-line
     * warning (exit 0, no stack trace); in float64 the same kernel is finite and has its metrics.
     */
    @Test
    void aKernelThatOverflowsIsWrittenWithoutMetricsAndAWarning() throws Exception {
        Map<String, Param> p = params(weights);
        Path w = npz(dir.resolve("w-huge.npz"), p, (n, q) -> {
            float[] v = q.values().clone();
            for (int i = 0; i < v.length; i++) {
                v[i] *= 1e12f;
            }
            return npy("<f4", false, q.shape(), body(v, ByteOrder.LITTLE_ENDIAN, 4));
        });
        Path out = dir.resolve("huge.npz");
        CliTest.Run r = ResumeEdgeTest.withStderr(kernel(w, out));
        assertEquals(0, r.code(), r.err());
        assertTrue(
                r.err()
                        .contains("ntk4j: warning: kernel metrics not computed: 64 of the kernel's 64 (traced) entries"
                                + " are not finite"),
                r.err());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.err());
        String side = Files.readString(dir.resolve("huge.json"));
        assertTrue(side.contains("\"non_finite_entries\": 64"), side);
        for (double v : ntk(out)) {
            assertFalse(Double.isFinite(v), "the kernel as computed");
        }
        String[] f64 = java.util.Arrays.copyOf(kernel(w, dir.resolve("huge64.npz")), KERNEL.length + 6);
        f64[KERNEL.length + 4] = "--dtype";
        f64[KERNEL.length + 5] = "float64";
        CliTest.Run r64 = CliTest.run(f64);
        assertEquals(0, r64.code(), r64.err());
        assertFalse(Files.readString(dir.resolve("huge64.json")).contains("non_finite_entries"));
    }
}
