package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.report.NpzReader;

/** {@code ntk4j kernel --approx sketch:K} end to end on the bundled mnist-subset, as {@link ApproxCliTest} does. */
class SketchCliTest {
    @Test
    void sketchWritesFeaturesAndItsErrorAndRegressReadsThem(@TempDir Path dir) throws Exception {
        Path k = dir.resolve("k.npz");
        CliTest.Run r = ApproxCliTest.kernel(k, "sketch:256", "--explain");
        assertEquals(0, r.code(), r.err());
        NpzReader npz = new NpzReader(k);
        assertTrue(!npz.has("ntk"), "no N×N kernel in a sketch file");
        NpzReader.Array f = npz.read("features");
        assertEquals(24, f.rows());
        assertEquals(256, f.cols());
        assertEquals(8, npz.read("features_test").rows());
        JsonObject a = ApproxCliTest.sidecar(k).getAsJsonObject("approx");
        assertEquals("sketch:256:kr", a.get("spec").getAsString());
        assertEquals("khatri-rao", a.get("projection").getAsString());
        // an unbiased sketch with k = 256 features: relative error ~ √(c/k) with c of a few (docs/approx-sketch.md)
        double err = a.getAsJsonObject("error").get("relative_frobenius_error").getAsDouble();
        assertTrue(err > 0 && err < 0.5, "error " + err);
        CliTest.Run g = CliTest.run(
                "regress", "--kernel", k.toString(), "--out", dir.resolve("reg").toString());
        assertEquals(0, g.code(), g.err());
        assertTrue(Files.readString(dir.resolve("reg/results.json")).contains("\"test_accuracy\""));
    }

    @Test
    void anUnknownProjectionIsOneLine(@TempDir Path dir) {
        CliTest.assertOneLineError(
                ApproxCliTest.kernel(dir.resolve("k.npz"), "sketch:64:srht"), "'srht' is not kr or gauss");
    }
}
