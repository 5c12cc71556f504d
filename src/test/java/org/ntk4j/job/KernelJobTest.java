package org.ntk4j.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.data.DataPaths;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.metrics.KernelMetrics;

/** The kernel job from Java: NPZ and sidecar written, summary lines to the callback, metrics under the shared keys. */
class KernelJobTest {
    @Test
    void kernelJobRunsFromJava(@TempDir Path dir) {
        Path out = dir.resolve("K.npz");
        KernelJobConfig c = new KernelJobConfig(
                "mlp-quickstart",
                null,
                0,
                "mnist-subset",
                20,
                null,
                0,
                null,
                Mode.TRACE,
                Method.AUTO,
                DataType.FLOAT32,
                false,
                1L << 30,
                false,
                false,
                false,
                false,
                out,
                DataPaths.dataDir(null));
        List<String> lines = new ArrayList<>();
        KernelJob.Result r;
        try (NDManager m = NDManager.newBaseManager()) {
            r = new KernelJob(c).run(m, lines::add);
        }
        assertTrue(Files.isRegularFile(out) && Files.isRegularFile(dir.resolve("K.json")));
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("NTK trace of 20 mnist-subset images"), lines.get(0));
        double a = (Double) r.metrics().get(KernelMetrics.CENTERED_ALIGNMENT);
        assertTrue(a > 0 && a < 1, "centred alignment " + a);
        assertEquals(r.metrics(), r.sidecar().get("metrics"));
    }
}
