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
import org.ntk4j.request.KernelRequest;

/** The kernel job from Java: NPZ and sidecar written, summary lines to the callback, metrics under the shared keys. */
class KernelJobTest {
    @Test
    void kernelJobRunsFromJava(@TempDir Path dir) {
        Path out = dir.resolve("K.npz");
        KernelJobConfig c = config(out);
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
        assertTrue(r.sidecar().secondsMetrics() >= 0
                && r.sidecar().secondsMetrics() <= r.sidecar().secondsTotal());
        double[] ev = (double[]) r.metrics().get(KernelMetrics.EIGENVALUES);
        assertEquals(Math.min(KernelMetrics.LEADING_EIGENVALUES, 20), ev.length, "k ≤ N");
        assertEquals(KernelMetrics.SUBSPACE_ITERATION, r.metrics().get(KernelMetrics.EIGEN_METHOD));
        assertEquals(Boolean.TRUE, r.metrics().get(KernelMetrics.EIGEN_CONVERGED));
        assertTrue(lines.get(1).contains("leading eigenpairs, residual"), lines.get(1));

        // on request the exact spectrum, the same leading eigenvalues; or none at all
        KernelJob.Result exact;
        KernelJob.Result none;
        try (NDManager m = NDManager.newBaseManager()) {
            exact = new KernelJob(config(dir.resolve("exact.npz")))
                    .metrics(new KernelMetrics.Options(KernelMetrics.LEADING_EIGENVALUES, true))
                    .run(m, s -> {});
            none = new KernelJob(config(dir.resolve("none.npz")))
                    .metrics(new KernelMetrics.Options(0, false))
                    .run(m, s -> {});
        }
        assertEquals(KernelMetrics.EXACT, exact.metrics().get(KernelMetrics.EIGEN_METHOD));
        double[] exactEv = (double[]) exact.metrics().get(KernelMetrics.EIGENVALUES);
        for (int i = 0; i < ev.length; i++) {
            assertEquals(exactEv[i], ev[i], 1e-6 * Math.abs(exactEv[i]), "λ_" + (i + 1));
        }
        assertTrue(
                !none.metrics().containsKey(KernelMetrics.EIGENVALUES),
                none.metrics().toString());
        assertEquals(
                r.metrics().get(KernelMetrics.EFFECTIVE_RANK), none.metrics().get(KernelMetrics.EFFECTIVE_RANK));
    }

    static KernelJobConfig config(Path out) {
        KernelRequest request = KernelRequest.builder()
                .model("mlp-quickstart")
                .dataset("mnist-subset")
                .n(20)
                .mode(Mode.TRACE)
                .method(Method.AUTO)
                .dtype(DataType.FLOAT32)
                .build();
        return KernelJobConfig.builder(request)
                .out(out)
                .dataDir(DataPaths.dataDir(null))
                .build();
    }
}
