package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train --resume} at its edges: a failed resume leaves args.json as it was; without checksums a damaged
 * newest checkpoint still falls back to the intact previous one; an edited state.json (a step or epoch that does not
 * fit the run) is not believed; resuming a finished run says so.
 */
class ResumeEdgeTest {
    @TempDir
    static Path shared;

    private static Path tiny;

    /** One tiny finished run (2 epochs of 2 steps, a checkpoint every step) that tests copy. */
    @BeforeAll
    static void trainTiny() {
        tiny = shared.resolve("tiny");
        CliTest.Run r = CliTest.run(ReliabilityTest.tiny("--out", tiny.toString()));
        assertEquals(0, r.code(), r.err());
    }

    static Path copy(Path to) throws Exception {
        try (var s = Files.walk(tiny)) {
            for (Path p : s.toList()) {
                Path q = to.resolve(tiny.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(q);
                } else {
                    Files.copy(p, q);
                }
            }
        }
        return to;
    }

    /** A run with System.err (where training and resume messages go) captured too. */
    static CliTest.Run withStderr(String... args) {
        PrintStream old = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            CliTest.Run r = CliTest.run(args);
            return new CliTest.Run(r.code(), r.out(), buf.toString(StandardCharsets.UTF_8) + r.err());
        } finally {
            System.setErr(old);
        }
    }

    static void editState(Path checkpoint, String field, String value) throws Exception {
        Path st = checkpoint.resolve("state.json");
        Files.writeString(
                st, Files.readString(st).replaceAll("\"" + field + "\": -?\\d+", "\"" + field + "\": " + value));
        Files.deleteIfExists(checkpoint.resolve("checksums.json"));
    }

    @Test
    void aFailedResumeLeavesArgsJsonAsItWas(@TempDir Path dir) throws Exception {
        Path run = copy(dir.resolve("r"));
        byte[] before = Files.readAllBytes(run.resolve("args.json"));
        for (String c : List.of("checkpoint", "checkpoint.prev")) {
            Files.delete(run.resolve(c).resolve("weights.npz"));
        }
        CliTest.Run r = CliTest.run("train", "--resume", run.toString(), "--epochs", "4");
        CliTest.assertOneLineError(r, "cannot resume");
        assertArrayEquals(before, Files.readAllBytes(run.resolve("args.json")), "args.json as it was");
    }

    @Test
    void withoutChecksumsADamagedNewestCheckpointFallsBackToTheOlder(@TempDir Path dir) throws Exception {
        Path run = copy(dir.resolve("r"));
        List<String> losses = ReliabilityTest.epochLosses(run);
        for (String c : List.of("checkpoint", "checkpoint.prev")) {
            Files.delete(run.resolve(c).resolve("checksums.json"));
        }
        Path w = run.resolve("checkpoint").resolve("weights.npz");
        byte[] b = Files.readAllBytes(w);
        Files.write(w, java.util.Arrays.copyOf(b, b.length / 2)); // truncated
        CliTest.Run r = withStderr("train", "--resume", run.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("resuming from the older checkpoint.prev/"), r.err());
        assertEquals(
                losses, ReliabilityTest.epochLosses(run), "replayed from the older checkpoint to the same metrics");
    }

    @Test
    void anEditedStateThatDoesNotFitTheRunIsNotBelieved(@TempDir Path dir) throws Exception {
        Path run = copy(dir.resolve("r"));
        editState(run.resolve("checkpoint"), "step", "99999999999");
        CliTest.Run r = withStderr("train", "--resume", run.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("checkpoint/state.json does not fit this run (epoch 2, step 99999999999"), r.err());
        assertTrue(r.err().contains("resuming from the older checkpoint.prev/ (step 3)"), r.err());
        Path run2 = copy(dir.resolve("r2"));
        for (String c : List.of("checkpoint", "checkpoint.prev")) {
            editState(run2.resolve(c), "epoch", "7");
        }
        CliTest.assertOneLineError(CliTest.run("train", "--resume", run2.toString()), "does not fit this run (epoch 7");
        Path run3 = copy(dir.resolve("r3"));
        for (String c : List.of("checkpoint", "checkpoint.prev")) {
            editState(run3.resolve(c), "epoch", "5");
            editState(run3.resolve(c), "step", "10");
            editState(run3.resolve(c), "stepInEpoch", "0");
        }
        CliTest.assertOneLineError(
                CliTest.run("train", "--resume", run3.toString()), "the run has 2 epochs of 2 steps");
    }

    @Test
    void resumingAFinishedRunSaysSo(@TempDir Path dir) throws Exception {
        Path run = copy(dir.resolve("r"));
        byte[] metrics = Files.readAllBytes(run.resolve("metrics.jsonl"));
        CliTest.Run r = withStderr("train", "--resume", run.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("the run has finished its 2 epochs (step 4); nothing to resume"), r.err());
        assertArrayEquals(metrics, Files.readAllBytes(run.resolve("metrics.jsonl")), "nothing trained or logged");
    }

    @Test
    void aRunStoppedBeforeItsFirstCheckpointIsTrainedFromItsStart(@TempDir Path dir) throws Exception {
        Path run = copy(dir.resolve("r"));
        List<String> losses = ReliabilityTest.epochLosses(run);
        byte[] weights = Files.readAllBytes(run.resolve("weights.npz"));
        // what a kill in the first 30 s leaves: args.json, some step records, no checkpoint and no weights
        for (String c : List.of("checkpoint", "checkpoint.prev")) {
            try (var s = Files.walk(run.resolve(c))) {
                for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        Files.delete(run.resolve("weights.npz"));
        List<String> lines = Files.readAllLines(run.resolve("metrics.jsonl"));
        Files.write(run.resolve("metrics.jsonl"), lines.subList(0, 2));
        CliTest.Run r = withStderr("train", "--resume", run.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(
                r.err()
                        .contains("has no checkpoint yet (the run stopped before its first); training it from the"
                                + " start"),
                r.err());
        assertEquals(losses, ReliabilityTest.epochLosses(run), "the same epochs, each logged once");
        assertArrayEquals(weights, Files.readAllBytes(run.resolve("weights.npz")), "the same weights");
    }
}
