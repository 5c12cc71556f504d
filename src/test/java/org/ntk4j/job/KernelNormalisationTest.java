package org.ntk4j.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.data.DataPaths;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.Mode;
import org.ntk4j.request.KernelRequest;

/**
 * {@code --normalisation mean} divides by the number of outputs O in trace mode only (neural-tangents'
 * convention): the sidecar records what was applied, so a full or diagonal kernel asked for with
 * {@code mean} says {@code sum}, with a note.
 */
class KernelNormalisationTest {
    private static JsonObject sidecar(Path dir, Mode mode, boolean mean) throws Exception {
        Path out = dir.resolve(mode.name().toLowerCase(java.util.Locale.ROOT) + (mean ? "-mean" : "-sum") + ".npz");
        KernelRequest r = KernelRequest.builder()
                .model("mlp-quickstart")
                .dataset("mnist-subset")
                .n(3)
                .mode(mode)
                .method(Method.AUTO)
                .dtype(DataType.FLOAT32)
                .meanNormalised(mean)
                .build();
        KernelJobConfig c = KernelJobConfig.builder(r)
                .out(out)
                .dataDir(DataPaths.dataDir(null))
                .build();
        try (NDManager m = NDManager.newBaseManager()) {
            new KernelJob(c).run(m, line -> {});
        }
        String name = out.getFileName().toString().replace(".npz", ".json");
        return JsonParser.parseString(Files.readString(out.resolveSibling(name)))
                .getAsJsonObject();
    }

    @Test
    void sidecarRecordsTheNormalisationApplied(@TempDir Path dir) throws Exception {
        JsonObject trace = sidecar(dir, Mode.TRACE, true);
        assertEquals("mean", trace.get("normalisation").getAsString());
        assertFalse(trace.has("normalisation_note"));
        for (Mode mode : new Mode[] {Mode.FULL, Mode.DIAGONAL}) {
            JsonObject s = sidecar(dir, mode, true);
            assertEquals("sum", s.get("normalisation").getAsString(), mode + ": mean is not applied to this kernel");
            assertTrue(s.get("normalisation_note").getAsString().contains("traced kernels only"), s.toString());
        }
        JsonObject sum = sidecar(dir, Mode.FULL, false);
        assertEquals("sum", sum.get("normalisation").getAsString());
        assertFalse(sum.has("normalisation_note"));
    }
}
