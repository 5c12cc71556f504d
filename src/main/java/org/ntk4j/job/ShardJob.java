package org.ntk4j.job;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;
import org.ntk4j.OptionException;
import org.ntk4j.approx.ApproxSpec;
import org.ntk4j.request.KernelOption;
import org.ntk4j.request.KernelRequest;
import org.ntk4j.shard.ShardComputer;
import org.ntk4j.shard.ShardData;
import org.ntk4j.shard.ShardPlan;
import org.ntk4j.shard.ShardPlanner;
import org.ntk4j.shard.ShardStore;
import org.ntk4j.shard.TileRange;

/**
 * A kernel too large for one machine, one shard at a time: plans the request for a shard store (the store's own
 * plan kept when it has one, {@link ShardStore#planFor}), then computes one shard of it into the store ({@link
 * #compute}) or prints the plan with a tile timed here ({@link #dryRun}). Half the request's memory budget goes to
 * the tiles' factor cache of each shard, the other half is what a shard's arrays may hold.
 *
 * <pre>{@code
 * ShardJob job = new ShardJob(request, Path.of("store"), null, 4, dataDir);
 * ShardJob.Outcome o = job.compute(new TileRange(TileRange.TRAIN, 0, 256, 256, 512), false, manager);
 * }</pre>
 */
public final class ShardJob {
    private final KernelRequest request;
    private final Path store;
    private final Integer shardSize;
    private final int workers;
    private final Path dataDir;
    private ShardPlan.ApproxRequest approx;

    /**
     * @param request the kernel (its memory budget: a shard's; its weights: this machine's file)
     * @param store the shard store directory
     * @param shardSize samples per shard side, rounded up to whole tiles; null = the largest whose arrays fit half the
     *     budget (an existing store keeps its own)
     * @param workers machines computing the shards: a new plan without {@code shardSize} makes at least 4 shards
     *     per worker; a dry run's estimate divides the shards over them
     * @param dataDir the data directory of this machine
     */
    public ShardJob(KernelRequest request, Path store, Integer shardSize, int workers, Path dataDir) {
        this.request = request;
        this.store = store;
        this.shardSize = shardSize;
        this.workers = workers;
        this.dataDir = dataDir;
    }

    /**
     * Plans the exact blocks of the Nyström approximation {@code spec} ({@code nystrom:M}) instead of the kernel,
     * its error measured on {@code holdout} training images ({@link ShardPlan.Approx#of}).
     */
    public ShardJob approx(ApproxSpec spec, int holdout) {
        this.approx = new ShardPlan.ApproxRequest(spec, holdout);
        return this;
    }

    /**
     * What computing a shard did.
     *
     * @param plan the store's plan
     * @param shard the shard
     * @param dir the shard's directory in the store
     * @param existed the shard was complete in the store already (checksums verified) and was not computed again
     * @param arrays the arrays it holds
     * @param bytes their bytes
     * @param seconds the block's compute seconds (0 when it existed)
     * @param done shards of the plan complete in the store now; null when the shard existed (not counted)
     */
    public record Outcome(
            ShardPlan plan,
            TileRange shard,
            Path dir,
            boolean existed,
            int arrays,
            long bytes,
            double seconds,
            Integer done) {}

    /** The plan with one tile pair timed on this machine, and the estimate on the workers ({@link ShardPlanner}). */
    public ShardPlanner.DryRun dryRun(NDManager m, Function<String, String> name) {
        ShardPlan plan = ShardStore.planFor(store, request, approx, shardSize, workers, dataDir, m);
        try (ShardComputer computer = open(plan, m)) {
            return ShardPlanner.dryRun(plan, computer.timeTile(), workers, name);
        }
    }

    /**
     * Computes the shard {@code requested} into the store (created with its plan.json on first use), unless it is
     * complete there already and {@code force} is false. The range must be one of the plan's shards.
     */
    public Outcome compute(TileRange requested, boolean force, NDManager m) {
        if (Files.exists(store) && !Files.isDirectory(store)) {
            throw new OptionException(
                    KernelOption.OUT, " " + store + " is a file; shard mode writes a shard store (a directory)");
        }
        ShardPlan plan = ShardStore.planFor(store, request, approx, shardSize, workers, dataDir, m);
        try (ShardComputer computer = open(plan, m)) {
            ShardStore s = ShardStore.create(store, plan);
            TileRange r = plan.shard(requested);
            if (!force && s.exists(r)) {
                return new Outcome(
                        plan, r, s.shardDir(r), true, plan.arrays(r.kernel()).size(), plan.bytes(r), 0, null);
            }
            ShardData d = computer.compute(r);
            try {
                s.write(d);
                return new Outcome(
                        plan, r, s.shardDir(r), false, d.arrays().size(), plan.bytes(r), d.seconds(), done(s));
            } finally {
                d.release();
            }
        }
    }

    private ShardComputer open(ShardPlan plan, NDManager m) {
        return ShardComputer.open(plan, request.weights(), dataDir, m)
                .memory(request.options().memoryBytes() / 2);
    }

    private static int done(ShardStore s) {
        return s.plan().shards().size() - s.missing().size();
    }
}
