package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.files.OutputLock;
import org.ntk4j.files.TempFiles;

/**
 * Every writer killed (SIGKILL) while its temporary exists leaves it, named by the rule, and the next run writing to
 * that folder removes it: kernel (NPZ and --format npy), a shard, kernel assemble (its output and the kernel it
 * accumulates on disk when larger than half the heap), and a training checkpoint.
 */
@Tag("slow")
class KillWritersTest {
    static final String[] KERNEL = {"kernel", "--model", "mlp-quickstart", "--dataset", "mnist-subset", "--n", "20"};

    static String[] with(String[] base, String... more) {
        String[] a = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, a, base.length, more.length);
        return a;
    }

    /** The names in {@code dir} (recursively) that are temporaries or lock files of the rule. */
    static List<String> leftovers(Path dir) throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.map(p -> p.getFileName().toString())
                    .filter(n -> TempFiles.isTemporary(n) || n.endsWith(OutputLock.SUFFIX))
                    .toList();
        }
    }

    static Path killAt(Path log, String hold, List<String> jvm, String... args) throws Exception {
        Child c = Child.start(log, hold, jvm, args);
        try {
            Path held = c.held();
            assertTrue(TempFiles.isTemporary(held.getFileName().toString()), held.toString());
            return held;
        } finally {
            c.kill();
        }
    }

    @Test
    void killedKernelNpzAndNpyWritersLeaveTemporariesTheNextRunRemoves(@TempDir Path dir) throws Exception {
        Path npz = dir.resolve("K.npz");
        Path held = killAt(dir.resolve("a.log"), "K.npz", List.of(), with(KERNEL, "--out", npz.toString()));
        assertTrue(Files.exists(held), "the killed writer left " + held);
        CliTest.Run r = CliTest.run(with(KERNEL, "--out", npz.toString()));
        assertEquals(0, r.code(), r.err());
        assertFalse(Files.exists(held), "removed by the next run");
        Path npy = dir.resolve("K2");
        Path heldDir = killAt(
                dir.resolve("b.log"), ".K2.ntk4j", List.of(), with(KERNEL, "--format", "npy", "--out", npy.toString()));
        assertTrue(Files.isDirectory(heldDir), "the killed writer left the folder " + heldDir);
        r = CliTest.run(with(KERNEL, "--format", "npy", "--out", npy.toString()));
        assertEquals(0, r.code(), r.err());
        assertFalse(Files.exists(heldDir), "removed by the next run");
        assertEquals(List.of(), leftovers(dir));
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(
                    List.of("K.json", "K.npz", "K2", "K2.json", "a.log", "b.log"),
                    s.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }

    @Test
    void killedShardAndAssembleWritersLeaveTemporariesTheNextRunRemoves(@TempDir Path dir) throws Exception {
        Path store = dir.resolve("store");
        String[] shard = {
            "kernel",
            "--model",
            "mlp-quickstart",
            "--dataset",
            "mnist-subset",
            "--n",
            "300",
            "--mode",
            "full",
            "--tile",
            "100",
            "--shard-size",
            "300",
            "--rows",
            "0:300",
            "--cols",
            "0:300",
            "--out",
            store.toString()
        };
        Path heldShard = killAt(dir.resolve("s.log"), "_r000000", List.of(), shard);
        assertTrue(Files.isDirectory(heldShard) && heldShard.startsWith(store.resolve("shards")), heldShard.toString());
        CliTest.Run r = CliTest.run(shard);
        assertEquals(0, r.code(), r.err());
        assertFalse(Files.exists(heldShard), "removed by the next shard written there");
        // the full 300×300×10×10 kernel is 34 MiB: more than half of a 48 MiB heap, so assemble accumulates it on disk
        Path heldSpill = killAt(
                dir.resolve("a.log"),
                "ntk4j-kernel.f32",
                List.of("-Xmx48m"),
                "kernel",
                "assemble",
                store.toString(),
                "--keep-shards");
        assertTrue(Files.isRegularFile(heldSpill) && heldSpill.getParent().equals(store), heldSpill.toString());
        Path heldOut = killAt(
                dir.resolve("b.log"), "kernel.npz", List.of(), "kernel", "assemble", store.toString(), "--keep-shards");
        assertFalse(Files.exists(heldSpill), "the spilled kernel was removed by the next assemble");
        assertTrue(Files.isRegularFile(heldOut), heldOut.toString());
        r = CliTest.run("kernel", "assemble", store.toString(), "--keep-shards");
        assertEquals(0, r.code(), r.err());
        assertFalse(Files.exists(heldOut), "removed by the next assemble");
        assertEquals(List.of(), leftovers(dir));
    }

    @Test
    void aKilledCheckpointWriterLeavesATemporaryTheResumeRemoves(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("run");
        CliTest.Run r = CliTest.run(ReliabilityTest.tiny("--out", run.toString()));
        assertEquals(0, r.code(), r.err());
        Path held = killAt(
                dir.resolve("t.log"),
                ".checkpoint.ntk4j",
                List.of(),
                "train",
                "--resume",
                run.toString(),
                "--epochs",
                "3");
        assertTrue(Files.isDirectory(held) && held.getParent().equals(run), held.toString());
        // in its own process, as a user runs it (this JVM wrote in the folder before, when the run started)
        Child resumed = Child.start(dir.resolve("r.log"), null, List.of(), "train", "--resume", run.toString());
        assertEquals(0, resumed.exit(), resumed.output());
        assertFalse(Files.exists(held), "removed by the resumed run");
        assertEquals(List.of(), leftovers(run));
    }
}
