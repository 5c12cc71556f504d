package org.ntk4j.shard;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.ntk4j.OptionException;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.request.KernelOption;
import org.ntk4j.util.Machine;

/**
 * What a {@link ShardPlan} costs on a cluster, from one tile pair timed on this machine ({@link
 * ShardComputer#timeTile()}): the shards, their bytes, and the wall time on K workers.
 *
 * <p>Model: a shard of R × C tile pairs computes the factors of its R row tiles and C column tiles once each
 * (its column tiles' factors are cached when they fit the computer's memory; in a diagonal shard rows and
 * columns are the same tiles) and contracts every pair it holds: {@code seconds = (R + C) · factors + pairs ·
 * pair}, with {@code factors} the measured seconds of one tile's factors and {@code pair} those of one tile
 * pair's contraction and host copy. Shards are handed to the K workers longest first, each to the worker that
 * becomes free first; the wall time is the last worker's. The last tiles of a row or column are counted whole.
 */
public final class ShardPlanner {
    private ShardPlanner() {}

    /**
     * One tile pair timed on this machine.
     *
     * @param tile samples per tile of the plan
     * @param rows samples in the timed row tile
     * @param cols samples in the timed column tile
     * @param factorSeconds seconds of one tile's factors (forward and backward passes)
     * @param pairSeconds seconds of one tile pair's contraction and host copy
     * @param seconds wall time of the timed block
     * @param device where it ran
     * @param threads PyTorch's intra-op threads
     * @param busy the share of its threads' CPU time the timed block got (process CPU time over wall time ×
     *     threads, at most 1; 1 on a GPU): below 1 on a loaded machine, where the measured times multiplied by
     *     it estimate an idle machine's
     * @param loadAverage the machine's 1-minute load average when it ran (negative when unknown)
     * @param inputs "dataset", or why other inputs were timed
     */
    public record TileTiming(
            int tile,
            int rows,
            int cols,
            double factorSeconds,
            double pairSeconds,
            double seconds,
            String device,
            int threads,
            double busy,
            double loadAverage,
            String inputs) {
        /** The timing an idle machine would give: the measured seconds × {@link #busy()}. */
        public TileTiming idle() {
            return new TileTiming(
                    tile,
                    rows,
                    cols,
                    factorSeconds * busy,
                    pairSeconds * busy,
                    seconds * busy,
                    device,
                    threads,
                    1,
                    loadAverage,
                    inputs);
        }
    }

    /**
     * The cost of a plan on K workers.
     *
     * @param shards number of shards
     * @param tilePairs tile pairs over all shards
     * @param maxShardBytes bytes written by the largest shard
     * @param totalBytes bytes of all shards (the assembled kernel: the same, plus the mirrored blocks of Θ(X1,
     *     X1))
     * @param assembledBytes bytes of the assembled arrays
     * @param computeSeconds the shards' seconds added up (one worker)
     * @param wallSeconds the wall time on {@code workers} workers
     * @param workers K
     */
    public record Estimate(
            int shards,
            long tilePairs,
            long maxShardBytes,
            long totalBytes,
            long assembledBytes,
            double computeSeconds,
            double wallSeconds,
            int workers) {}

    /** The seconds of one shard by the model above. */
    public static double seconds(ShardPlan plan, TileRange r, TileTiming t) {
        long tr = (r.rows() + plan.tile() - 1) / plan.tile();
        long tc = (r.cols() + plan.tile() - 1) / plan.tile();
        boolean diagonal = plan.symmetric(r.kernel()) && r.rowStart() == r.colStart();
        long factorTiles = diagonal ? tr : tr + tc;
        return factorTiles * t.factorSeconds() + plan.tilePairs(r) * t.pairSeconds();
    }

    /** The cost of {@code plan} on {@code workers} workers, each as fast as the timed tile. */
    public static Estimate estimate(ShardPlan plan, TileTiming t, int workers) {
        if (workers < 1) {
            throw new OptionException(KernelOption.WORKERS, " must be >= 1 (got " + workers + ")");
        }
        double[] s =
                plan.shards().stream().mapToDouble(r -> seconds(plan, r, t)).toArray();
        double total = Arrays.stream(s).sum();
        Arrays.sort(s);
        // longest first onto the worker free first (LPT)
        java.util.PriorityQueue<Double> free = new java.util.PriorityQueue<>();
        for (int w = 0; w < workers; w++) {
            free.add(0.0);
        }
        double wall = 0;
        for (int i = s.length - 1; i >= 0; i--) {
            double end = free.poll() + s[i];
            wall = Math.max(wall, end);
            free.add(end);
        }
        long pairs = plan.shards().stream().mapToLong(plan::tilePairs).sum();
        long max = plan.shards().stream().mapToLong(plan::bytes).max().orElse(0);
        long assembled = 0;
        for (String k : plan.kernels()) {
            for (String a : plan.arrays(k)) {
                long b = plan.valueBytes();
                for (long d : plan.shape(a)) {
                    b *= d;
                }
                assembled += b;
            }
        }
        return new Estimate(plan.shards().size(), pairs, max, plan.totalBytes(), assembled, total, wall, workers);
    }

    /**
     * What a dry run shows.
     *
     * @param plan the plan
     * @param summary the plan, the timed tile and the estimate, a line each
     * @param shards the first shards, each with its bytes and estimated time, and how many more there are
     */
    public record DryRun(ShardPlan plan, List<String> summary, List<String> shards) {
        public DryRun {
            summary = List.copyOf(summary);
            shards = List.copyOf(shards);
        }
    }

    /**
     * A dry run of {@code plan} on {@code workers} workers: the plan, the timed tile, the estimate, and its first
     * shards with their ranges written as {@code name} spells the settings (given the library key, e.g. {@code
     * testRows}).
     */
    public static DryRun dryRun(ShardPlan plan, TileTiming t, int workers, Function<String, String> name) {
        Estimate e = estimate(plan, t, workers);
        List<String> out = planLines(plan, e);
        out.add(String.format(
                Locale.ROOT,
                "timed on this machine (%s, %d cores, %d thread%s, load average %.2f%s): one tile pair %d×%d:"
                        + " factors %.3f s per tile, contraction %.3f s per pair (wall)",
                t.device(),
                Machine.cores(),
                t.threads(),
                t.threads() == 1 ? "" : "s",
                t.loadAverage(),
                "dataset".equals(t.inputs()) ? "" : ", " + t.inputs(),
                t.rows(),
                t.cols(),
                t.factorSeconds(),
                t.pairSeconds()));
        out.add(String.format(
                Locale.ROOT,
                "estimate: %s of compute; %s on %d worker%s like this machine (shards longest first)",
                duration(e.computeSeconds()),
                duration(e.wallSeconds()),
                workers,
                workers == 1 ? "" : "s"));
        if (t.busy() < 0.9) {
            Estimate idle = estimate(plan, t.idle(), workers);
            out.add(String.format(
                    Locale.ROOT,
                    "  on idle workers: %s of compute; %s on %d (the timed tile got %.0f%% of its threads' CPU:"
                            + " times × %.2f)",
                    duration(idle.computeSeconds()),
                    duration(idle.wallSeconds()),
                    workers,
                    100 * t.busy(),
                    t.busy()));
        }
        List<String> shards = new ArrayList<>();
        int shown = Math.min(3, plan.shards().size());
        for (int i = 0; i < shown; i++) {
            TileRange r = plan.shards().get(i);
            shards.add("  shard " + (i + 1) + "/" + plan.shards().size() + ": " + r.options(name) + " ("
                    + Ntk.bytes(plan.bytes(r)) + ", " + duration(seconds(plan, r, t)) + ")");
        }
        if (plan.shards().size() > shown) {
            shards.add("  ... " + (plan.shards().size() - shown) + " more");
        }
        return new DryRun(plan, out, shards);
    }

    /** The plan's lines of a dry run: what is computed, its tiles and shards, their bytes. */
    private static List<String> planLines(ShardPlan plan, Estimate e) {
        List<String> out = new ArrayList<>();
        ShardPlan.Source s = plan.source();
        out.add(String.format(
                Locale.ROOT,
                "plan %s: %s of %s on %s, N %d%s, mode %s, %s%s",
                plan.id(),
                s.features() ? "features kernel" : "NTK",
                s.model(),
                s.dataset(),
                plan.n(),
                plan.test() > 0 ? ", test M " + plan.test() : "",
                ShardPlan.name(plan.mode()),
                ShardPlan.name(plan.dtype()),
                plan.arrays().size() > 1 ? ", " + plan.arrays().size() + " arrays per shard" : ""));
        long tilesN = (plan.n() + plan.tile() - 1) / plan.tile();
        if (plan.approx() != null) {
            ShardPlan.Approx a = plan.approx();
            out.add(String.format(
                    Locale.ROOT,
                    "%s: the exact blocks C = K(X, L) (%d×%d)%s and the held-out K_SS (%d×%d) of %d landmarks L and"
                            + " %d held-out images S",
                    a.spec(),
                    plan.n(),
                    a.landmarks().length,
                    plan.test() > 0
                            ? String.format(Locale.ROOT, ", C* = K(X*, L) (%d×%d)", plan.test(), a.landmarks().length)
                            : "",
                    a.holdout().length,
                    a.holdout().length,
                    a.landmarks().length,
                    a.holdout().length));
            out.add(String.format(
                    Locale.ROOT,
                    "tiles: %d samples; shards: %d rows × all columns, %d (%d tile pairs)",
                    plan.tile(),
                    plan.shardSize(),
                    e.shards(),
                    e.tilePairs()));
            out.add(String.format(
                    Locale.ROOT,
                    "bytes: %s per shard (largest), %s in all shards; assembled: the features, N × at most %d",
                    Ntk.bytes(e.maxShardBytes()),
                    Ntk.bytes(e.totalBytes()),
                    a.landmarks().length));
            return out;
        }
        out.add(String.format(
                Locale.ROOT,
                "tiles: %d samples, %d per side of Θ(X1,X1)%s; shards: %d×%d samples, %d (%d tile pairs)",
                plan.tile(),
                tilesN,
                plan.test() > 0
                        ? String.format(
                                Locale.ROOT,
                                ", %d×%d of Θ(X2,X1)",
                                (plan.test() + plan.tile() - 1) / plan.tile(),
                                tilesN)
                        : "",
                plan.shardSize(),
                plan.shardSize(),
                e.shards(),
                e.tilePairs()));
        out.add(String.format(
                Locale.ROOT,
                "bytes: %s per shard (largest), %s in all shards, %s assembled (Θ(X1,X1) whole)",
                Ntk.bytes(e.maxShardBytes()),
                Ntk.bytes(e.totalBytes()),
                Ntk.bytes(e.assembledBytes())));
        return out;
    }

    /** 42 s, 3.5 min, 2.1 h, 3.2 days. */
    public static String duration(double s) {
        if (s < 120) {
            return String.format(Locale.ROOT, "%.1f s", s);
        }
        if (s < 7200) {
            return String.format(Locale.ROOT, "%.1f min", s / 60);
        }
        if (s < 3 * 86400) {
            return String.format(Locale.ROOT, "%.1f h", s / 3600);
        }
        return String.format(Locale.ROOT, "%.1f days", s / 86400);
    }
}
