package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;

/**
 * {@code train --probe-points}: new runs probe training points by default and log Eq. 5 layer CKA (plotted
 * as layer-cka.png); the choice is kept in args.json, a resume keeps it and refuses another.
 */
class ProbePointsTest {
    private static float[] probeX(Path run) {
        try (NDManager m = NDManager.newBaseManager()) {
            for (NDArray a : org.ntk4j.io.Weights.read(run.resolve("probe-inputs.npz"), m)) {
                if ("x".equals(a.getName())) {
                    return a.toFloatArray();
                }
            }
        }
        throw new AssertionError("no x");
    }

    private static JsonObject args(Path run) throws Exception {
        return JsonParser.parseString(Files.readString(run.resolve("args.json")))
                .getAsJsonObject();
    }

    @Test
    void defaultIsTrainingPointsAndResumeKeepsTheChoice(@TempDir Path dir) throws Exception {
        LabelledSet train = Preprocess.balancedSample(Datasets.load("mnist-subset", Split.TRAIN), 20, 0);
        LabelledSet test = Datasets.load("mnist-subset", Split.TEST);

        Path a = dir.resolve("a");
        CliTest.Run r = CliTest.run(
                "train",
                "--model",
                "mlp-quickstart",
                "--n",
                "20",
                "--epochs",
                "1",
                "--probe",
                "ntk",
                "--probe-set",
                "2",
                "--out",
                a.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("train", args(a).get("probePoints").getAsString());
        assertArrayEquals(Preprocess.balancedSample(train, 2, 7).features(), probeX(a), "probe set = training images");
        List<String> lines = Files.readAllLines(a.resolve("metrics.jsonl"));
        assertEquals(
                2,
                lines.stream()
                        .filter(l -> l.contains("\"probe\":\"ntk\"")
                                && l.contains("\"layer_cka.dense1\"")
                                && l.contains("\"traced_centred_alignment.dense1\""))
                        .count(),
                String.join("\n", lines));
        assertTrue(Files.size(a.resolve("layer-cka.png")) > 1000);
        assertTrue(Files.readString(a.resolve("report.html")).contains("layer-cka.png"));

        Path b = dir.resolve("b");
        r = CliTest.run(
                "train",
                "--model",
                "mlp-quickstart",
                "--n",
                "20",
                "--epochs",
                "1",
                "--probe",
                "ntk",
                "--probe-set",
                "2",
                "--probe-points",
                "test",
                "--out",
                b.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("test", args(b).get("probePoints").getAsString());
        float[] testX = Preprocess.balancedSample(test, 2, 7).features();
        assertArrayEquals(testX, probeX(b), "probe set = test images");
        CliTest.assertOneLineError(
                CliTest.run("train", "--resume", b.toString(), "--probe-points", "train"), "--probe-points");
        r = CliTest.run("train", "--resume", b.toString(), "--epochs", "2");
        assertEquals(0, r.code(), r.err());
        assertEquals("test", args(b).get("probePoints").getAsString(), "resume keeps the choice");
        List<String> after = Files.readAllLines(b.resolve("metrics.jsonl"));
        assertEquals(
                3, after.stream().filter(l -> l.contains("\"probe\":\"ntk\"")).count(), String.join("\n", after));
        assertArrayEquals(testX, probeX(b));
        CliTest.assertOneLineError(
                CliTest.run(
                        "train",
                        "--model",
                        "mlp-quickstart",
                        "--probe-points",
                        "val",
                        "--out",
                        dir.resolve("c").toString()),
                "--probe-points");
    }
}
