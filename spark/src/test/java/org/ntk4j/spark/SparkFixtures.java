package org.ntk4j.spark;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.IdxWriter;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Split;
import org.ntk4j.job.KernelJob;
import org.ntk4j.job.KernelJobConfig;
import org.ntk4j.kernel.Method;
import org.ntk4j.report.Npz;
import org.ntk4j.request.KernelRequest;

/**
 * Test data: a small MNIST-layout data directory cut from the bundled subset; the single-machine reference kernel that
 * distributed runs are compared with; message checks.
 */
final class SparkFixtures {
    private SparkFixtures() {}

    /** {@code <dir>/mnist/}: the first {@code train} / {@code test} samples of mnist-subset, train gzipped, test plain. */
    static void mnistDir(Path dir, int train, int test) throws IOException {
        Path m = dir.resolve("mnist");
        Files.createDirectories(m);
        LabelledSet tr = Datasets.loadSubset(Split.TRAIN).head(train);
        LabelledSet te = Datasets.loadSubset(Split.TEST).head(test);
        IdxWriter.writeImages(tr, m.resolve("train-images-idx3-ubyte.gz"));
        IdxWriter.writeLabels(tr.labels(), m.resolve("train-labels-idx1-ubyte.gz"));
        IdxWriter.writeImages(te, m.resolve("t10k-images-idx3-ubyte"));
        IdxWriter.writeLabels(te.labels(), m.resolve("t10k-labels-idx1-ubyte"));
    }

    /**
     * The reference for a distributed kernel: the single-machine job ({@code ntk4j kernel}) of {@code request} on the
     * mnist folder in {@code data}, float64, the method chosen as the distributed run chooses it and the same {@code
     * tile}, written to {@code out} as a folder of .npy files; returns {@code out}.
     */
    static Path singleMachineKernel(KernelRequest.Builder request, int tile, Path data, Path out) {
        KernelRequest r = request.dataset("mnist")
                .method(Method.AUTO)
                .dtype(DataType.FLOAT64)
                .tile(tile)
                .build();
        KernelJobConfig c = KernelJobConfig.builder(r)
                .out(out)
                .dataDir(data)
                .format(Npz.Format.NPY)
                .build();
        try (NDManager m = NDManager.newBaseManager()) {
            new KernelJob(c).run(m, s -> {});
        }
        return out;
    }

    /** The message is one line and contains every fragment. */
    static void assertOneLine(Throwable e, String... fragments) {
        String msg = e.getMessage();
        assertFalse(msg.contains("\n"), "message is not one line: " + msg);
        for (String f : fragments) {
            assertTrue(msg.contains(f), "message '" + msg + "' should contain '" + f + "'");
        }
    }
}
