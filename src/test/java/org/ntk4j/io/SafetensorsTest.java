package org.ntk4j.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.spec.ModelSpec;

/**
 * Safetensors: exact round trips, the layout the reference implementation expects (little-endian
 * header length, header padded with spaces to 8 bytes, keys in data order), DJL's own reader, a
 * network's weights through {@link Network#loadParameters}, and Python's {@code safetensors} both
 * ways when python3 has it (skipped otherwise).
 */
class SafetensorsTest {
    @TempDir
    Path dir;

    private static Map<String, NDArray> sample(NDManager m) {
        Map<String, NDArray> t = new LinkedHashMap<>();
        t.put("b.weight", m.create(new float[] {1.5f, -2.25f, 3e-7f, Float.MAX_VALUE, -0f, 7f}, new Shape(2, 3)));
        t.put("a.bias", m.create(new double[] {Math.PI, -1e-300, 42}, new Shape(3)));
        t.put("steps", m.create(new long[] {1L << 40, -3}, new Shape(2)));
        t.put("scalar", m.create(new float[] {0.125f}, new Shape()));
        t.put("codes", m.create(new int[] {7, -8, 9}, new Shape(1, 3)));
        return t;
    }

    private static JsonObject header(Path f) throws IOException {
        byte[] b = Files.readAllBytes(f);
        long n = ByteBuffer.wrap(b, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertEquals(0, (8 + n) % 8, "data starts 8-byte aligned");
        String h = new String(b, 8, (int) n, StandardCharsets.UTF_8);
        assertTrue(h.startsWith("{"));
        assertEquals(h.stripTrailing(), h.strip(), "padding is trailing spaces only");
        return JsonParser.parseString(h).getAsJsonObject();
    }

    @Test
    void roundTripIsExactAndTheHeaderFollowsTheFormat() throws IOException {
        try (NDManager m = NDManager.newBaseManager()) {
            Map<String, NDArray> t = sample(m);
            Path f = dir.resolve("w.safetensors");
            Safetensors.write(t, Map.of("format", "pt"), f);

            JsonObject h = header(f);
            List<String> keys = new ArrayList<>(h.keySet());
            assertEquals(List.of("__metadata__", "b.weight", "a.bias", "steps", "scalar", "codes"), keys);
            assertEquals("F32", h.getAsJsonObject("b.weight").get("dtype").getAsString());
            assertEquals("F64", h.getAsJsonObject("a.bias").get("dtype").getAsString());
            assertEquals("I64", h.getAsJsonObject("steps").get("dtype").getAsString());
            assertEquals(
                    "[0,24]", h.getAsJsonObject("b.weight").get("data_offsets").toString());
            assertEquals(
                    "[24,48]", h.getAsJsonObject("a.bias").get("data_offsets").toString());
            assertEquals("[]", h.getAsJsonObject("scalar").get("shape").toString());
            long prev = 0;
            for (Map.Entry<String, JsonElement> e : h.entrySet()) {
                if (!e.getKey().equals("__metadata__")) {
                    assertEquals(
                            prev,
                            e.getValue()
                                    .getAsJsonObject()
                                    .getAsJsonArray("data_offsets")
                                    .get(0)
                                    .getAsLong());
                    prev = e.getValue()
                            .getAsJsonObject()
                            .getAsJsonArray("data_offsets")
                            .get(1)
                            .getAsLong();
                }
            }
            assertEquals(Map.of("format", "pt"), Safetensors.metadata(f));

            Map<String, NDArray> back = Safetensors.read(f, m);
            assertEquals(List.copyOf(t.keySet()), List.copyOf(back.keySet()));
            for (String k : t.keySet()) {
                NDArray a = t.get(k);
                NDArray b = back.get(k);
                assertEquals(a.getDataType(), b.getDataType(), k);
                assertEquals(a.getShape(), b.getShape(), k);
                assertEquals(k, b.getName());
                assertArrayEquals(a.toByteArray(), b.toByteArray(), k);
            }
            System.gc(); // the arrays read must not depend on a Java buffer
            assertArrayEquals(
                    t.get("a.bias").toDoubleArray(), back.get("a.bias").toDoubleArray());

            // DJL's own reader agrees
            try (InputStream is = Files.newInputStream(f)) {
                NDList djl = NDList.decode(m, is);
                for (NDArray a : djl) {
                    assertArrayEquals(t.get(a.getName()).toByteArray(), a.toByteArray(), a.getName());
                }
            }
        }
    }

    @Test
    void aNetworksWeightsLoadFromSafetensors() throws IOException {
        ModelSpec spec = ModelSpec.parse(
                "{\"arch\":\"cnn\",\"input\":[1,8,8],\"channels\":[3],\"head\":[5],\"outputs\":2,"
                        + "\"batchNorm\":true}",
                "test");
        try (NDManager m = NDManager.newBaseManager();
                Network a = Network.build(spec, 1, m, DataType.FLOAT64);
                Network b = Network.build(spec, 2, m, DataType.FLOAT64)) {
            Path f = dir.resolve("weights.safetensors");
            a.saveSafetensors(f);
            assertTrue(Safetensors.metadata(f).get("ntk4j.spec").contains("\"cnn\""));
            b.loadParameters(f);
            List<Param> pa = a.params();
            List<Param> pb = b.params();
            assertTrue(pa.stream().anyMatch(p -> p.role() == Param.Role.RUNNING_VAR), "buffers included");
            for (int i = 0; i < pa.size(); i++) {
                assertArrayEquals(
                        pa.get(i).value().toDoubleArray(),
                        pb.get(i).value().toDoubleArray(),
                        pa.get(i).name());
            }
            assertTrue(pb.get(0).value().hasGradient());
        }
    }

    @Test
    void malformedFilesAreUserErrors() throws IOException {
        try (NDManager m = NDManager.newBaseManager()) {
            Path f = dir.resolve("bad.safetensors");
            Files.write(f, new byte[] {1, 2, 3});
            assertThrows(Exception.class, () -> Safetensors.read(f, m));
            Path g = dir.resolve("short.safetensors");
            Safetensors.write(sample(m), g);
            byte[] all = Files.readAllBytes(g);
            Files.write(g, java.util.Arrays.copyOf(all, all.length - 4));
            UserException e = assertThrows(UserException.class, () -> Safetensors.read(g, m));
            assertTrue(e.getMessage().contains("data bytes"), e.getMessage());
            assertThrows(UserException.class, () -> Weights.read(g, m));
        }
    }

    /** Python's safetensors reads ours and writes what we read (skipped without python3 + numpy + safetensors). */
    @Test
    void pythonSafetensorsInterop() throws Exception {
        Assumptions.assumeTrue(python("import numpy, safetensors.numpy") == 0, "python3 with numpy and safetensors");
        try (NDManager m = NDManager.newBaseManager()) {
            Path ours = dir.resolve("ours.safetensors");
            Safetensors.write(sample(m), Map.of("format", "pt"), ours);
            Path theirs = dir.resolve("theirs.safetensors");
            String script = String.join(
                    "\n",
                    "import numpy as np, sys",
                    "from safetensors.numpy import load_file, save_file",
                    "from safetensors import safe_open",
                    "t = load_file(sys.argv[1])",
                    "assert list(t) and t['b.weight'].dtype == np.float32 and t['b.weight'].shape == (2, 3), t",
                    "assert t['b.weight'][1, 0] == np.finfo(np.float32).max and t['a.bias'][0] == np.pi",
                    "assert t['steps'].tolist() == [1 << 40, -3] and t['scalar'].shape == () and t['codes'].tolist() == [[7, -8, 9]]",
                    "with safe_open(sys.argv[1], framework='np') as f: assert f.metadata() == {'format': 'pt'}",
                    "save_file({'x': np.arange(6, dtype=np.float64).reshape(2, 3) / 7, 'y': np.array([1, -2], dtype=np.int32)},",
                    "          sys.argv[2], metadata={'by': 'python'})");
            assertEquals(0, python(script, ours.toString(), theirs.toString()), "python check of our file");
            Map<String, NDArray> r = Safetensors.read(theirs, m);
            assertEquals(new Shape(2, 3), r.get("x").getShape());
            assertEquals(DataType.FLOAT64, r.get("x").getDataType());
            assertEquals(5.0 / 7, r.get("x").getDouble(1, 2));
            assertArrayEquals(new int[] {1, -2}, r.get("y").toIntArray());
            assertEquals(Map.of("by", "python"), Safetensors.metadata(theirs));
        }
    }

    private static int python(String script, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("python3", "-c", script));
        cmd.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            return -1;
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        if (p.exitValue() != 0 && args.length > 0) {
            System.err.println(out);
        }
        return p.exitValue();
    }
}
