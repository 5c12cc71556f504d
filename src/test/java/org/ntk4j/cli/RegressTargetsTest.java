package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.report.Npz;

/**
 * regress's targets: labels are classes by their distinct values (100..109 are 10 classes, not 110), and a file
 * without test targets (y2) says why it has no test metrics.
 */
class RegressTargetsTest {
    /** A 4-point kernel with 2 test points: Θ = 2I + 1, Θ* rows close to points 0 and 3. */
    static Path kernel(Path f, int[] y1, int[] y2) {
        Npz npz = new Npz()
                .put("ntk", new float[] {3, 1, 1, 1, 1, 3, 1, 1, 1, 1, 3, 1, 1, 1, 1, 3}, 4, 4)
                .put("ntk_test", new float[] {2.5f, 1, 1, 1, 1, 1, 1, 2.5f}, 2, 4)
                .put("y1", y1, 4);
        if (y2 != null) {
            npz.put("y2", y2, 2);
        }
        npz.write(f);
        return f;
    }

    static JsonObject results(Path dir) throws Exception {
        return JsonParser.parseString(Files.readString(dir.resolve("results.json")))
                .getAsJsonObject();
    }

    @Test
    void labelsAreClassesByTheirDistinctValues(@TempDir Path dir) throws Exception {
        Path k = kernel(dir.resolve("K.npz"), new int[] {100, 101, 102, 109}, new int[] {100, 109});
        CliTest.Run r = CliTest.run(
                "regress", "--kernel", k.toString(), "--out", dir.resolve("r").toString());
        assertEquals(0, r.code(), r.err());
        JsonObject o = results(dir.resolve("r"));
        assertEquals(4, o.get("outputs").getAsInt(), o.toString());
        assertEquals(
                "one-hot labels (4 classes: labels 100, 101, 102, 109)",
                o.get("targets").getAsString());
        assertEquals(1.0, o.get("train_accuracy").getAsDouble());
        assertEquals(
                1.0, o.get("test_accuracy").getAsDouble(), "test points next to the training points of their class");
    }

    @Test
    void withoutTestTargetsTheResultsSayWhy(@TempDir Path dir) throws Exception {
        Path k = kernel(dir.resolve("K.npz"), new int[] {0, 1, 0, 1}, null);
        CliTest.Run r = CliTest.run(
                "regress", "--kernel", k.toString(), "--out", dir.resolve("r").toString());
        assertEquals(0, r.code(), r.err());
        JsonObject o = results(dir.resolve("r"));
        assertEquals(2, o.get("test").getAsInt());
        assertTrue(
                !o.has("test_mse") && o.get("note").getAsString().startsWith("no test targets (y2) in the file"),
                o.toString());
        assertTrue(Files.exists(dir.resolve("r").resolve("predictions.npz")));
    }
}
