package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ntk4j train} killed with SIGKILL in the middle of an epoch, then {@code --resume}d, ends
 * with the same weights and per-epoch metrics as an uninterrupted run.
 */
@Tag("slow")
class KillResumeTest {
    static final String[] TRAIN = {
        "train",
        "--model",
        "mlp-quickstart",
        "--dataset",
        "mnist-subset",
        "--epochs",
        "2",
        "--batch-size",
        "8",
        "--lr",
        "0.02",
        "--momentum",
        "0.9",
        "--checkpoint-every",
        "20",
        "--seed",
        "11"
    };

    static ProcessBuilder cli(Path log, String... args) {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dai.djl.offline=true",
                "-Dai.djl.pytorch.num_threads=1",
                "-Dntk4j.root=" + System.getProperty("ntk4j.root", "."),
                "-Djava.awt.headless=true",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    }

    static String[] with(String... extra) {
        String[] a = new String[TRAIN.length + extra.length];
        System.arraycopy(TRAIN, 0, a, 0, TRAIN.length);
        System.arraycopy(extra, 0, a, TRAIN.length, extra.length);
        return a;
    }

    @Test
    void killDashNineMidEpochThenResumeMatchesUninterrupted(@TempDir Path dir) throws Exception {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        Process pa = cli(dir.resolve("a.log"), with("--out", a.toString())).start();
        assertTrue(pa.waitFor(300, TimeUnit.SECONDS) && pa.exitValue() == 0, Files.readString(dir.resolve("a.log")));

        Process pb = cli(dir.resolve("b.log"), with("--out", b.toString())).start();
        Path state = b.resolve("checkpoint").resolve("state.json");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
        while (!Files.exists(state) && pb.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        pb.destroyForcibly(); // SIGKILL on Linux
        pb.waitFor();
        assertFalse(Files.exists(b.resolve("weights.npz")), "the run must have been killed before it finished");
        String st = Files.readString(state);
        assertTrue(st.contains("\"epoch\": 0"), "killed during the first epoch: " + st);

        Process pr =
                cli(dir.resolve("r.log"), "train", "--resume", b.toString()).start();
        assertTrue(pr.waitFor(300, TimeUnit.SECONDS) && pr.exitValue() == 0, Files.readString(dir.resolve("r.log")));
        assertTrue(Files.readString(dir.resolve("r.log")).contains("resuming"));

        try (NDManager m = NDManager.newBaseManager()) {
            NDList wa = load(m, a.resolve("weights.npz"));
            NDList wb = load(m, b.resolve("weights.npz"));
            assertEquals(wa.size(), wb.size());
            for (int i = 0; i < wa.size(); i++) {
                assertEquals(wa.get(i).getName(), wb.get(i).getName());
                assertArrayEquals(
                        wa.get(i).toFloatArray(),
                        wb.get(i).toFloatArray(),
                        0f,
                        wa.get(i).getName());
            }
        }
        List<String> ea = epochLines(a);
        List<String> eb = epochLines(b);
        assertEquals(2, ea.size());
        assertEquals(ea.size(), eb.size());
        for (int i = 0; i < ea.size(); i++) {
            // identical records apart from the wall time
            assertEquals(
                    ea.get(i).replaceAll("\"seconds\":[0-9.Ee-]+", ""),
                    eb.get(i).replaceAll("\"seconds\":[0-9.Ee-]+", ""));
        }
    }

    static NDList load(NDManager m, Path p) throws Exception {
        try (InputStream is = Files.newInputStream(p)) {
            return NDList.decode(m, is);
        }
    }

    static List<String> epochLines(Path run) throws Exception {
        return Files.readAllLines(run.resolve("metrics.jsonl")).stream()
                .filter(l -> l.contains("\"kind\":\"epoch\""))
                .toList();
    }
}
