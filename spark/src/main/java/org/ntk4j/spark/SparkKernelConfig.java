package org.ntk4j.spark;

import ai.djl.ndarray.types.DataType;
import java.util.function.UnaryOperator;
import org.ntk4j.OptionException;
import org.ntk4j.approx.ApproxSpec;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.request.KernelOption;
import org.ntk4j.request.KernelRequest;
import org.ntk4j.shard.ShardPlan;

/**
 * What a {@link SparkKernel} job computes: the {@link KernelRequest} of {@code ntk4j kernel} (model, seed, dataset,
 * N, test M, pad, mode, per-layer, dtype, tile; its memory budget is one task's), its weights as the user gave
 * them, and where the cluster reads and writes.
 *
 * @param request the kernel; its weights are read from {@code weights} on the driver (null here), its memory
 *     budget is that of one task's tiles and block (it decides the tile)
 * @param weights weights.npz of a run (a Hadoop URI or a local path, read on the driver and broadcast); null =
 *     fresh initialisation from the seed
 * @param out the shard store: a folder URI ({@code file://}, {@code hdfs://}, {@code s3a://}) or local path
 * @param dataRoot the folder URI holding {@code <dataset>/} (as the core's data directory; {@code mnist-subset}
 *     and named synthetic specs need none)
 * @param shardSize rows (and columns) per shard, rounded up to whole tiles (null: the largest whose arrays fit
 *     half the task memory)
 * @param dryRun print the plan and an estimated time, compute nothing
 * @param executors task slots of the cluster the dry run estimates for (null: the running context's)
 * @param approx the Nyström approximation whose exact blocks the shards are ({@code --approx nystrom:M}); null =
 *     the exact kernel
 */
public record SparkKernelConfig(
        KernelRequest request,
        String weights,
        String out,
        String dataRoot,
        Integer shardSize,
        boolean dryRun,
        Integer executors,
        ShardPlan.ApproxRequest approx) {
    /** Default task memory: 2 GiB. */
    public static final long DEFAULT_TASK_MEMORY = 2L << 30;

    public SparkKernelConfig {
        if (request == null || out == null) {
            throw new OptionException(
                    KernelOption.MODEL, ", ", KernelOption.DATASET, " and ", KernelOption.OUT, " are required");
        }
        if (shardSize != null && shardSize < 1) {
            throw new OptionException(KernelOption.SHARD_SIZE, " must be >= 1 (got " + shardSize + ")");
        }
        if (executors != null && executors < 1) {
            throw new OptionException(SparkArgs.Option.EXECUTORS, " must be >= 1 (got " + executors + ")");
        }
    }

    /** A job with the defaults of {@code ntk4j kernel} (seed 0, trace, float32, 2 GiB per task). */
    public static SparkKernelConfig of(String model, String dataset, int n, String out) {
        return new SparkKernelConfig(
                KernelRequest.builder()
                        .model(model)
                        .dataset(dataset)
                        .n(n)
                        .memory(DEFAULT_TASK_MEMORY)
                        .build(),
                null,
                out,
                null,
                null,
                false,
                null,
                null);
    }

    public String model() {
        return request.model();
    }

    public long seed() {
        return request.seed();
    }

    public String dataset() {
        return request.samples().dataset();
    }

    public int n() {
        return request.samples().n();
    }

    public int test() {
        return request.samples().test();
    }

    public Integer pad() {
        return request.samples().pad();
    }

    public Mode mode() {
        return request.options().mode();
    }

    public boolean perLayer() {
        return request.options().perLayer();
    }

    public DataType dtype() {
        return request.dtype();
    }

    /** Memory budget of one task's tiles and block, in bytes (decides the tile). */
    public long taskMemory() {
        return request.options().memoryBytes();
    }

    /** Samples per tile, fixed (null: the largest the task memory allows). */
    public Integer tile() {
        return request.options().tile();
    }

    /** This job with weights (a Hadoop URI or a local path). */
    public SparkKernelConfig withWeights(String w) {
        return new SparkKernelConfig(request, w, out, dataRoot, shardSize, dryRun, executors, approx);
    }

    public SparkKernelConfig withSeed(long s) {
        return withRequest(b -> b.seed(s));
    }

    /** This job with M test rows (Θ(X2, X1)). */
    public SparkKernelConfig withTest(int m) {
        return withRequest(b -> b.test(m));
    }

    /** This job with images zero-padded by {@code p} pixels per side. */
    public SparkKernelConfig withPad(Integer p) {
        return withRequest(b -> b.pad(p));
    }

    public SparkKernelConfig withMode(Mode m, boolean layers, DataType type) {
        return withRequest(b -> b.mode(m).perLayer(layers).dtype(type));
    }

    public SparkKernelConfig withDataRoot(String root) {
        return new SparkKernelConfig(request, weights, out, root, shardSize, dryRun, executors, approx);
    }

    /** This job with a fixed tile (null: from the memory) and a task memory. */
    public SparkKernelConfig withTile(Integer t, long memory) {
        return withRequest(b -> b.tile(t).memory(memory));
    }

    public SparkKernelConfig withShardSize(Integer side) {
        return new SparkKernelConfig(request, weights, out, dataRoot, side, dryRun, executors, approx);
    }

    public SparkKernelConfig withOut(String o) {
        return new SparkKernelConfig(request, weights, o, dataRoot, shardSize, dryRun, executors, approx);
    }

    /** A dry run for a cluster of {@code slots} task slots (null: the context's). */
    public SparkKernelConfig withDryRun(boolean dry, Integer slots) {
        return new SparkKernelConfig(request, weights, out, dataRoot, shardSize, dry, slots, approx);
    }

    /**
     * This job computing the exact blocks of the Nyström approximation {@code spec} ({@code nystrom:M}) with its error
     * on {@code holdout} training images, as {@code ntk4j kernel --approx} shards plan them; null: the exact kernel.
     */
    public SparkKernelConfig withApprox(ApproxSpec spec, int holdout) {
        return new SparkKernelConfig(
                request,
                weights,
                out,
                dataRoot,
                shardSize,
                dryRun,
                executors,
                spec == null ? null : new ShardPlan.ApproxRequest(spec, holdout));
    }

    /** This job with its request changed by {@code change}. */
    public SparkKernelConfig withRequest(UnaryOperator<KernelRequest.Builder> change) {
        return new SparkKernelConfig(
                change.apply(request.toBuilder()).build(),
                weights,
                out,
                dataRoot,
                shardSize,
                dryRun,
                executors,
                approx);
    }
}
