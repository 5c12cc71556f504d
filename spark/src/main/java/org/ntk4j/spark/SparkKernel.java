package org.ntk4j.spark;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.api.java.JavaFutureAction;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.CollectionAccumulator;
import org.ntk4j.UserException;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Split;
import org.ntk4j.shard.ShardComputer;
import org.ntk4j.shard.ShardData;
import org.ntk4j.shard.ShardPlan;
import org.ntk4j.shard.ShardPlanner;
import org.ntk4j.shard.TileRange;
import org.ntk4j.util.Machine;

/**
 * The empirical NTK of {@code ntk4j kernel} computed on an Apache Spark cluster, one shard per task.
 *
 * <p>The driver checks the data and the weights, plans the shards from N, M, the mode and the per-task
 * memory ({@link ShardPlan#plan}: a tile grid and square shards of whole tiles; Θ(X1, X1)'s upper
 * triangle, Θ(X2, X1) whole), writes {@code plan.json} to the output store and broadcasts the plan and
 * the weights. Each task ({@link ShardTask}) reads the rows of its shard from the shared dataset through
 * Hadoop's FileSystem ({@link HadoopRows}: {@code file://}, {@code hdfs://}, {@code s3a://}), computes
 * the block on its executor's device (a GPU assigned by Spark's resource scheduling, else the CPU) with
 * the structured engine on the plan's tile grid, so that the block equals the same block of the
 * single-machine kernel bit for bit, and writes the shard with its SHA-256 ({@link HadoopStore}).
 *
 * <p>Resume: re-running the same command skips every shard already in the store with a valid checksum;
 * a missing shard (a lost executor, a killed job) is computed, a corrupt one recomputed. A failed task is
 * retried by Spark ({@code spark.task.maxFailures}). {@code ntk4j kernel assemble} joins the shards.
 *
 * <pre>{@code
 * SparkKernelConfig c = SparkKernelConfig.of("mlp-quickstart", "mnist", 60000, "hdfs:///ntk/mnist-60k")
 *         .withDataRoot("hdfs:///ntk4j/data");
 * SparkKernel.Result r = SparkKernel.run(spark, c);
 * }</pre>
 */
public final class SparkKernel {
    private SparkKernel() {}

    /**
     * What a run did.
     *
     * @param plan the plan
     * @param outcomes one per shard: skipped (valid in the store), computed, or recomputed (corrupt), with seconds
     * @param dryRun the lines of a dry run (empty otherwise)
     * @param seconds wall time of the run
     */
    public record Result(ShardPlan plan, List<ShardTask.Outcome> outcomes, List<String> dryRun, double seconds) {
        /** Names of the shards with the given action. */
        public List<String> shards(ShardTask.Action action) {
            return outcomes.stream()
                    .filter(o -> o.action() == action)
                    .map(ShardTask.Outcome::shard)
                    .toList();
        }
    }

    /** {@code spark-submit --class org.ntk4j.spark.SparkKernel ntk4j-spark-all.jar --model ... --out ...}. */
    public static void main(String[] args) {
        SparkArgs.Parsed p;
        try {
            p = SparkArgs.parse(args);
        } catch (UserException e) {
            System.err.println("error: " + SparkArgs.message(e));
            System.exit(2);
            return;
        }
        if (p.help()) {
            System.out.println(SparkArgs.USAGE);
            return;
        }
        // before Spark starts: a driver JVM without Spark's opens dies in SparkContext's constructor, one without
        // libtorch later in the planning; both are one line here
        List<String> opens = Runtime.version().feature() >= 16 ? ClusterChecks.missingOpens() : List.of();
        if (!opens.isEmpty()) {
            System.err.println("error: " + ClusterChecks.opensMissing(opens));
            System.exit(2);
            return;
        }
        try {
            ClusterChecks.requireLibtorchOnDriver();
        } catch (UserException e) {
            System.err.println("error: " + SparkArgs.message(e));
            System.exit(2);
            return;
        }
        SparkSession spark;
        try {
            spark = SparkSession.builder().appName("ntk4j kernel").getOrCreate();
        } catch (RuntimeException e) { // a master URL nothing answers at, a port taken...
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            System.err.println("error: cannot start the Spark application: "
                    + why.lines().findFirst().orElse(why));
            System.exit(2);
            return;
        }
        int status = 0;
        try {
            run(spark, p.config(), System.out::println);
        } catch (UserException e) {
            System.err.println("error: " + SparkArgs.message(e));
            status = 2;
        } finally {
            spark.stop();
        }
        if (status != 0) {
            System.exit(status);
        }
    }

    /** Runs the job on {@code spark}, printing its summary to standard output. */
    public static Result run(SparkSession spark, SparkKernelConfig c) {
        return run(spark, c, System.out::println);
    }

    /** Runs the job on {@code spark}; {@code print} receives the summary (or dry run) lines. */
    public static Result run(SparkSession spark, SparkKernelConfig c, Consumer<String> print) {
        return run(spark, c, print, null);
    }

    /** As {@link #run(SparkSession, SparkKernelConfig, Consumer)}, the tasks calling {@code hook} (tests' faults). */
    static Result run(SparkSession spark, SparkKernelConfig c, Consumer<String> print, ShardTask.FailureHook hook) {
        ClusterChecks.requireLibtorchOnDriver();
        TaskSlots.Watch watch = new TaskSlots.Watch();
        spark.sparkContext().addSparkListener(watch);
        try {
            return run(spark, c, print, hook, watch);
        } catch (RuntimeException e) { // "Cannot call methods on a stopped SparkContext", a cancelled broadcast...
            if (e instanceof UserException || !spark.sparkContext().isStopped()) {
                throw e;
            }
            throw new UserException(stopped(watch), e);
        } finally {
            spark.sparkContext().removeSparkListener(watch);
        }
    }

    /** The one line for a SparkContext the cluster stopped (the master removes an application whose executors fail). */
    private static String stopped(TaskSlots.Watch watch) {
        return "the Spark application was stopped by the cluster"
                + (watch.lastLoss() == null ? "" : " (" + watch.lastLoss() + ")")
                + ": it could not start or keep executors (see the cluster's web UI and the executors' logs)";
    }

    private static Result run(
            SparkSession spark,
            SparkKernelConfig c,
            Consumer<String> print,
            ShardTask.FailureHook hook,
            TaskSlots.Watch watch) {
        long t0 = System.nanoTime();
        JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        Configuration hconf = jsc.hadoopConfiguration();
        HadoopRows rows = new HadoopRows(c.dataRoot(), c.dataset(), hconf);
        int available = rows.size(Split.TRAIN);
        if (!c.dryRun()) {
            checkSizes(c, rows);
        }
        Path weights = localWeights(c.weights(), hconf);
        // the task slots: without --shard-size the plan has at least 4 shards per slot (no long idle tail); a
        // re-run keeps the shard size of the store's plan, whatever the cluster's size is now
        TaskSlots.Found found = TaskSlots.await(spark.sparkContext());
        if (found.line() != null) {
            print.accept(found.line());
        }
        if (c.dryRun() && found.line() != null && found.executors() == 0) {
            throw new UserException("no executor registered with this application in " + Math.round(found.waited())
                    + " s (spark.scheduler.maxRegisteredResourcesWaitingTime)"
                    + (watch.lastLoss() == null ? "" : "; " + watch.lastLoss())
                    + ": the cluster cannot start executors for it (too few free cores or too little memory on the"
                    + " workers, or executors that exit at start: see the cluster's web UI and the executors' logs)");
        }
        int workers = c.executors() != null ? c.executors() : found.slots();
        HadoopStore store = new HadoopStore(c.out(), hconf);
        Integer side = c.shardSize() != null ? c.shardSize() : store.existingShardSize();
        ShardPlan plan;
        try (NDManager m = NDManager.newBaseManager(Device.cpu())) {
            plan = ShardPlan.plan(c.request().toBuilder().weights(weights).build(), c.approx(), side, workers, null, m);
        }
        if (c.weights() != null) {
            plan = weightsAsGiven(plan, c.weights());
        }
        byte[] weightBytes = readAll(weights);
        ShardPlan.Approx approx = plan.approx();
        Integer pad = plan.source().pad();
        ShardTask.Job job = new ShardTask.Job(
                plan.toJson(),
                weightBytes,
                c.taskMemory(),
                rows,
                c.out(),
                HadoopConf.toBytes(hconf),
                hook,
                approx == null || c.dryRun() ? null : ShardTask.inputs(rows, approx.landmarks(), pad),
                approx == null || c.dryRun() ? null : ShardTask.inputs(rows, approx.holdout(), pad));
        if (c.dryRun()) {
            List<String> lines = dryRun(spark, c, job, plan, workers, available);
            lines.forEach(print);
            return new Result(plan, List.of(), lines, (System.nanoTime() - t0) / 1e9);
        }
        store.preparePlan(plan);
        Broadcast<ShardTask.Job> b = jsc.broadcast(job);
        List<ShardRef> refs = new ArrayList<>();
        plan.shards().forEach(r -> refs.add(ShardRef.of(r)));
        CollectionAccumulator<String> noLibtorch = spark.sparkContext().collectionAccumulator("ntk4j: no libtorch");
        List<ShardTask.Outcome> outcomes;
        try {
            outcomes = collectUnlessNoLibtorch(
                    jsc.parallelize(refs, Math.max(1, refs.size()))
                            .map(ref -> ShardTask.run(b.value(), ref, noLibtorch)),
                    noLibtorch);
        } catch (UserException e) {
            throw e;
        } catch (Exception e) { // SparkException is checked, though Java does not see it declared
            throw failed(e, store, plan, watch);
        } finally {
            if (!jsc.sc().isStopped()) {
                b.destroy();
            }
        }
        Result res = new Result(plan, outcomes, List.of(), (System.nanoTime() - t0) / 1e9);
        summary(res, c).forEach(print);
        if (store.tempsRemoved() > 0) {
            print.accept("  removed " + store.tempsRemoved() + " temporary copies left by killed tasks");
        }
        return res;
    }

    /** A dry run's lines: the plan, the tile timed on an executor, the estimate with and without start-up. */
    private static List<String> dryRun(
            SparkSession spark, SparkKernelConfig c, ShardTask.Job job, ShardPlan plan, int workers, int available) {
        TimedTile timed = timeTileOnExecutor(JavaSparkContext.fromSparkContext(spark.sparkContext()), job, plan);
        ShardPlanner.TileTiming t = timed.timing();
        ShardPlanner.DryRun d = ShardPlanner.dryRun(plan, t, workers, SparkArgs::flag);
        List<String> lines = new ArrayList<>(d.summary());
        lines.add(startUp(
                plan, t, workers, timed.libtorchSeconds(), spark.sparkContext().isLocal()));
        lines.addAll(d.shards());
        if (c.n() > available) {
            lines.add("(N " + c.n() + " exceeds the " + available + " training images of " + c.dataset()
                    + " here: planned anyway, the timed tile cycles through them)");
        }
        lines.add("(\"this machine\" is the executor that ran the timing task, on " + t.device()
                + "; --executors K sets the cluster's task slots, here " + workers + ")");
        return lines;
    }

    /**
     * The RDD's elements, unless a task reports an executor without libtorch: then the job is cancelled at the first
     * report and its one line thrown (the tasks do not fail, so that Spark does not retry them for nothing).
     */
    static <T> List<T> collectUnlessNoLibtorch(JavaRDD<T> rdd, CollectionAccumulator<String> noLibtorch)
            throws Exception {
        JavaFutureAction<List<T>> f = rdd.collectAsync();
        List<T> out = null;
        while (out == null) {
            try {
                out = f.get(200, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (!noLibtorch.value().isEmpty()) {
                    f.cancel(true);
                    break;
                }
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception x ? x : e;
            }
        }
        if (!noLibtorch.value().isEmpty()) {
            throw new UserException(noLibtorch.value().get(0));
        }
        return out;
    }

    /** The dry run's start-up line: executors starting and their first libtorch load, which the estimate leaves out. */
    static String startUp(ShardPlan plan, ShardPlanner.TileTiming t, int workers, double libtorch, boolean local) {
        double wall = ShardPlanner.estimate(plan, t, workers).wallSeconds();
        double start = local ? 0 : TaskSlots.EXECUTOR_START_SECONDS;
        // the timing executor's own first load when it had one; else the measured upper end (0 in local mode, where
        // the driver's JVM, which loaded libtorch to plan, runs the tasks)
        double load = libtorch > 0 ? libtorch : local ? 0 : TaskSlots.LIBTORCH_LOAD_SECONDS;
        return String.format(
                Locale.ROOT,
                "start-up, not in the estimate: executors start in %s and load libtorch once each (%s; measured on"
                        + " a Spark 3.5.7 standalone cluster, one master and two workers): %s on %d with start-up",
                local ? "0 s (local mode)" : TaskSlots.EXECUTOR_START,
                libtorch > 0
                        ? String.format(
                                Locale.ROOT,
                                "%.1f s on the timing executor here, %s there",
                                libtorch,
                                TaskSlots.LIBTORCH_LOAD)
                        : TaskSlots.LIBTORCH_LOAD + " there, already loaded here",
                ShardPlanner.duration(wall + start + load),
                workers);
    }

    private static List<String> summary(Result r, SparkKernelConfig c) {
        List<String> out = new ArrayList<>();
        int computed = r.shards(ShardTask.Action.COMPUTED).size();
        int recomputed = r.shards(ShardTask.Action.RECOMPUTED).size();
        int skipped = r.shards(ShardTask.Action.SKIPPED).size();
        double taskSeconds = r.outcomes().stream()
                .filter(o -> o.action() != ShardTask.Action.SKIPPED)
                .mapToDouble(ShardTask.Outcome::seconds)
                .sum();
        out.add(String.format(
                Locale.ROOT,
                "%s of %d %s samples%s (%s, plan %s): %d shards, %d computed, %d recomputed (corrupt), %d skipped"
                        + " (valid) in %.1f s (%.1f s of tasks) -> %s",
                r.plan().approx() != null
                        ? "Nyström blocks (" + r.plan().approx().spec() + ")"
                        : "NTK " + ShardPlan.name(r.plan().mode()),
                r.plan().n(),
                c.dataset(),
                r.plan().test() > 0 ? " and " + r.plan().test() + " test samples" : "",
                ShardPlan.name(r.plan().dtype()),
                r.plan().id(),
                r.outcomes().size(),
                computed,
                recomputed,
                skipped,
                r.seconds(),
                taskSeconds,
                c.out()));
        for (ShardTask.Outcome o : r.outcomes()) {
            if (o.action() == ShardTask.Action.RECOMPUTED) {
                out.add("  recomputed " + o.shard() + ": " + o.reason());
            }
        }
        org.apache.hadoop.fs.Path o = new org.apache.hadoop.fs.Path(c.out());
        String scheme = o.toUri().getScheme();
        if (r.plan().approx() != null) {
            out.add("the features: ntk4j kernel assemble DIR --data-dir D (D holding " + c.dataset()
                    + "/ for the labels)");
        }
        if (scheme == null || scheme.equals("file")) {
            out.add("assemble: ntk4j kernel assemble "
                    + (scheme == null ? c.out() : o.toUri().getPath()));
        } else {
            out.add("assemble: copy the store to a local folder (hdfs dfs -get " + c.out()
                    + " DIR, or aws s3 cp --recursive), then: ntk4j kernel assemble DIR");
        }
        return out;
    }

    /** A failed Spark job as one line: the task's own one-line error, else what failed and how to resume. */
    private static RuntimeException failed(Exception e, HadoopStore store, ShardPlan plan, TaskSlots.Watch watch) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UserException u) {
                return new UserException(SparkArgs.message(u), e);
            }
        }
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        String why = root.getMessage() == null ? root.getClass().getName() : root.getMessage();
        why = why.lines().findFirst().orElse(why);
        String first =
                e.getMessage() == null ? "" : e.getMessage().lines().findFirst().orElse("");
        int done = store.countValid(plan);
        return new UserException(
                "the Spark job failed (" + first.replaceAll(", most recent failure.*", "")
                        + ": " + why + (watch.lastLoss() == null ? "" : "; " + watch.lastLoss()) + "); " + done + " of "
                        + plan.shards().size() + " shards are in " + store.root()
                        + ": re-run the same command to compute the rest",
                e);
    }

    /** The one-line errors of {@code ntk4j kernel} for N and M larger than the dataset, checked on the driver. */
    static void checkSizes(SparkKernelConfig c, HadoopRows rows) {
        int train = rows.size(Split.TRAIN);
        if (c.n() > train) {
            throw new UserException("--n " + c.n() + " exceeds the " + train + " training images of " + c.dataset());
        }
        if (c.test() > 0) {
            int test = rows.size(Split.TEST);
            if (c.test() > test) {
                throw new UserException(
                        "--test " + c.test() + " exceeds the " + test + " test images of " + c.dataset());
            }
        }
    }

    /**
     * The weights as a file on the driver: a local path (or {@code file:} URI) as it is; another file system's
     * ({@code hdfs://}, {@code s3a://}) copied once to a local folder named after the URI, so that the plan, which
     * records the path, is the same at every re-run.
     */
    static Path localWeights(String weights, Configuration conf) {
        if (weights == null) {
            return null;
        }
        org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(weights);
        String scheme = p.toUri().getScheme();
        if (scheme == null || scheme.equals("file")) {
            Path local = scheme == null ? Path.of(weights) : Path.of(p.toUri());
            if (!Files.isRegularFile(local)) {
                throw new UserException(weights + ": weights file not found");
            }
            return local;
        }
        try {
            FileSystem fs = p.getFileSystem(conf);
            if (!fs.exists(p)) {
                throw new UserException(weights + ": weights file not found");
            }
            String key =
                    ShardHash.sha256(weights.getBytes(StandardCharsets.UTF_8)).substring(0, 16);
            Path dir = Path.of(System.getProperty("java.io.tmpdir"), "ntk4j-spark-weights", key);
            Files.createDirectories(dir);
            Path local = dir.resolve(p.getName());
            Path tmp = Files.createTempFile(dir, "download", ".tmp");
            try (InputStream in = fs.open(p)) {
                Files.copy(in, tmp, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            Files.move(tmp, local, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            return local;
        } catch (IOException e) {
            throw new UserException(weights + ": cannot read the weights (" + e.getMessage() + ")", e);
        }
    }

    /**
     * The plan with the weights recorded as the user gave them (a URI), not as the local copy the driver read
     * (whose folder may differ at the next run, e.g. a YARN container's temporary directory): the plan, and so
     * the store, stays the same for the same command. The weights' SHA-256 is unchanged; the id is recomputed by
     * {@link ShardPlan#withId()} and checked by reading the plan back ({@link ShardPlan#fromJson} verifies it).
     */
    static ShardPlan weightsAsGiven(ShardPlan p, String weights) {
        return ShardPlan.fromJson(p.withWeightsAsGiven(weights).toJson(), "the plan with weights " + weights);
    }

    private static byte[] readAll(Path p) {
        if (p == null) {
            return null;
        }
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A tile pair timed in a task: seconds per tile's factors and per pair, the block's, and where it ran. */
    record TaskTiming(
            double factorSeconds,
            double pairSeconds,
            double seconds,
            int threads,
            double busy,
            double loadAverage,
            String device,
            String host,
            double libtorchSeconds)
            implements java.io.Serializable {}

    /** The timed tile, and the seconds the timing executor took to load libtorch first (0: loaded before). */
    record TimedTile(ShardPlanner.TileTiming timing, double libtorchSeconds) {}

    /**
     * One tile pair timed in a Spark task (on an executor's device, as the shards will run): rows 0:T × columns
     * T:2T of Θ(X1, X1) (0:T × 0:T when N ≤ T) of the dataset, computed twice, the second run reported.
     */
    static TimedTile timeTileOnExecutor(JavaSparkContext jsc, ShardTask.Job job, ShardPlan plan) {
        Broadcast<ShardTask.Job> b = null;
        try {
            b = jsc.broadcast(job);
            Broadcast<ShardTask.Job> bc = b;
            CollectionAccumulator<String> noLibtorch = jsc.sc().collectionAccumulator("ntk4j: no libtorch");
            TaskTiming v = collectUnlessNoLibtorch(
                            jsc.parallelize(List.of(0), 1).map(x -> timeTile(bc.value(), noLibtorch)), noLibtorch)
                    .get(0);
            int t = plan.tile();
            boolean two = plan.n() > t;
            int cols = two ? Math.min(plan.n(), 2 * t) - t : Math.min(plan.n(), t);
            return new TimedTile(
                    new ShardPlanner.TileTiming(
                            t,
                            Math.min(plan.n(), t),
                            cols,
                            v.factorSeconds(),
                            v.pairSeconds(),
                            v.seconds(),
                            v.device(),
                            v.threads(),
                            v.busy(),
                            v.loadAverage(),
                            "timed in a Spark task on executor host " + v.host()),
                    v.libtorchSeconds());
        } catch (UserException e) {
            throw e;
        } catch (Exception e) { // SparkException is checked, though Java does not see it declared
            for (Throwable x = e; x != null; x = x.getCause()) {
                if (x instanceof UserException u) {
                    throw new UserException(SparkArgs.message(u), e);
                }
            }
            throw new UserException(
                    "timing a tile in a Spark task failed: "
                            + (e.getMessage() == null
                                    ? e.toString()
                                    : e.getMessage().lines().findFirst().orElse("")),
                    e);
        } finally {
            if (b != null && !jsc.sc().isStopped()) {
                b.destroy();
            }
        }
    }

    private static TaskTiming timeTile(ShardTask.Job job, CollectionAccumulator<String> noLibtorch) {
        double libtorch;
        try {
            libtorch = ClusterChecks.loadLibtorch();
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            if (!ClusterChecks.isLibtorchMissing(e)) {
                throw e;
            }
            noLibtorch.add(ClusterChecks.libtorchMissingOnExecutor(ShardTask.host(), e));
            return null;
        }
        ShardPlan plan = ShardPlan.fromJson(job.planJson(), "the broadcast plan");
        int t = plan.tile();
        boolean two = plan.n() > t;
        TileRange range = new TileRange(
                TileRange.TRAIN, 0, Math.min(plan.n(), t), two ? t : 0, two ? Math.min(plan.n(), 2 * t) : plan.n());
        // the dataset's first images, cycled when a dry run plans more than it holds (timing depends on shapes)
        int have = Math.min(job.rows().size(Split.TRAIN), range.colEnd());
        LabelledSet first = ShardTask.padded(
                job.rows().rows(Split.TRAIN, 0, have), plan.source().pad());
        LabelledSet rows = first.subset(cycle(range.rowStart(), range.rows(), have));
        LabelledSet cols = first.subset(cycle(range.colStart(), range.cols(), have));
        Device device = ShardTask.device();
        Path w = ShardTask.localWeightsOf(job, plan);
        double[] out = new double[4];
        int threads = Machine.engineThreads();
        synchronized (ShardTask.ENGINE) {
            try (NDManager m = NDManager.newBaseManager(device);
                    ShardComputer c = ShardComputer.open(plan, w, null, m)) {
                c.memory(job.taskMemory());
                for (int rep = 0; rep < 2; rep++) {
                    long cpu0 = Machine.processCpuNanos();
                    long wall0 = System.nanoTime();
                    ShardData d = c.compute(range, rows.features(), cols.features());
                    long cpu = Machine.processCpuNanos() - cpu0;
                    // the share of its threads' CPU the block got (below 1 on a loaded machine; 1 on a GPU)
                    out[3] = cpu0 < 0 || device.isGpu()
                            ? 1
                            : Math.max(1e-3, Math.min(1, cpu / ((System.nanoTime() - wall0) * (double) threads)));
                    out[0] = d.timings().get("factors") / (two ? 2 : 1);
                    out[1] = d.timings().get("contraction") + d.timings().get("host");
                    out[2] = d.seconds();
                    d.release();
                }
            }
        }
        double load = Machine.loadAverage();
        return new TaskTiming(
                out[0], out[1], out[2], threads, out[3], load, device.toString(), ShardTask.host(), libtorch);
    }

    private static int[] cycle(int from, int count, int have) {
        int[] idx = new int[count];
        for (int i = 0; i < count; i++) {
            idx[i] = (from + i) % have;
        }
        return idx;
    }
}
