package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.testing.Python;

/**
 * Shards from the command line: every shard of a plan computed with {@code kernel --rows/--test-rows --cols}
 * (the tile given once, then kept from the store), assembled with {@code kernel assemble}, is byte for byte the
 * single-machine {@code kernel --tile} output (float64, full, per layer, test×train); the store read lazily by
 * scripts/ntk4j_shards.py gives the same values, under numpy's indexing (where python3 with numpy is installed); bad ranges are one-line
 * errors; {@code --dry-run} prints a plan whose shard count and bytes follow from its grid.
 */
class ShardCliTest {
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
        "--mode",
        "full",
        "--per-layer",
        "--dtype",
        "float64"
    };

    static String[] args(String... more) {
        List<String> a = new ArrayList<>(List.of(KERNEL));
        a.addAll(List.of(more));
        return a.toArray(String[]::new);
    }

    @Test
    void shardsFromTheCommandLineAssembleToTheWholeKernel(@TempDir Path dir) throws Exception {
        Path whole = dir.resolve("whole");
        assertEquals(
                0,
                CliTest.run(args("--tile", "8", "--format", "npy", "--out", whole.toString()))
                        .code());
        Path store = dir.resolve("store");
        String[][] shards = {
            {"--rows", "0:16", "--cols", "0:16", "--tile", "8", "--shard-size", "16"},
            {"--rows", "0:16", "--cols", "16:30"},
            {"--rows", "16:30", "--cols", "16:30"},
            {"--test-rows", "0:6", "--cols", "0:16"},
            {"--test-rows", "0:6", "--cols", "16:30"}
        };
        for (String[] s : shards) {
            List<String> a = new ArrayList<>(List.of(args("--out", store.toString())));
            a.addAll(List.of(s));
            CliTest.Run r = CliTest.run(a.toArray(String[]::new));
            assertEquals(0, r.code(), r.err());
        }
        CliTest.assertOneLineError(
                CliTest.run(args("--out", store.toString(), "--rows", "0:40", "--cols", "0:16")), "out of range");
        CliTest.assertOneLineError(
                CliTest.run(args("--out", store.toString(), "--rows", "0:8", "--cols", "0:16")),
                "is not a shard of the plan");
        CliTest.assertOneLineError(CliTest.run(args("--out", store.toString(), "--rows", "0:16")), "needs --cols C:D");
        CliTest.assertOneLineError(
                CliTest.run(args("--out", store.toString(), "--rows", "0:16", "--cols", "0:16", "--seed", "1")),
                "seed is 0 in the plan but 1 here");
        CliTest.Run a = CliTest.run("kernel", "assemble", store.toString(), "--format", "npy", "--keep-shards");
        assertEquals(0, a.code(), a.err());
        String[] arrays = {"ntk", "ntk.dense1", "ntk.dense2", "ntk.dense3", "ntk_test", "ntk_test.dense3"};
        for (String name : arrays) {
            assertEquals(
                    -1L,
                    Files.mismatch(
                            whole.resolve(name + ".npy"),
                            store.resolve("kernel").resolve(name + ".npy")),
                    name + ": assembled shards differ from the whole kernel");
        }
        CliTest.assertOneLineError(CliTest.run("kernel", "assemble", store.toString(), "--format", "npy"), "exists");
        CliTest.assertOneLineError(
                CliTest.run("kernel", "assemble", dir.resolve("nothing").toString()), "is not a shard store");

        // Python reads the store lazily through the manifest: the same values as the assembled kernel
        Assumptions.assumeTrue(Python.hasNumpy(), "python3 with numpy is not installed");
        Path script = Path.of("scripts", "ntk4j_shards.py").toAbsolutePath();
        String code = "import sys, numpy as np\nsys.path.insert(0, '" + script.getParent() + "')\n"
                + "from ntk4j_shards import ShardedKernel\n"
                + "ok = True\n"
                + "for a in " + pyList(arrays) + ":\n"
                + "    K = ShardedKernel('" + store + "', a)\n"
                + "    W = np.load('" + store.resolve("kernel") + "/' + a + '.npy')\n"
                + "    ok &= K.shape == W.shape and K.dtype == W.dtype\n"
                + "    for (i0, i1, j0, j1) in [(0, K.shape[0], 0, K.shape[1]), (3, 29, 2, 27), (17, 30, 0, 9), (5, 6, 20, 21)]:\n"
                + "        i1 = min(i1, K.shape[0]); i0 = min(i0, i1 - 1)\n"
                + "        ok &= bool(np.array_equal(K[i0:i1, j0:j1], W[i0:i1, j0:j1]))\n"
                // numpy indexing: steps (also negative), integers, index lists, masks, Ellipsis, np.asarray
                + "    for ix in [np.s_[::2, ::3], np.s_[::-1, 7:1:-2], np.s_[-3:], np.s_[4, 5], np.s_[4],"
                + " np.s_[[5, 0, 2]], np.s_[np.arange(K.shape[0]) % 3 == 0, 1], np.s_[..., 0]]:\n"
                + "        ok &= K[ix].shape == W[ix].shape and bool(np.array_equal(K[ix], W[ix]))\n"
                + "    ok &= bool(np.array_equal(np.asarray(K), W))\n"
                + "print('equal' if ok else 'different', float(np.abs(W).max()))\n";
        String out = Python.run(code);
        assertTrue(out.startsWith("equal "), out);
        assertTrue(Double.parseDouble(out.substring(6)) > 0, out);
    }

    @Test
    void dryRunPrintsThePlanFromATimedTile(@TempDir Path dir) {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
            code = CliTest.run(
                            "kernel",
                            "--model",
                            "mlp-quickstart",
                            "--dataset",
                            "mnist-subset",
                            "--n",
                            "60000",
                            "--memory",
                            "64m",
                            "--dry-run",
                            "--workers",
                            "4",
                            "--out",
                            dir.resolve("s").toString())
                    .code();
        } finally {
            System.setOut(old);
        }
        String out = buf.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, out);
        Matcher t = Pattern.compile("tiles: (\\d+) samples, (\\d+) per side").matcher(out);
        Matcher s = Pattern.compile("shards: (\\d+)×\\d+ samples, (\\d+) \\((\\d+) tile pairs\\)")
                .matcher(out);
        assertTrue(t.find() && s.find(), out);
        int tile = Integer.parseInt(t.group(1));
        assertEquals((60000 + tile - 1) / tile, Integer.parseInt(t.group(2)));
        int side = Integer.parseInt(s.group(1));
        long per = (60000 + side - 1) / side;
        assertEquals(per * (per + 1) / 2, Long.parseLong(s.group(2)), out); // the upper triangle of shards
        long tiles = (60000 + tile - 1) / tile;
        assertTrue(Long.parseLong(s.group(3)) >= tiles * (tiles + 1) / 2, out);
        assertTrue(out.contains("timed on this machine"), out);
        assertTrue(out.contains("on 4 workers"), out);
        assertTrue(!Files.exists(dir.resolve("s").resolve("plan.json")), "a dry run writes nothing");
    }

    static String pyList(String[] a) {
        return "['" + String.join("', '", a) + "']";
    }
}
