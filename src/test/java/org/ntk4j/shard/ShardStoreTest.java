package org.ntk4j.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.ntk4j.UserException;
import org.ntk4j.data.DataPaths;
import org.ntk4j.job.KernelJob;
import org.ntk4j.job.KernelJobConfig;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.report.Npz;
import org.ntk4j.request.KernelRequest;
import org.ntk4j.spec.ModelSpec;

/**
 * Shards through the Java API against the kernel job: plan, compute every shard, store, assemble; the assembled
 * .npy files are byte for byte those of {@code ntk4j kernel --tile T --format npy} (same header, same bits), for
 * an MLP and a small conv net, trace and full, symmetric and test×train, per layer. Bad stores are one-line
 * errors: a shard of another plan, other weights, a corrupt shard, a missing shard, a range out of range,
 * overlapping, off the grid or below the diagonal.
 */
class ShardStoreTest {
    private static NDManager manager;

    @BeforeAll
    static void setUp() {
        manager = NDManager.newBaseManager();
    }

    @AfterAll
    static void tearDown() {
        manager.close();
    }

    static final String CNN = "{\"name\":\"cnn-tiny\",\"arch\":\"cnn\",\"input\":[1,28,28],\"channels\":[2,3],"
            + "\"pool\":\"avg\",\"head\":[4],\"outputs\":10,\"activation\":\"relu\"}";

    static KernelRequest.Builder request(
            String model, int n, int test, Mode mode, DataType dt, boolean perLayer, Integer tile) {
        return KernelRequest.builder()
                .model(model)
                .dataset("mnist-subset")
                .n(n)
                .test(test)
                .mode(mode)
                .method(Method.AUTO)
                .dtype(dt)
                .perLayer(perLayer)
                .tile(tile);
    }

    /** The single-machine job of {@code request}, written as a directory of .npy files. */
    static KernelJobConfig whole(KernelRequest request, Path out) {
        return KernelJobConfig.builder(request)
                .out(out)
                .dataDir(DataPaths.dataDir(null))
                .format(Npz.Format.NPY)
                .build();
    }

    @ParameterizedTest
    @CsvSource({
        "mlp, TRACE, FLOAT64, 14",
        "mlp, FULL, FLOAT64, 0",
        "mlp, FULL, FLOAT32, 6",
        "cnn, TRACE, FLOAT64, 14",
        "cnn, FULL, FLOAT64, 6"
    })
    void assembledShardsEqualTheSingleMachineKernel(String model, Mode mode, DataType dt, int test, @TempDir Path dir)
            throws IOException {
        String spec = "mlp-quickstart";
        if (model.equals("cnn")) {
            Path f = dir.resolve("cnn-tiny.json");
            Files.writeString(f, CNN);
            spec = f.toString();
        }
        int n = 30;
        Path whole = dir.resolve("whole");
        KernelRequest c = request(spec, n, test, mode, dt, true, 8).build();
        new KernelJob(whole(c, whole)).run(manager, line -> {});

        Path store = dir.resolve("store");
        ShardPlan plan = ShardPlan.plan(c, 16, 1, DataPaths.dataDir(null), manager);
        assertEquals(8, plan.tile());
        assertEquals(16, plan.shardSize());
        // Θ(X1, X1): blocks 0:16 and 16:30, the upper triangle (3 shards); Θ(X2, X1): one row of blocks (2 shards)
        assertEquals(3 + (test > 0 ? 2 : 0), plan.shards().size());
        assertEquals(plan.toJson(), ShardPlan.fromJson(plan.toJson(), "plan").toJson());
        ShardStore s = ShardStore.create(store, plan);
        assertEquals(plan.shards(), s.missing());
        try (ShardComputer comp = ShardComputer.open(plan, null, DataPaths.dataDir(null), manager)) {
            for (TileRange r : plan.shards()) {
                ShardData d = comp.compute(r);
                assertEquals(
                        plan.bytes(r),
                        d.arrays().values().stream()
                                .mapToLong(km -> km.size() * plan.valueBytes())
                                .sum());
                s.write(d);
            }
        }
        assertTrue(s.missing().isEmpty());
        ShardAssembler.Result res = ShardAssembler.assemble(store, ShardAssembler.Layout.NPY, null, false, false);
        assertEquals(plan.shards().size(), res.shards());
        List<String> arrays = new java.util.ArrayList<>(plan.arrays(TileRange.TRAIN));
        if (test > 0) {
            arrays.addAll(plan.arrays(TileRange.TEST));
        }
        assertEquals(
                model.equals("mlp") ? 4 : 5, plan.arrays().size(), plan.arrays().toString());
        for (String a : arrays) {
            Path x = whole.resolve(a + ".npy");
            Path y = res.output().resolve(a + ".npy");
            assertTrue(Files.size(x) > 1000, x + " " + Files.size(x));
            assertEquals(-1L, Files.mismatch(x, y), a + ": assembled differs from the single-machine kernel");
        }
        // shards removed after assembly, the manifest lists them with their checksums
        assertFalse(Files.exists(store.resolve("shards")));
        String manifest = Files.readString(res.manifest());
        assertTrue(manifest.contains("\"format\": \"ntk4j-shard-manifest\""), manifest);
        assertTrue(manifest.contains(plan.shards().get(0).name()), manifest);
    }

    @Test
    void badStoresAreOneLineErrors(@TempDir Path dir) throws IOException {
        Path w1 = dir.resolve("w1.npz");
        Path w2 = dir.resolve("w2.npz");
        for (int seed : new int[] {1, 2}) {
            try (NDManager m = manager.newSubManager();
                    Network net = Network.build(ModelSpec.resolve("mlp-quickstart"), seed, m)) {
                net.saveParameters(seed == 1 ? w1 : w2);
            }
        }
        int n = 20;
        Path a = dir.resolve("a");
        KernelRequest ca = request("mlp-quickstart", n, 0, Mode.TRACE, DataType.FLOAT32, false, 8)
                .weights(w1)
                .build();
        ShardPlan plan = ShardStore.planFor(a, ca, 8, 1, null, manager);
        ShardStore store = ShardStore.create(a, plan);
        assertEquals(6, plan.shards().size()); // blocks 0:8, 8:16, 16:20: 3 + 2 + 1

        // ranges
        oneLine(() -> plan.shard(TileRange.parse("ntk", "0:24", "0:8")), "out of range");
        oneLine(() -> plan.shard(TileRange.parse("ntk", "0:8", "0:30")), "out of range");
        oneLine(() -> plan.shard(TileRange.parse("ntk", "0:8", "4:16")), "overlaps rows 0:8 cols 0:8");
        oneLine(() -> plan.shard(TileRange.parse("ntk", "8:16", "0:8")), "below the diagonal");
        oneLine(() -> plan.shard(TileRange.parse("ntk_test", "0:8", "0:8")), "no test×train kernel");
        oneLine(() -> TileRange.parse("ntk", "8:8", "0:8"), "rows must be a range A:B");
        oneLine(() -> TileRange.parse("ntk", "0:8", "x"), "cols must be a range A:B");

        // other weights: the store's plan names the difference; the computer checks the file's hash
        KernelRequest cb = request("mlp-quickstart", n, 0, Mode.TRACE, DataType.FLOAT32, false, null)
                .weights(w2)
                .build();
        ShardPlan other = ShardStore.planFor(a, cb, null, 1, null, manager);
        assertEquals(8, other.tile()); // kept from the store
        oneLine(() -> ShardStore.create(a, other), "weights sha256 is");
        oneLine(() -> ShardComputer.open(plan, w2, DataPaths.dataDir(null), manager), "but the plan was made for");

        try (ShardComputer comp = ShardComputer.open(plan, null, DataPaths.dataDir(null), manager)) {
            for (TileRange r : plan.shards()) {
                store.write(comp.compute(r));
            }
        }
        // the whole store assembles into one NPZ whose checksum the manifest records; the shards are kept
        ShardAssembler.Result ok = ShardAssembler.assemble(a, ShardAssembler.Layout.NPZ, null, true, false);
        assertTrue(Files.size(ok.output()) > n * n * 4, ok.output().toString());
        assertTrue(Files.readString(ok.manifest()).contains(org.ntk4j.io.KernelFiles.sha256(ok.output())));
        Files.delete(ok.output());

        // missing shard
        TileRange r = plan.shards().get(1);
        Path side = store.sidecar(r);
        Path kept = dir.resolve("kept.json");
        Files.move(side, kept);
        assertFalse(store.exists(r));
        oneLine(() -> assemble(a), "1 of 6 shards are missing, e.g. " + r.options(k -> k));
        Files.move(kept, side);
        assertTrue(store.exists(r));

        // corrupt shard: one byte changed
        Path npy = store.shardDir(r).resolve("ntk.npy");
        byte[] bytes = Files.readAllBytes(npy);
        bytes[bytes.length - 3] ^= 1;
        Files.write(npy, bytes, StandardOpenOption.TRUNCATE_EXISTING);
        oneLine(() -> assemble(a), "corrupt");
        bytes[bytes.length - 3] ^= 1;
        Files.write(npy, bytes, StandardOpenOption.TRUNCATE_EXISTING);

        // a shard of another plan (other weights) put in place of this plan's
        Path b = dir.resolve("b");
        ShardPlan planB = ShardPlan.plan(cb.toBuilder().tile(8).build(), 8, 1, null, manager);
        assertNotEquals(plan.id(), planB.id());
        ShardStore storeB = ShardStore.create(b, planB);
        try (ShardComputer comp = ShardComputer.open(planB, null, DataPaths.dataDir(null), manager)) {
            storeB.write(comp.compute(r));
        }
        Files.copy(storeB.sidecar(r), side, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        oneLine(() -> assemble(a), "belongs to plan " + planB.id());
        // a stray shard of another plan under another name
        Files.copy(storeB.sidecar(r), store.dir().resolve("shards").resolve("ntk_r000000-000004_c000000-000004.json"));
        oneLine(() -> assemble(a), "is not a shard of plan " + plan.id());
        // a damaged plan.json
        Files.writeString(
                a.resolve("plan.json"), Files.readString(a.resolve("plan.json")).replace("\"n\": 20", "\"n\": 21"));
        oneLine(() -> ShardStore.open(a), "does not match its id");
    }

    static void assemble(Path dir) {
        ShardAssembler.assemble(dir, ShardAssembler.Layout.NPZ, null, true, false);
    }

    static void oneLine(Executable e, String mustContain) {
        UserException u = assertThrows(UserException.class, e);
        assertFalse(u.getMessage().contains("\n"), u.getMessage());
        assertTrue(u.getMessage().contains(mustContain), "'" + u.getMessage() + "' should mention " + mustContain);
    }
}
