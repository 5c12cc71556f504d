package org.ntk4j.spark;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.TaskContext;
import org.apache.spark.resource.ResourceInformation;
import org.apache.spark.util.CollectionAccumulator;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.shard.ShardComputer;
import org.ntk4j.shard.ShardData;
import org.ntk4j.shard.ShardPlan;
import org.ntk4j.shard.TileRange;

/**
 * One Spark task: one shard of the plan. Skips a shard already in the store with a valid checksum,
 * recomputes a missing or corrupt one on the executor's device (the GPU Spark's resource scheduling
 * assigned to the task, else the CPU) from the rows it reads of the shared dataset, and writes it to
 * the store.
 */
final class ShardTask {
    /**
     * What every task shares (broadcast once): the plan, the weights' bytes, a task's memory, the rows, the store, the
     * Hadoop configuration, a hook the tests inject faults with (null in a real job), and for a Nyström plan the
     * inputs of its landmarks and held-out images (read once by the driver: every shard needs them; null otherwise).
     */
    record Job(
            String planJson,
            byte[] weights,
            long taskMemory,
            HadoopRows rows,
            String out,
            byte[] hadoopConf,
            FailureHook failureHook,
            float[] landmarkInputs,
            float[] holdoutInputs)
            implements Serializable {}

    /** What a task did with its shard. */
    enum Action {
        SKIPPED,
        COMPUTED,
        RECOMPUTED,
        /** Not computed: the executor cannot load libtorch (the outcome's reason says so; the driver fails the job). */
        NO_LIBTORCH
    }

    /** A task's report: the shard, what was done, why (a corrupt shard's reason), its seconds and device. */
    record Outcome(String shard, Action action, String reason, double seconds, String device) implements Serializable {}

    private ShardTask() {}

    /** Per executor JVM: the plan parsed and the spec and weights written to local files, by plan id. */
    private static final Map<String, Local> LOCAL = new ConcurrentHashMap<>();

    private record Local(ShardPlan plan, Path weights) {}

    /**
     * Runs the task. An executor without libtorch does not fail the task (Spark would retry it, with the same
     * result, {@code spark.task.maxFailures} times): the task adds the one-line reason to {@code noLibtorch} and
     * returns {@link Action#NO_LIBTORCH}, and the driver stops the job on the first such report.
     */
    static Outcome run(Job job, ShardRef ref, CollectionAccumulator<String> noLibtorch) {
        long t0 = System.nanoTime();
        Local local = local(job);
        ShardPlan plan = local.plan();
        TileRange r = ref.range();
        HadoopStore store = new HadoopStore(job.out(), HadoopConf.fromBytes(job.hadoopConf()));
        String problem = store.check(plan, r);
        if (problem == null) {
            return new Outcome(r.name(), Action.SKIPPED, null, (System.nanoTime() - t0) / 1e9, null);
        }
        try {
            if (job.failureHook() != null) {
                job.failureHook().before(r.name());
            }
            ClusterChecks.loadLibtorch();
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            if (!ClusterChecks.isLibtorchMissing(e)) {
                throw e;
            }
            String line = ClusterChecks.libtorchMissingOnExecutor(host(), e);
            noLibtorch.add(line);
            return new Outcome(r.name(), Action.NO_LIBTORCH, line, (System.nanoTime() - t0) / 1e9, null);
        }
        Device device = device();
        ShardData data = compute(job, local, r, device);
        try {
            store.write(plan, data);
        } finally {
            data.release();
        }
        Action a = problem.equals(HadoopStore.MISSING) ? Action.COMPUTED : Action.RECOMPUTED;
        return new Outcome(
                r.name(),
                a,
                a == Action.RECOMPUTED ? problem : null,
                (System.nanoTime() - t0) / 1e9,
                device.toString());
    }

    /** This executor's host name (for messages). */
    static String host() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "(unknown host)";
        }
    }

    /** The GPU Spark assigned to this task (spark.task.resource.gpu.amount), else the CPU. */
    static Device device() {
        TaskContext tc = TaskContext.get();
        return deviceFor(tc == null ? Map.of() : tc.resourcesJMap());
    }

    /** The first GPU address among a task's resources ({@code gpu} → {@code ["1"]} is gpu(1)), else the CPU. */
    static Device deviceFor(Map<String, ResourceInformation> resources) {
        ResourceInformation gpu = resources.get("gpu");
        if (gpu != null && gpu.addresses().length > 0) {
            String a = gpu.addresses()[0].trim();
            try {
                return Device.gpu(Integer.parseInt(a));
            } catch (NumberFormatException e) {
                throw new IllegalStateException(
                        "GPU address '" + a + "' from Spark's resource discovery is not a"
                                + " CUDA device index (the discovery script must print the indices, as getGpusResources.sh"
                                + " does)",
                        e);
            }
        }
        return Device.cpu();
    }

    /**
     * One shard computation at a time per JVM: DJL's PyTorch engine allows one gradient collector per process
     * (an executor with several task slots runs its tasks one block after the other, each on all of PyTorch's
     * intra-op threads; reading rows and writing shards overlap).
     */
    static final Object ENGINE = new Object();

    /** The shard's arrays: the block of Θ (and of each Θ_l) on the plan's tile grid, from the shard's rows only. */
    static ShardData compute(Job job, Local local, TileRange r, Device device) {
        ShardPlan plan = local.plan();
        String k = r.kernel();
        Integer pad = plan.source().pad();
        float[] rows;
        float[] cols;
        if (TileRange.HOLDOUT.equals(k)) {
            int h = plan.rows(k);
            rows = slice(job.holdoutInputs(), h, r.rowStart(), r.rowEnd());
            cols = slice(job.holdoutInputs(), h, r.colStart(), r.colEnd());
        } else {
            boolean train = TileRange.TRAIN.equals(k);
            rows = padded(job.rows().rows(train ? Split.TRAIN : Split.TEST, r.rowStart(), r.rows()), pad)
                    .features();
            cols = plan.columnImages(k) != null
                    ? slice(job.landmarkInputs(), plan.cols(k), r.colStart(), r.colEnd())
                    : padded(job.rows().rows(Split.TRAIN, r.colStart(), r.cols()), pad)
                            .features();
        }
        synchronized (ENGINE) {
            try (NDManager m = NDManager.newBaseManager(device);
                    ShardComputer c = ShardComputer.open(plan, local.weights(), null, m)) {
                return c.memory(job.taskMemory()).compute(r, rows, cols);
            }
        }
    }

    /** Samples {@code [from, to)} of {@code count} samples' inputs laid end to end. */
    private static float[] slice(float[] inputs, int count, int from, int to) {
        int dim = inputs.length / count;
        return java.util.Arrays.copyOfRange(inputs, from * dim, to * dim);
    }

    /**
     * The inputs of the training images {@code images} (increasing), padded as the plan says, read through {@code
     * rows} in windows of {@value #WINDOW} samples (one pass; a window is read only when it holds one of them).
     */
    static float[] inputs(HadoopRows rows, int[] images, Integer pad) {
        int size = rows.size(Split.TRAIN);
        float[] out = null;
        int i = 0;
        while (i < images.length) {
            int from = images[i] / WINDOW * WINDOW;
            int count = Math.min(WINDOW, size - from);
            LabelledSet window = rows.rows(Split.TRAIN, from, count);
            int j = i;
            while (j < images.length && images[j] < from + count) {
                j++;
            }
            int[] local = new int[j - i];
            for (int a = 0; a < local.length; a++) {
                local[a] = images[i + a] - from;
            }
            LabelledSet picked = padded(window.subset(local), pad);
            int dim = picked.featureDim();
            if (out == null) {
                out = new float[images.length * dim];
            }
            System.arraycopy(picked.features(), 0, out, i * dim, local.length * dim);
            i = j;
        }
        return out;
    }

    /** Samples per read of {@link #inputs}. */
    static final int WINDOW = 8192;

    /** The samples zero-padded as the plan says ({@code ntk4j kernel --pad}), as the single-machine job pads them. */
    static LabelledSet padded(LabelledSet d, Integer pad) {
        return pad == null ? d : Preprocess.pad(d, pad);
    }

    /** The weights of the job as a local file of this JVM (null without weights). */
    static Path localWeightsOf(Job job, ShardPlan plan) {
        return local(job).weights();
    }

    private static Local local(Job job) {
        ShardPlan plan = ShardPlan.fromJson(job.planJson(), "the broadcast plan");
        return LOCAL.computeIfAbsent(plan.id(), id -> {
            if (job.weights() == null) {
                return new Local(plan, null);
            }
            try {
                Path w = Files.createTempFile("ntk4j-spark-" + id, ".npz");
                w.toFile().deleteOnExit();
                Files.write(w, job.weights());
                return new Local(plan, w);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the weights to a local temporary file", e);
            }
        });
    }

    /** Called by a task before it computes a shard: the tests' way to make a task fail (never set in a real job). */
    interface FailureHook extends Serializable {
        /** Runs before the task computes {@code shard} (its name); throws to fail the task. */
        void before(String shard);
    }
}
