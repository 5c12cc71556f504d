package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.report.NpzReader;

/**
 * {@code ntk4j kernel --approx nystrom:M} through shards: every shard of a Nyström plan (rows of C = K(X, L) × the M
 * landmark columns, of C* = K(X*, L), and the held-out K_SS) computed from the command line and assembled with
 * {@code kernel assemble} gives the features file of the single-machine {@code kernel --approx nystrom:M --tile T}
 * entry for entry, bit for bit (features, features_test, landmarks, y1, y2), the same held-out error, and the same
 * {@code regress} predictions; a missing shard, a shard of another plan and what cannot be sharded are one line.
 */
class NystromShardCliTest {
    static final String[] KERNEL = {
        "kernel",
        "--model",
        "mlp-quickstart",
        "--dataset",
        "mnist-subset",
        "--n",
        "30",
        "--test",
        "6",
        "--approx-holdout",
        "12"
    };

    /** The kernel options, {@code --approx nystrom:8} unless {@code more} names another. */
    static String[] args(String... more) {
        List<String> a = new ArrayList<>(List.of(KERNEL));
        if (!List.of(more).contains("--approx")) {
            a.addAll(List.of("--approx", "nystrom:8"));
        }
        a.addAll(List.of(more));
        return a.toArray(String[]::new);
    }

    static void assertSameEntries(Path a, Path b, String... names) {
        NpzReader x = new NpzReader(a);
        NpzReader y = new NpzReader(b);
        for (String name : names) {
            NpzReader.Array u = x.read(name);
            NpzReader.Array v = y.read(name);
            assertArrayEquals(u.shape(), v.shape(), name + ": shapes differ");
            assertArrayEquals(u.data(), v.data(), name + ": assembled shards differ from the single-machine job");
        }
    }

    @Test
    void nystromShardsAssembleToTheSingleMachineFeatures(@TempDir Path dir) throws Exception {
        Path whole = dir.resolve("whole.npz");
        CliTest.Run w = CliTest.run(args("--tile", "8", "--out", whole.toString()));
        assertEquals(0, w.code(), w.err());

        Path store = dir.resolve("store");
        CliTest.Run dry = printed(args("--tile", "8", "--shard-size", "16", "--dry-run", "--out", store.toString()));
        assertEquals(0, dry.code(), dry.err());
        assertTrue(
                dry.out().contains("shards: 16 rows × all columns, 4 (")
                        && dry.out().contains("shard 1/4: --rows 0:16 --cols 0:8"),
                dry.out());
        String[][] shards = {
            {"--rows", "0:16", "--cols", "0:8", "--tile", "8", "--shard-size", "16"},
            {"--rows", "16:30", "--cols", "0:8"},
            {"--test-rows", "0:6", "--cols", "0:8"},
            {"--holdout-rows", "0:12", "--cols", "0:12"}
        };
        for (int i = 0; i < shards.length; i++) {
            List<String> a = new ArrayList<>(List.of(args("--out", store.toString())));
            a.addAll(List.of(shards[i]));
            CliTest.Run r = CliTest.run(a.toArray(String[]::new));
            assertEquals(0, r.code(), r.err());
            if (i == shards.length - 2) {
                // the held-out block is still missing: assembly names it, and writes nothing
                CliTest.assertOneLineError(
                        CliTest.run("kernel", "assemble", store.toString()),
                        "1 of 4 shards are missing, e.g. --holdout-rows 0:12 --cols 0:12");
                assertTrue(!Files.exists(store.resolve("kernel.npz")));
            }
        }
        CliTest.Run again = printed(args("--out", store.toString(), "--rows", "16:30", "--cols", "0:8"));
        assertEquals(0, again.code(), again.err());
        assertTrue(again.out().contains("exists"), again.out());
        CliTest.assertOneLineError(
                CliTest.run(args("--out", store.toString(), "--rows", "0:16", "--cols", "0:30")), "one per landmark");
        CliTest.assertOneLineError(
                CliTest.run(args("--out", store.toString(), "--rows", "0:16", "--cols", "0:8", "--seed", "1")),
                "seed is 0 in the plan but 1 here");
        CliTest.assertOneLineError(
                CliTest.run(
                        args("--out", store.toString(), "--rows", "0:16", "--cols", "0:8", "--approx", "nystrom:9")),
                "approx is nystrom:8:uniform in the plan but nystrom:9:uniform here");

        CliTest.Run a = CliTest.run("kernel", "assemble", store.toString(), "--keep-shards");
        assertEquals(0, a.code(), a.err());
        Path assembled = store.resolve("kernel.npz");
        assertSameEntries(whole, assembled, "features", "features_test", "landmarks", "y1", "y2");
        JsonObject e1 = ApproxCliTest.sidecar(whole).getAsJsonObject("approx");
        JsonObject e2 = ApproxCliTest.sidecar(assembled).getAsJsonObject("approx");
        assertEquals(e1.get("spec"), e2.get("spec"));
        assertEquals(e1.get("rank"), e2.get("rank"));
        assertEquals(e1.get("error"), e2.get("error"), "the held-out error of the assembled features");
        assertTrue(e2.get("shard_plan").getAsString().length() == 16, e2.toString());

        CliTest.Run g1 = CliTest.run(
                "regress",
                "--kernel",
                whole.toString(),
                "--out",
                dir.resolve("r1").toString());
        assertEquals(0, g1.code(), g1.err());
        CliTest.Run g2 = CliTest.run(
                "regress",
                "--kernel",
                assembled.toString(),
                "--out",
                dir.resolve("r2").toString());
        assertEquals(0, g2.code(), g2.err());
        assertSameEntries(dir.resolve("r1/predictions.npz"), dir.resolve("r2/predictions.npz"), "f_train", "f_test");

        CliTest.assertOneLineError(
                CliTest.run("kernel", "assemble", store.toString(), "--format", "npy", "--force"), "--format npy");
    }

    @Test
    void whatCannotBeShardedIsOneLine(@TempDir Path dir) {
        Path store = dir.resolve("store");
        String[] shard = {"--out", store.toString(), "--rows", "0:16", "--cols", "0:8"};
        CliTest.assertOneLineError(CliTest.run(args(concat(shard, "--approx", "nystrom:8:leverage"))), "pilot pass");
        CliTest.assertOneLineError(CliTest.run(args(concat(shard, "--approx", "nystrom:auto"))), "nystrom:auto");
        CliTest.assertOneLineError(CliTest.run(args(concat(shard, "--approx", "pntk"))), "only nystrom:M is");
        CliTest.assertOneLineError(CliTest.run(args(concat(shard, "--approx", "nystrom:31"))), "only 30 train images");
        CliTest.assertOneLineError(
                CliTest.run(args(concat(shard, "--mode", "full"))), "--approx computes traced kernels");
        CliTest.assertOneLineError(
                CliTest.run(
                        "kernel",
                        "--model",
                        "mlp-quickstart",
                        "--out",
                        store.toString(),
                        "--holdout-rows",
                        "0:4",
                        "--cols",
                        "0:4"),
                "needs --approx nystrom:M");
        assertTrue(!Files.exists(store.resolve("plan.json")), "nothing planned on a mistake");
    }

    /** A run with what it printed to standard output as its {@code out}. */
    private static CliTest.Run printed(String... args) {
        java.io.PrintStream old = System.out;
        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
        CliTest.Run r;
        try {
            System.setOut(new java.io.PrintStream(buf, true, java.nio.charset.StandardCharsets.UTF_8));
            r = CliTest.run(args);
        } finally {
            System.setOut(old);
        }
        return new CliTest.Run(r.code(), buf.toString(java.nio.charset.StandardCharsets.UTF_8), r.err());
    }

    private static String[] concat(String[] a, String... b) {
        List<String> out = new ArrayList<>(List.of(a));
        out.addAll(List.of(b));
        return out.toArray(String[]::new);
    }
}
