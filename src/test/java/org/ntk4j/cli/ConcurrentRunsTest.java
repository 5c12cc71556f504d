package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two runs writing the same output: the second is refused with the first's pid, whichever would finish first
 * (kernel --out, with and without --force; kernel assemble on one store; regress --out; reproduce --out), and a
 * killed first run's lock is taken over.
 */
@Tag("slow")
class ConcurrentRunsTest {
    static final String[] KERNEL = {"kernel", "--model", "mlp-quickstart", "--dataset", "mnist-subset", "--n", "20"};

    static String[] with(String[] base, String... more) {
        String[] a = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, a, base.length, more.length);
        return a;
    }

    @Test
    void aSecondKernelRunOnTheSameOutIsRefusedWhicheverFinishesFirst(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("K.npz");
        // the first run is held just before it writes its NPZ: the second would finish first, and is refused
        Child first = Child.start(dir.resolve("a.log"), "K.npz", List.of(), with(KERNEL, "--out", out.toString()));
        try {
            first.held();
            for (String[] second : new String[][] {
                with(KERNEL, "--seed", "5", "--out", out.toString()),
                with(KERNEL, "--seed", "5", "--force", "--out", out.toString()),
                with(
                        KERNEL,
                        "--seed",
                        "5",
                        "--format",
                        "npy",
                        "--out",
                        dir.resolve("K").toString())
            }) {
                CliTest.assertOneLineError(
                        CliTest.run(second),
                        "is being written by process " + first.process().pid());
            }
            assertFalse(Files.exists(out), "nothing written by the refused runs");
        } finally {
            first.kill();
        }
        CliTest.Run r = CliTest.run(with(KERNEL, "--seed", "5", "--out", out.toString()));
        assertEquals(0, r.code(), "the killed run's lock is taken over: " + r.err());
    }

    @Test
    void assembleRegressAndReproduceRefuseASecondWriter(@TempDir Path dir) throws Exception {
        Path store = dir.resolve("store");
        CliTest.Run r = CliTest.run(with(
                KERNEL,
                "--tile",
                "10",
                "--shard-size",
                "20",
                "--rows",
                "0:20",
                "--cols",
                "0:20",
                "--out",
                store.toString()));
        assertEquals(0, r.code(), r.err());
        Child a = Child.start(dir.resolve("a.log"), "kernel.npz", List.of(), "kernel", "assemble", store.toString());
        try {
            a.held();
            CliTest.assertOneLineError(
                    CliTest.run("kernel", "assemble", store.toString(), "--format", "npy"),
                    "the shard store " + store + " is being written by process "
                            + a.process().pid());
            assertTrue(Files.isDirectory(store.resolve("shards")), "the shards the first assembly reads are kept");
        } finally {
            a.kill();
        }
        Path kernel = dir.resolve("K.npz");
        assertEquals(
                0,
                CliTest.run(with(KERNEL, "--test", "10", "--out", kernel.toString()))
                        .code());
        Path reg = dir.resolve("reg");
        Child b = Child.start(
                dir.resolve("b.log"),
                "results.json",
                List.of(),
                "regress",
                "--kernel",
                kernel.toString(),
                "--out",
                reg.toString());
        try {
            b.held();
            CliTest.assertOneLineError(
                    CliTest.run("regress", "--kernel", kernel.toString(), "--ridge", "1", "--out", reg.toString()),
                    "is being written by process " + b.process().pid());
        } finally {
            b.kill();
        }
        Path study = dir.resolve("study");
        Child c = Child.start(
                dir.resolve("c.log"),
                "reproduce.json",
                List.of(),
                "reproduce",
                "silent-alignment",
                "--quick",
                "--out",
                study.toString());
        try {
            c.held();
            CliTest.assertOneLineError(
                    CliTest.run("reproduce", "silent-alignment", "--quick", "--force", "--out", study.toString()),
                    "in use by process " + c.process().pid());
        } finally {
            c.kill();
        }
    }
}
