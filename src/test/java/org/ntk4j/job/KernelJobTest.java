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
import org.ntk4j.kernel.Mode;
import org.ntk4j.metrics.KernelMetrics;
import org.ntk4j.request.KernelRequest;

/** The kernel job from Java: NPZ and sidecar written, summary lines to the callback, metrics under the shared keys. */
class KernelJobTest {
    @Test
    void kernelJobRunsFromJava(@TempDir Path dir) {
        Path out = dir.resolve("K.npz");
        KernelRequest request = KernelRequest.builder()
                .model("mlp-quickstart")
                .dataset("mnist-subset")
                .n(20)
                .mode(Mode.TRACE)
                .method(Method.AUTO)
                .dtype(DataType.FLOAT32)
                .build();
        KernelJobConfig c = KernelJobConfig.builder(request)
                .out(out)
                .dataDir(DataPaths.dataDir(null))
                .build();
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
        assertEquals(r.metrics(), r.sidecar().metrics());
    }
}
