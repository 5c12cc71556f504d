package org.ntk4j.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;
import org.ntk4j.approx.ApproxSpec;
import org.ntk4j.job.ApproxJob;
import org.ntk4j.job.KernelJobConfig;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.report.NpzReader;
import org.ntk4j.request.KernelRequest;
import org.ntk4j.shard.ShardAssembler;
import org.ntk4j.shard.ShardPlan;
import org.ntk4j.shard.TileRange;
import org.ntk4j.spec.ModelSpec;

/**
 * The Spark driver in local mode ({@code local[2,4]}) on tiny float64 nets: the assembled kernel equals the
 * single-machine kernel ({@code ntk4j kernel ... --tile T}) bit for bit; re-runs skip valid shards and compute
 * only missing or corrupt ones; a failed task is retried; a killed job resumes; bad input is one line.
 */
class SparkKernelTest {
    static final int N = 24;
    static final int M = 8;
    static final int TILE = 4;
    static final int SHARD = 8;

    @TempDir
    static Path data;

    @TempDir
    Path dir;

    private static Path mlp;
    private static Path cnn;
    private static Path wide;

    @BeforeAll
    static void setUp() throws Exception {
        SparkFixtures.mnistDir(data, 40, 12);
        mlp = resource("tiny-mlp.json");
        cnn = resource("tiny-cnn.json");
        wide = resource("tiny-mlp-wide.json");
    }

    private static Path resource(String name) throws Exception {
        return resource(name, data);
    }

    private static Path resource(String name, Path where) throws Exception {
        Path p = where.resolve(name);
        try (var in = SparkKernelTest.class.getResourceAsStream("/" + name)) {
            Files.copy(in, p);
        }
        return p;
    }

    private static SparkSession spark() {
        return LocalSpark.get();
    }

    /** The tiny MLP job: N = 24 (and M = 8 test rows), tiles of 4, shards of 8, float64, from the file:// data root. */
    private SparkKernelConfig config(Path model, Path out, Mode mode, int test) {
        return SparkKernelConfig.of(model.toString(), "mnist", N, out.toUri().toString())
                .withDataRoot(data.toUri().toString())
                .withTest(test)
                .withMode(mode, true, DataType.FLOAT64)
                .withTile(TILE, 64L << 20)
                .withShardSize(SHARD);
    }

    /** {@code ntk4j kernel} on one machine with the same tile, written as a folder of .npy files. */
    private static Path singleMachine(Path model, Path out, Mode mode, int n, int test, boolean perLayer) {
        return singleMachine(
                KernelRequest.builder()
                        .model(model.toString())
                        .n(n)
                        .test(test)
                        .mode(mode)
                        .perLayer(perLayer),
                out);
    }

    /** The single-machine job of {@code request} on mnist in float64 with the same tile, as .npy files. */
    private static Path singleMachine(KernelRequest.Builder request, Path out) {
        return SparkFixtures.singleMachineKernel(request, TILE, data, out);
    }

    /** Assembles the store into a folder of .npy files. */
    private static Path assemble(Path store, Path out) {
        ShardAssembler.assemble(store, ShardAssembler.Layout.NPY, out, true, false);
        return out;
    }

    /** Every array of the plan is byte for byte the single-machine job's (same .npy header, same float64 values). */
    private static void assertSameArrays(ShardPlan plan, Path assembled, Path reference) throws Exception {
        List<String> arrays = new ArrayList<>(plan.arrays(TileRange.TRAIN));
        if (plan.test() > 0) {
            arrays.addAll(plan.arrays(TileRange.TEST));
        }
        for (String a : arrays) {
            byte[] want = Files.readAllBytes(reference.resolve(a + ".npy"));
            byte[] got = Files.readAllBytes(assembled.resolve(a + ".npy"));
            assertEquals(want.length, got.length, a);
            assertArrayEquals(want, got, a + " differs from the single-machine kernel");
        }
    }

    private static Set<String> names(List<TileRange> ranges) {
        Set<String> s = new HashSet<>();
        ranges.forEach(r -> s.add(r.name()));
        return s;
    }

    @Test
    void traceKernelEqualsSingleMachineAndResumesMissingAndCorruptShards() throws Exception {
        Path store = dir.resolve("store");
        SparkKernelConfig c = config(mlp, store, Mode.TRACE, 0);
        List<String> lines = new ArrayList<>();
        SparkKernel.Result r = SparkKernel.run(spark(), c, lines::add);
        ShardPlan plan = r.plan();
        assertEquals(6, plan.shards().size()); // 3×3 blocks of 8, upper triangle
        assertEquals(3, plan.arrays(TileRange.TRAIN).size(), "ntk and the two layers' kernels");
        assertEquals(6, r.shards(ShardTask.Action.COMPUTED).size());
        Path ref = singleMachine(mlp, dir.resolve("ref"), Mode.TRACE, N, 0, true);
        assertSameArrays(plan, assemble(store, dir.resolve("a1")), ref);
        assertTrue(lines.get(0).contains("6 computed, 0 recomputed (corrupt), 0 skipped"), lines.get(0));
        assertEquals("assemble: ntk4j kernel assemble " + store, lines.get(lines.size() - 1));

        // the same command again: every shard is valid, nothing is computed
        SparkKernel.Result again = SparkKernel.run(spark(), c, s -> {});
        assertEquals(6, again.shards(ShardTask.Action.SKIPPED).size());
        // without --shard-size, on a cluster of another size: the store's plan (its shard size) is kept
        SparkKernel.Result resized =
                SparkKernel.run(spark(), c.withShardSize(null).withDryRun(false, 64), s -> {});
        assertEquals(plan.id(), resized.plan().id());
        assertEquals(6, resized.shards(ShardTask.Action.SKIPPED).size());

        // lose one shard (sidecar and files) and corrupt one value of another: only those two are computed
        TileRange lost = plan.shards().get(1);
        TileRange bad = plan.shards().get(4);
        Path shards = store.resolve("shards");
        Files.delete(shards.resolve(lost.name() + ".json"));
        Path npy = shards.resolve(bad.name()).resolve("ntk.npy");
        byte[] b = Files.readAllBytes(npy);
        b[b.length - 3] ^= 0x10;
        Files.write(npy, b);
        SparkKernel.Result third = SparkKernel.run(spark(), c, s -> {});
        assertEquals(List.of(lost.name()), third.shards(ShardTask.Action.COMPUTED));
        assertEquals(List.of(bad.name()), third.shards(ShardTask.Action.RECOMPUTED));
        assertEquals(4, third.shards(ShardTask.Action.SKIPPED).size());
        String reason = third.outcomes().stream()
                .filter(o -> o.action() == ShardTask.Action.RECOMPUTED)
                .findFirst()
                .orElseThrow()
                .reason();
        assertTrue(reason.contains("ntk.npy has sha256"), reason);
        assertSameArrays(plan, assemble(store, dir.resolve("a2")), ref);
    }

    @Test
    void fullKernelWithTestRowsEqualsSingleMachine() throws Exception {
        Path store = dir.resolve("store");
        SparkKernel.Result r = SparkKernel.run(spark(), config(mlp, store, Mode.FULL, M), s -> {});
        assertEquals(6 + 3, r.plan().shards().size()); // Θ(X1,X1) upper triangle + Θ(X2,X1) 1×3
        Path ref = singleMachine(mlp, dir.resolve("ref"), Mode.FULL, N, M, true);
        assertSameArrays(r.plan(), assemble(store, dir.resolve("a")), ref);
    }

    /**
     * Nyström on Spark ({@code --approx nystrom:6}): C, C* and the held-out K_SS as shards, assembled into the features
     * file, equal entry for entry, bit for bit, to the single-machine {@code ntk4j kernel --approx nystrom:6 --tile 4}
     * (float32, uniform landmarks from the seed), with the same held-out error.
     */
    @Test
    void nystromBlocksAssembleToTheSingleMachineFeatures() throws Exception {
        Path store = dir.resolve("store");
        ApproxSpec spec = ApproxSpec.parse("nystrom:6");
        SparkKernelConfig c = SparkKernelConfig.of(
                        mlp.toString(), "mnist", N, store.toUri().toString())
                .withDataRoot(data.toUri().toString())
                .withTest(M)
                .withTile(TILE, 64L << 20)
                .withShardSize(SHARD)
                .withApprox(spec, 10);
        SparkKernel.Result r = SparkKernel.run(spark(), c, s -> {});
        assertEquals(3 + 1 + 1, r.plan().shards().size()); // C's 3 row shards, C*'s 1, K_SS
        Path assembled = dir.resolve("spark.npz");
        ShardAssembler.assemble(
                store, ShardAssembler.Layout.NPZ, assembled, true, false, ApproxJob.shardWriter(data, s -> {}));
        Path whole = dir.resolve("whole.npz");
        KernelRequest request = KernelRequest.builder()
                .model(mlp.toString())
                .dataset("mnist")
                .n(N)
                .test(M)
                .method(Method.AUTO)
                .tile(TILE)
                .build();
        try (NDManager m = NDManager.newBaseManager()) {
            new ApproxJob(
                            KernelJobConfig.builder(request)
                                    .out(whole)
                                    .dataDir(data)
                                    .build(),
                            spec,
                            10,
                            0.05)
                    .run(m, s -> {});
        }
        NpzReader a = new NpzReader(assembled);
        NpzReader b = new NpzReader(whole);
        for (String e : List.of("features", "features_test", "landmarks", "y1", "y2")) {
            assertArrayEquals(b.read(e).shape(), a.read(e).shape(), e);
            assertArrayEquals(b.read(e).data(), a.read(e).data(), e + " differs from the single-machine job");
        }
        String err = "\"relative_frobenius_error\": ";
        String sa = Files.readString(dir.resolve("spark.json"));
        String sb = Files.readString(dir.resolve("whole.json"));
        String va = sa.substring(sa.indexOf(err)).lines().findFirst().orElseThrow();
        assertEquals(sb.substring(sb.indexOf(err)).lines().findFirst().orElseThrow(), va);
    }

    @Test
    void convNetKernelEqualsSingleMachine() throws Exception {
        Path store = dir.resolve("store");
        SparkKernelConfig c = SparkKernelConfig.of(cnn.toString(), "mnist", 16, store.toString())
                .withDataRoot(data.toUri().toString())
                .withMode(Mode.TRACE, true, DataType.FLOAT64)
                .withTile(TILE, 64L << 20)
                .withShardSize(SHARD);
        SparkKernel.Result r = SparkKernel.run(spark(), c, s -> {});
        assertEquals(3, r.plan().shards().size());
        Path ref = singleMachine(cnn, dir.resolve("ref"), Mode.TRACE, 16, 0, true);
        assertSameArrays(r.plan(), assemble(store, dir.resolve("a")), ref);
    }

    @Test
    void paddedImagesKernelEqualsSingleMachine() throws Exception {
        Path model = resource("tiny-cnn32.json", dir);
        Path store = dir.resolve("store");
        SparkKernelConfig c = SparkKernelConfig.of(model.toString(), "mnist", 8, store.toString())
                .withDataRoot(data.toUri().toString())
                .withPad(2)
                .withTest(4)
                .withMode(Mode.FULL, false, DataType.FLOAT64)
                .withTile(TILE, 64L << 20)
                .withShardSize(SHARD);
        SparkKernel.Result r = SparkKernel.run(spark(), c, s -> {});
        assertEquals(2, r.plan().source().pad());
        assertEquals(2, r.plan().shards().size());
        singleMachine(
                KernelRequest.builder()
                        .model(model.toString())
                        .n(8)
                        .test(4)
                        .pad(2)
                        .mode(Mode.FULL),
                dir.resolve("ref"));
        assertSameArrays(r.plan(), assemble(store, dir.resolve("a")), dir.resolve("ref"));
    }

    @Test
    void injectedTaskFailureIsRetriedBySpark() throws Exception {
        Path store = dir.resolve("store");
        Path markers = dir.resolve("markers");
        SparkKernelConfig c = config(mlp, store, Mode.TRACE, 0);
        String victim = "ntk_r000000-000008_c000008-000016";
        LocalSpark.awaitIdle();
        int failedBefore = LocalSpark.FAILURES.size();
        SparkKernel.Result r = SparkKernel.run(spark(), c, s -> {}, new FailAttempts(victim, 1, markers.toString()));
        LocalSpark.awaitIdle();
        List<String> failures = LocalSpark.FAILURES.subList(failedBefore, LocalSpark.FAILURES.size());
        assertEquals(
                1,
                failures.stream()
                        .filter(f -> f.contains("injected failure 1 of shard " + victim))
                        .count(),
                "one failed attempt, then a successful retry: " + failures);
        assertEquals(1, failures.size(), "no other task attempt fails: " + failures);
        assertFalse(Files.exists(markers.resolve(victim + ".failed.1")));
        assertTrue(Files.exists(markers.resolve(victim + ".failed.0")));
        assertEquals(6, r.shards(ShardTask.Action.COMPUTED).size());
        assertTrue(r.shards(ShardTask.Action.COMPUTED).contains(victim));
        assertTrue(new HadoopStore(store.toString(), new org.apache.hadoop.conf.Configuration())
                .invalid(r.plan())
                .isEmpty());
    }

    @Test
    void executorWithoutLibtorchStopsTheJobAtOnceWithOneLine() throws Exception {
        Path store = dir.resolve("store");
        Path markers = dir.resolve("markers");
        SparkKernelConfig c = config(mlp, store, Mode.TRACE, 0);
        spark();
        LocalSpark.awaitIdle();
        int failedBefore = LocalSpark.FAILURES.size();
        UserException e = assertThrows(
                UserException.class, () -> SparkKernel.run(spark(), c, s -> {}, new NoLibtorch(markers.toString())));
        LocalSpark.awaitIdle();
        SparkFixtures.assertOneLine(
                e,
                "libtorch (PyTorch's native library) cannot be loaded on executor",
                "--jars pytorch-native-cpu-2.7.1-linux-x86_64.jar",
                "spark.executorEnv.PYTORCH_LIBRARY_PATH=");
        assertFalse(e.getMessage().contains("Offline mode is enabled"), e.getMessage());
        // no task attempt failed for it (Spark retries failed tasks), and no shard was tried twice
        List<String> failures = LocalSpark.FAILURES.subList(failedBefore, LocalSpark.FAILURES.size());
        assertTrue(
                failures.stream().noneMatch(f -> f.contains("ibtorch") || f.contains("EngineException")),
                failures.toString());
        try (var files = Files.list(markers)) {
            for (Path f : files.toList()) {
                assertEquals(1, Files.readAllLines(f).size(), f.getFileName() + " was attempted more than once");
            }
        }
        ShardPlan plan = ShardPlan.fromJson(Files.readString(store.resolve("plan.json")), "plan.json");
        HadoopStore hs = new HadoopStore(store.toUri().toString(), new org.apache.hadoop.conf.Configuration());
        assertEquals(6, hs.invalid(plan).size(), "no shard was written");
    }

    @Test
    void killedJobResumesComputingOnlyTheMissingShards() throws Exception {
        Path store = dir.resolve("store");
        Path markers = dir.resolve("markers");
        SparkKernelConfig c = config(mlp, store, Mode.TRACE, 0);
        String victim = "ntk_r000008-000016_c000008-000016";
        // this shard fails every attempt: Spark gives up after 4 (local[2,4]) and aborts the job
        UserException e = assertThrows(
                UserException.class,
                () -> SparkKernel.run(
                        spark(), c, s -> {}, new FailAttempts(victim, Integer.MAX_VALUE, markers.toString())));
        SparkFixtures.assertOneLine(e, "injected failure", "re-run the same command");
        LocalSpark.awaitIdle(); // tasks of the aborted job still running finish (and may write their shards)
        HadoopStore hs = new HadoopStore(store.toUri().toString(), new org.apache.hadoop.conf.Configuration());
        ShardPlan plan = ShardPlan.fromJson(Files.readString(store.resolve("plan.json")), "plan.json");
        Set<String> missing = names(hs.invalid(plan));
        assertTrue(missing.contains(victim), missing.toString());
        // the message counts the shards at the abort (tasks still running may add some)
        java.util.regex.Matcher done =
                java.util.regex.Pattern.compile("(\\d) of 6 shards are in").matcher(e.getMessage());
        assertTrue(done.find(), e.getMessage());
        assertTrue(Integer.parseInt(done.group(1)) <= 6 - missing.size(), e.getMessage());
        // what a task killed while copying its shard leaves: a temporary folder, removed by the next run
        Path temp = store.resolve("shards").resolve("." + victim + ".0f3c.tmp");
        Files.createDirectories(temp);
        Files.writeString(temp.resolve("ntk.npy"), "partial");
        List<String> lines = new ArrayList<>();
        SparkKernel.Result r = SparkKernel.run(spark(), c, lines::add);
        assertFalse(Files.exists(temp));
        assertTrue(lines.contains("  removed 1 temporary copies left by killed tasks"), lines.toString());
        assertEquals(missing, new HashSet<>(r.shards(ShardTask.Action.COMPUTED)));
        assertEquals(6 - missing.size(), r.shards(ShardTask.Action.SKIPPED).size());
        assertTrue(hs.invalid(plan).isEmpty());
    }

    @Test
    void badInputIsOneLine() throws Exception {
        // a data root without the dataset
        UserException noData = assertThrows(
                UserException.class,
                () -> SparkKernel.run(
                        spark(),
                        config(mlp, dir.resolve("s0"), Mode.TRACE, 0)
                                .withDataRoot(dir.resolve("nowhere").toUri().toString()),
                        s -> {}));
        SparkFixtures.assertOneLine(noData, "nowhere/mnist", "dataset folder for 'mnist' not found");
        // N beyond the dataset
        UserException tooMany = assertThrows(
                UserException.class,
                () -> SparkKernel.run(
                        spark(),
                        SparkKernelConfig.of(
                                        mlp.toString(),
                                        "mnist",
                                        41,
                                        dir.resolve("s1").toString())
                                .withDataRoot(data.toString()),
                        s -> {}));
        SparkFixtures.assertOneLine(tooMany, "--n 41 exceeds the 40 training images of mnist");
        // weights of another model
        Path w = dir.resolve("wide-weights.npz");
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ModelSpec.resolve(wide.toString()), 0, m)) {
            net.saveParameters(w);
        }
        UserException badWeights = assertThrows(
                UserException.class,
                () -> SparkKernel.run(
                        spark(), config(mlp, dir.resolve("s2"), Mode.TRACE, 0).withWeights(w.toString()), s -> {}));
        SparkFixtures.assertOneLine(badWeights, "wide-weights.npz", "tiny-mlp");
        // a store holding another plan's kernel (another seed), and a shard of another plan among this plan's
        Path store = dir.resolve("store");
        SparkKernelConfig small = SparkKernelConfig.of(mlp.toString(), "mnist", 8, store.toString())
                .withDataRoot(data.toString())
                .withTile(TILE, 64L << 20)
                .withShardSize(SHARD)
                .withMode(Mode.TRACE, false, DataType.FLOAT64);
        SparkKernel.run(spark(), small, s -> {});
        UserException otherPlan =
                assertThrows(UserException.class, () -> SparkKernel.run(spark(), small.withSeed(1), s -> {}));
        SparkFixtures.assertOneLine(otherPlan, "plan.json is another plan", "seed is 0 in the plan but 1 here");
        Path other = dir.resolve("other");
        SparkKernel.run(spark(), small.withSeed(1).withOut(other.toString()), s -> {});
        String name = "ntk_r000000-000008_c000000-000008";
        Files.copy(
                other.resolve("shards").resolve(name + ".json"),
                store.resolve("shards").resolve(name + ".json"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        UserException foreign = assertThrows(UserException.class, () -> SparkKernel.run(spark(), small, s -> {}));
        SparkFixtures.assertOneLine(foreign, name + ".json belongs to plan", "a shard of another kernel");
    }

    @Test
    void weightsAreRecordedAsGivenAndTheirKernelEqualsSingleMachine() throws Exception {
        Path w = dir.resolve("weights.npz");
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ModelSpec.resolve(mlp.toString()), 5, m)) {
            net.saveParameters(w);
        }
        String uri = w.toUri().toString();
        Path store = dir.resolve("store");
        SparkKernelConfig c = SparkKernelConfig.of(mlp.toString(), "mnist", 16, store.toString())
                .withDataRoot(data.toUri().toString())
                .withWeights(uri)
                .withMode(Mode.TRACE, false, DataType.FLOAT64)
                .withTile(TILE, 64L << 20)
                .withShardSize(SHARD);
        SparkKernel.Result r = SparkKernel.run(spark(), c, s -> {});
        assertEquals(uri, r.plan().source().weights());
        assertEquals(3, r.shards(ShardTask.Action.COMPUTED).size());
        // the weights (seed 5), not a fresh initialisation (seed 0): equal to the single-machine job with them
        singleMachine(
                KernelRequest.builder().model(mlp.toString()).weights(w).n(16).mode(Mode.TRACE), dir.resolve("ref"));
        assertSameArrays(r.plan(), assemble(store, dir.resolve("a")), dir.resolve("ref"));
        assertEquals(
                3,
                SparkKernel.run(spark(), c, s -> {})
                        .shards(ShardTask.Action.SKIPPED)
                        .size());
    }

    @Test
    void dryRunPrintsThePlanAndComputesNothing() {
        Path store = dir.resolve("store");
        List<String> lines = new ArrayList<>();
        SparkKernelConfig c = config(mlp, store, Mode.FULL, M).withDryRun(true, 16);
        SparkKernel.Result r = SparkKernel.run(spark(), c, lines::add);
        String all = String.join("\n", lines);
        assertTrue(all.contains("plan " + r.plan().id()), all);
        assertTrue(all.contains("shards: 8×8 samples, 9"), all);
        assertTrue(all.contains("on 16 workers"), all);
        assertTrue(all.contains("timed in a Spark task on executor host"), all);
        assertTrue(all.contains("factors") && all.contains("s per pair"), all);
        assertTrue(all.contains("start-up, not in the estimate: executors start in 0 s (local mode)"), all);
        assertTrue(all.contains("9–16 s there") && all.contains("on 16 with start-up"), all);
        assertFalse(all.contains("task slots:"), "local mode: the slots are the master's: " + all);
        assertTrue(r.outcomes().isEmpty());
        assertFalse(Files.exists(store), "a dry run writes nothing");
        // a dry run plans an N larger than the data here (the cluster's), timing the tile on the images it has
        List<String> big = new ArrayList<>();
        SparkKernelConfig large = SparkKernelConfig.of(mlp.toString(), "mnist", 1000, store.toString())
                .withDataRoot(data.toUri().toString())
                .withTile(TILE, 64L << 20)
                .withShardSize(100)
                .withDryRun(true, 4);
        SparkKernel.Result rl = SparkKernel.run(spark(), large, big::add);
        assertEquals(55, rl.plan().shards().size()); // 10 blocks of 100 per side, upper triangle
        assertTrue(
                String.join("\n", big).contains("N 1000 exceeds the 40 training images of mnist here"), big.toString());
    }
}
