package org.ntk4j.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;
import org.ntk4j.data.DataPaths;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.request.KernelRequest;

/**
 * The kernel job's default path for a traced kernel keeps the kernel in the engine on the compute device until it
 * is written: the sidecar and {@code --explain} say "device", and the bytes of kernel that reached the host while
 * computing equal the output's size (each entry crosses once, at the end), counted on the CPU by the same code a
 * GPU runs. A device budget too small for the tiles is refused before anything is written.
 */
class KernelJobResidencyTest {
    private static final int N = 40;

    private static KernelJobConfig config(Path out, Long deviceMemory) {
        KernelRequest r = KernelRequest.builder()
                .model("mlp-quickstart")
                .dataset("mnist-subset")
                .n(N)
                .test(8)
                .mode(Mode.TRACE)
                .method(Method.AUTO)
                .dtype(DataType.FLOAT32)
                .deviceMemory(deviceMemory)
                .build();
        return KernelJobConfig.builder(r)
                .out(out)
                .dataDir(DataPaths.dataDir(null))
                .explain(true)
                .build();
    }

    @Test
    void tracedKernelStaysOnTheDeviceUntilWritten(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("K.npz");
        List<String> lines = new ArrayList<>();
        try (NDManager m = NDManager.newBaseManager()) {
            new KernelJob(config(out, null)).run(m, lines::add);
        }
        JsonObject side =
                JsonParser.parseString(Files.readString(dir.resolve("K.json"))).getAsJsonObject();
        assertEquals(
                "device", side.getAsJsonObject("kernel_plan").get("placement").getAsString(), side.toString());
        for (String k : new String[] {"tile_loop_train_kernel", "tile_loop_test_kernel"}) {
            JsonObject loop = side.getAsJsonObject(k);
            assertEquals("device", loop.get("placement").getAsString(), k);
            long output = loop.get("output_bytes").getAsLong();
            assertEquals(output, loop.get("host_bytes").getAsLong(), k + ": host bytes = the output, once");
            long ops = loop.get("engine_ops_per_tile_pair_max").getAsLong();
            assertTrue(ops > 0 && ops <= 20, k + ": engine operations per tile pair " + ops);
        }
        assertEquals(
                (long) N * N * 4,
                side.getAsJsonObject("tile_loop_train_kernel")
                        .get("output_bytes")
                        .getAsLong());
        assertEquals(
                8L * N * 4,
                side.getAsJsonObject("tile_loop_test_kernel")
                        .get("output_bytes")
                        .getAsLong());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("kernel placement: device")), lines.toString());
        assertTrue(
                lines.stream().anyMatch(l -> l.startsWith("tile loop:") && l.contains("placement device")),
                lines.toString());
    }

    @Test
    void deviceBudgetTooSmallIsRefusedBeforeAnyWrite(@TempDir Path dir) {
        Path out = dir.resolve("K.npz");
        UserException e;
        try (NDManager m = NDManager.newBaseManager()) {
            e = assertThrows(UserException.class, () -> new KernelJob(config(out, 1L)).run(m, line -> {}));
        }
        assertTrue(e.getMessage().contains("--device-memory"), e.getMessage());
        assertFalse(Files.exists(out));
        assertFalse(Files.exists(dir.resolve("K.json")));
    }
}
