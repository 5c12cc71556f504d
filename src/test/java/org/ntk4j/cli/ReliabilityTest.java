package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.ModelSpec;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Issue 11, items 5–10 (train side): nothing lost, nothing clobbered, one-line errors. */
class ReliabilityTest {
    static final String[] TINY = {
        "train",
        "--model",
        "mlp-quickstart",
        "--n",
        "2",
        "--test",
        "1",
        "--epochs",
        "2",
        "--batch-size",
        "10",
        "--lr",
        "0.05",
        "--checkpoint-every",
        "1",
        "--seed",
        "3"
    };

    @TempDir
    static Path shared;

    static Path tiny;

    static String[] tiny(String... extra) {
        String[] a = new String[TINY.length + extra.length];
        System.arraycopy(TINY, 0, a, 0, TINY.length);
        System.arraycopy(extra, 0, a, TINY.length, extra.length);
        return a;
    }

    /** One tiny finished run (2 epochs of 2 steps, a checkpoint every step) that tests copy. */
    @BeforeAll
    static void trainTiny() {
        tiny = shared.resolve("tiny");
        CliTest.Run r = CliTest.run(tiny("--out", tiny.toString()));
        assertEquals(0, r.code(), r.err());
    }

    static Path copyOfTiny(Path to) throws IOException {
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

    // ---- item 6: one-line errors ----

    @Test
    void badCountsAreOneLineErrors(@TempDir Path dir) {
        CliTest.assertOneLineError(
                CliTest.run(
                        "train",
                        "--model",
                        "mlp-quickstart",
                        "--n",
                        "0",
                        "--out",
                        dir.resolve("a").toString()),
                "--n");
        CliTest.assertOneLineError(
                CliTest.run(
                        "train",
                        "--model",
                        "mlp-quickstart",
                        "--n",
                        "2",
                        "--probe",
                        "ntk",
                        "--probe-set",
                        "0",
                        "--out",
                        dir.resolve("b").toString()),
                "--probe-set");
    }

    @Test
    void parseErrorIsOneLineAndBareNtk4jExitsTwo() {
        CliTest.Run r = CliTest.run("train", "--no-such-option");
        CliTest.assertOneLineError(r, "--no-such-option");
        assertTrue(r.err().contains("--help"), r.err());
        CliTest.Run bare = CliTest.run();
        assertEquals(2, bare.code());
        assertTrue(bare.err().contains("Usage: ntk4j"), bare.err());
    }

    @Command(name = "full")
    static final class DiskFull implements Callable<Integer> {
        @Override
        public Integer call() {
            throw new UncheckedIOException(new IOException("No space left on device"));
        }
    }

    @Test
    void fullDiskIsOneLine() {
        CommandLine cl = Main.configure(new CommandLine(new DiskFull()));
        java.io.StringWriter err = new java.io.StringWriter();
        cl.setErr(new java.io.PrintWriter(err));
        int code = cl.execute();
        assertEquals(1, code);
        String e = err.toString().strip();
        assertFalse(e.contains("\n"), e);
        assertTrue(e.startsWith("ntk4j: error: no space left on device"), e);
    }

    @Test
    void brokenStateJsonOnResumeIsOneLine(@TempDir Path dir) throws Exception {
        Path run = copyOfTiny(dir.resolve("r"));
        for (String c : List.of("checkpoint", "checkpoint.prev")) {
            if (Files.isDirectory(run.resolve(c))) {
                Files.writeString(run.resolve(c).resolve("state.json"), "{\"epoch\": 1, \"step\": ");
                Files.deleteIfExists(run.resolve(c).resolve("checksums.json"));
            }
        }
        CliTest.assertOneLineError(CliTest.run("train", "--resume", run.toString()), "state.json");
    }

    // ---- item 5: locks and refusing to clobber ----

    @Test
    void secondRunOnALockedFolderIsRefused(@TempDir Path dir) throws Exception {
        Path run = copyOfTiny(dir.resolve("r"));
        Process holder = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        LockHolder.class.getName(),
                        run.toString())
                .redirectErrorStream(true)
                .start();
        try {
            String line = new String(holder.getInputStream().readNBytes(7), StandardCharsets.US_ASCII);
            assertEquals("locked\n", line.substring(0, 7));
            CliTest.assertOneLineError(
                    CliTest.run("train", "--resume", run.toString(), "--epochs", "3"),
                    "in use by process " + holder.pid());
            CliTest.assertOneLineError(CliTest.run(tiny("--out", run.toString(), "--force")), "in use by process");
        } finally {
            holder.destroyForcibly();
            holder.waitFor(10, TimeUnit.SECONDS);
        }
        // the holder died without unlocking: its lock file is stale and is taken over
        assertTrue(Files.exists(run.resolve(RunFolder.LOCK)));
        PrintStream old = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try (RunFolder f = new RunFolder(run)) {
            assertTrue(f.lock());
        } finally {
            System.setErr(old);
        }
        assertTrue(
                buf.toString(StandardCharsets.UTF_8).contains("stale lock of process " + holder.pid()), buf.toString());
        assertFalse(Files.exists(run.resolve(RunFolder.LOCK)), "released on close");
    }

    @Test
    void freshRunsRefuseNonEmptyFolders(@TempDir Path dir) throws Exception {
        Path killed = dir.resolve("killed");
        Files.createDirectories(killed);
        Files.writeString(killed.resolve("metrics.jsonl"), "{\"kind\":\"epoch\",\"epoch\":1}\n");
        CliTest.assertOneLineError(CliTest.run(tiny("--out", killed.toString())), "not empty");
        assertEquals(1, Files.readAllLines(killed.resolve("metrics.jsonl")).size(), "left alone");
        Path run = copyOfTiny(dir.resolve("r"));
        CliTest.assertOneLineError(CliTest.run("quickstart", "--out", run.toString()), "not empty");
        assertTrue(Files.exists(run.resolve("checkpoint")), "the train run is still there");
    }

    @Test
    void studiesWriteUnderTheirOwnFolder() {
        assertEquals(Path.of("runs", "reproduce", "silent-alignment"), ReproduceCommand.defaultDir("silent-alignment"));
    }

    // ---- item 7: resume ----

    @Test
    void tornLastLineIsCutAndShortMetricsAreAnError(@TempDir Path dir) throws Exception {
        RunFolder f = new RunFolder(dir);
        Files.writeString(f.file("metrics.jsonl"), "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n{\"a\":");
        f.truncateRecords(3);
        assertEquals(3, f.records().size());
        UserException e = assertThrows(UserException.class, () -> f.truncateRecords(5));
        assertTrue(e.getMessage().contains("3 readable records"), e.getMessage());
        Files.delete(f.file("metrics.jsonl"));
        assertThrows(UserException.class, () -> new RunFolder(dir).truncateRecords(2));
    }

    @Test
    void damagedNewestCheckpointFallsBackToTheOlder(@TempDir Path dir) throws Exception {
        Path run = copyOfTiny(dir.resolve("r"));
        assertTrue(Files.isDirectory(run.resolve("checkpoint.prev")), "the last two checkpoints are kept");
        List<String> before = epochLosses(run);
        byte[] w = Files.readAllBytes(run.resolve("checkpoint/weights.npz"));
        w[w.length / 2] ^= 1;
        Files.write(run.resolve("checkpoint/weights.npz"), w);
        CliTest.Run r = CliTest.run("train", "--resume", run.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(before, epochLosses(run), "replayed from the older checkpoint to the same metrics");
    }

    static List<String> epochLosses(Path run) throws IOException {
        return Files.readAllLines(run.resolve("metrics.jsonl")).stream()
                .map(l -> JsonParser.parseString(l).getAsJsonObject())
                .filter(o -> "epoch".equals(o.get("kind").getAsString()))
                .map(o -> o.get("train_loss").toString())
                .toList();
    }

    @Test
    void resumeRefusesChangesAndCosineExtension(@TempDir Path dir) throws Exception {
        Path run = copyOfTiny(dir.resolve("r"));
        CliTest.assertOneLineError(CliTest.run("train", "--resume", run.toString(), "--lr", "0.5"), "--lr 0.5");
        CliTest.assertOneLineError(CliTest.run("train", "--resume", run.toString(), "--model", "mlp-relu"), "--model");
        CliTest.assertOneLineError(CliTest.run("train", "--resume", run.toString(), "--probe", "nc"), "--probe");
        JsonObject args = JsonParser.parseString(Files.readString(run.resolve("args.json")))
                .getAsJsonObject();
        assertTrue(args.has("threads") && args.get("threads").getAsInt() >= 1, "args.json records the thread count");
        args.getAsJsonObject("train").addProperty("schedule", "cosine");
        Files.writeString(run.resolve("args.json"), args.toString());
        CliTest.assertOneLineError(CliTest.run("train", "--resume", run.toString(), "--epochs", "4"), "cosine");
    }

    // ---- item 9 ----

    @Test
    void specsResolveFromTheJarOutsideTheCheckout(@TempDir Path elsewhere) {
        String root = System.getProperty("ntk4j.root");
        System.setProperty("ntk4j.root", elsewhere.toString());
        try {
            assertEquals("mlp-quickstart", ModelSpec.resolve("mlp-quickstart").name());
            assertTrue(
                    ModelSpec.available().contains("resnet20"),
                    ModelSpec.available().toString());
            assertTrue(org.ntk4j.spec.DatasetSpec.exists("whitened-linear-d30"));
        } finally {
            if (root == null) {
                System.clearProperty("ntk4j.root");
            } else {
                System.setProperty("ntk4j.root", root);
            }
        }
    }

    @Test
    void helpShowsDefaultsAndStepHasMilestones() {
        CliTest.Run r = CliTest.run("train", "--help");
        // each default once, in its option's description (not again as picocli's "Default:" line)
        assertTrue(r.out().contains("(default 0)") && r.out().contains("--milestones"), r.out());
        assertFalse(r.out().contains("Default:"), r.out());
        assertEquals(
                List.of(4, 6),
                java.util.Arrays.stream(TrainCommand.milestones(new double[] {0.5, 0.75}, 8))
                        .boxed()
                        .toList());
        assertEquals(
                List.of(3),
                java.util.Arrays.stream(TrainCommand.milestones(new double[] {3}, 8))
                        .boxed()
                        .toList());
    }

    @Test
    void dataInfoKnowsSyntheticSets() {
        CliTest.Run r = CliTest.run("data", "info", "whitened-linear-d30");
        assertEquals(0, r.code(), r.err());
    }

    @Test
    void metricsNeverHoldBareNaN(@TempDir Path dir) throws Exception {
        RunFolder f = new RunFolder(dir);
        JsonObject o = new JsonObject();
        o.addProperty("loss", Double.NaN);
        o.addProperty("x", 1.5);
        f.log(o);
        String line = Files.readString(f.file("metrics.jsonl")).strip();
        assertFalse(line.matches(".*[:\\[,]\\s*-?(NaN|Infinity).*"), line);
        assertTrue(Double.isNaN(f.records().get(0).get("loss").getAsDouble()));
    }

    // ---- item 8 ----

    @Test
    void defaultThreadsLeaveBusyCoresAlone() {
        assertEquals(8, RuntimeOptions.defaultThreads(8, 0.2));
        assertEquals(1, RuntimeOptions.defaultThreads(2, 9.4));
        assertEquals(5, RuntimeOptions.defaultThreads(8, 2.6));
        assertEquals(4, RuntimeOptions.defaultThreads(4, -1)); // load average unavailable
    }

    // ---- item 10 ----

    @Test
    void listingsVersionAndReportFooter() throws Exception {
        CliTest.Run m = CliTest.run("models", "--no-params");
        assertEquals(0, m.code(), m.err());
        assertTrue(m.out().contains("mlp-quickstart") && m.out().contains("resnet"), m.out());
        CliTest.Run d = CliTest.run("datasets");
        assertEquals(0, d.code(), d.err());
        assertTrue(d.out().contains("whitened-linear-d30") && d.out().contains("mnist-subset"), d.out());
        CliTest.Run v = CliTest.run("--version");
        assertTrue(v.out().matches("(?s)ntk4j \\S+ \\(commit ([0-9a-f]{12}|unknown)\\).*"), v.out());
        String html = Files.readString(tiny.resolve("report.html"));
        assertTrue(html.contains("Command: ntk4j train --model mlp-quickstart") && html.contains("(commit "), html);
    }
}
