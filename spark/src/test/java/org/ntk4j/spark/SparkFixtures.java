package org.ntk4j.spark;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.IdxWriter;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Split;

/** Test data: a small MNIST-layout data directory cut from the bundled subset, and message checks. */
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

    /** The message is one line and contains every fragment. */
    static void assertOneLine(Throwable e, String... fragments) {
        String msg = e.getMessage();
        assertFalse(msg.contains("\n"), "message is not one line: " + msg);
        for (String f : fragments) {
            assertTrue(msg.contains(f), "message '" + msg + "' should contain '" + f + "'");
        }
    }
}
