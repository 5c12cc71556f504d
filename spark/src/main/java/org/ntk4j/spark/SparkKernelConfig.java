package org.ntk4j.spark;

import ai.djl.ndarray.types.DataType;
import java.io.Serializable;
import org.ntk4j.UserException;
import org.ntk4j.kernel.factor.Mode;

/**
 * What a {@link SparkKernel} job computes: the empirical NTK of {@code ntk4j kernel} (the same model,
 * weights, seed, dataset, N, test M, mode, per-layer and dtype), as a shard store at {@code out}.
 *
 * @param model model spec file or a name in models/ (resolved on the driver; executors get the spec itself)
 * @param weights weights.npz of a run (a Hadoop URI or a local path, read on the driver and broadcast); null =
 *     fresh initialisation from {@code seed}
 * @param seed initialisation seed
 * @param dataset dataset name ({@code mnist}, {@code fashion-mnist}, {@code cifar10} from the data root;
 *     {@code mnist-subset} and named synthetic specs need none)
 * @param n training samples (the first N): the rows and columns of Θ(X1, X1)
 * @param test test samples (the first M): the rows of Θ(X2, X1); 0 = none
 * @param pad zero-pad images by this many pixels per side (e.g. MNIST 28×28 to 32×32); null = none
 * @param mode trace, full or diagonal over outputs
 * @param perLayer also Θ_l for each parameterised layer
 * @param dtype FLOAT32 or FLOAT64
 * @param out the shard store: a folder URI ({@code file://}, {@code hdfs://}, {@code s3a://}) or local path
 * @param dataRoot the folder URI holding {@code <dataset>/} (as the core's data directory)
 * @param taskMemory memory budget of one task's tiles and block, in bytes (decides the tile)
 * @param tile samples per tile, fixed (null: the largest the task memory allows)
 * @param shardSize rows (and columns) per shard, rounded up to whole tiles (null: the largest whose arrays fit
 *     half the task memory)
 * @param dryRun print the plan and an estimated time, compute nothing
 * @param executors task slots of the cluster the dry run estimates for (null: the running context's)
 * @param failShard test hook: the name of a shard whose task fails ({@code failTimes} times, counted by
 *     marker files in {@code failMarkers}); null = none
 * @param failTimes how many attempts of {@code failShard} fail (Integer.MAX_VALUE: every one)
 * @param failMarkers a folder (shared by the tasks, e.g. local in local mode) for the failure hook's markers
 */
public record SparkKernelConfig(
        String model,
        String weights,
        long seed,
        String dataset,
        int n,
        int test,
        Integer pad,
        Mode mode,
        boolean perLayer,
        DataType dtype,
        String out,
        String dataRoot,
        long taskMemory,
        Integer tile,
        Integer shardSize,
        boolean dryRun,
        Integer executors,
        String failShard,
        int failTimes,
        String failMarkers)
        implements Serializable {
    /** Default task memory: 2 GiB. */
    public static final long DEFAULT_TASK_MEMORY = 2L << 30;

    public SparkKernelConfig {
        if (model == null || dataset == null || out == null) {
            throw new UserException("--model, --dataset and --out are required");
        }
        if (mode == null) {
            mode = Mode.TRACE;
        }
        if (dtype == null) {
            dtype = DataType.FLOAT32;
        }
        if (dtype != DataType.FLOAT32 && dtype != DataType.FLOAT64) {
            throw new UserException("--dtype must be float32 or float64 (got " + dtype + ")");
        }
        if (n < 1) {
            throw new UserException("--n must be >= 1 (got " + n + ")");
        }
        if (test < 0) {
            throw new UserException("--test must be >= 0 (got " + test + ")");
        }
        if (pad != null && pad < 0) {
            throw new UserException("--pad must be >= 0 (got " + pad + ")");
        }
        if (taskMemory <= 0) {
            throw new UserException("--task-memory must be a size like 512m or 4g (got " + taskMemory + ")");
        }
        if (tile != null && tile < 1) {
            throw new UserException("--tile must be >= 1 (got " + tile + ")");
        }
        if (shardSize != null && shardSize < 1) {
            throw new UserException("--shard-size must be >= 1 (got " + shardSize + ")");
        }
        if (executors != null && executors < 1) {
            throw new UserException("--executors must be >= 1 (got " + executors + ")");
        }
    }

    /** A job with the defaults of {@code ntk4j kernel} (seed 0, trace, float32, 2 GiB per task). */
    public static SparkKernelConfig of(String model, String dataset, int n, String out) {
        return new SparkKernelConfig(
                model,
                null,
                0,
                dataset,
                n,
                0,
                null,
                Mode.TRACE,
                false,
                DataType.FLOAT32,
                out,
                null,
                DEFAULT_TASK_MEMORY,
                null,
                null,
                false,
                null,
                null,
                0,
                null);
    }

    /** This job with weights (a Hadoop URI or a local path). */
    public SparkKernelConfig withWeights(String w) {
        Copy c = new Copy(this);
        c.weights = w;
        return c.build();
    }

    public SparkKernelConfig withSeed(long s) {
        Copy c = new Copy(this);
        c.seed = s;
        return c.build();
    }

    /** This job with M test rows (Θ(X2, X1)). */
    public SparkKernelConfig withTest(int m) {
        Copy c = new Copy(this);
        c.test = m;
        return c.build();
    }

    /** This job with images zero-padded by {@code p} pixels per side. */
    public SparkKernelConfig withPad(Integer p) {
        Copy c = new Copy(this);
        c.pad = p;
        return c.build();
    }

    public SparkKernelConfig withMode(Mode m, boolean layers, DataType type) {
        Copy c = new Copy(this);
        c.mode = m;
        c.perLayer = layers;
        c.dtype = type;
        return c.build();
    }

    public SparkKernelConfig withDataRoot(String root) {
        Copy c = new Copy(this);
        c.dataRoot = root;
        return c.build();
    }

    /** This job with a fixed tile (null: from the memory) and a task memory. */
    public SparkKernelConfig withTile(Integer t, long memory) {
        Copy c = new Copy(this);
        c.tile = t;
        c.taskMemory = memory;
        return c.build();
    }

    public SparkKernelConfig withShardSize(Integer side) {
        Copy c = new Copy(this);
        c.shardSize = side;
        return c.build();
    }

    public SparkKernelConfig withOut(String o) {
        Copy c = new Copy(this);
        c.out = o;
        return c.build();
    }

    /** A dry run for a cluster of {@code slots} task slots (null: the context's). */
    public SparkKernelConfig withDryRun(boolean dry, Integer slots) {
        Copy c = new Copy(this);
        c.dryRun = dry;
        c.executors = slots;
        return c.build();
    }

    /** The test hook: shard {@code shard} fails its first {@code times} attempts (markers in {@code markers}). */
    public SparkKernelConfig withFailure(String shard, int times, String markers) {
        Copy c = new Copy(this);
        c.failShard = shard;
        c.failTimes = times;
        c.failMarkers = markers;
        return c.build();
    }

    /** A mutable copy of the fields, so each {@code with...} names only what it changes. */
    private static final class Copy {
        private String model;
        private String weights;
        private long seed;
        private String dataset;
        private int n;
        private int test;
        private Integer pad;
        private Mode mode;
        private boolean perLayer;
        private DataType dtype;
        private String out;
        private String dataRoot;
        private long taskMemory;
        private Integer tile;
        private Integer shardSize;
        private boolean dryRun;
        private Integer executors;
        private String failShard;
        private int failTimes;
        private String failMarkers;

        Copy(SparkKernelConfig c) {
            model = c.model;
            weights = c.weights;
            seed = c.seed;
            dataset = c.dataset;
            n = c.n;
            test = c.test;
            pad = c.pad;
            mode = c.mode;
            perLayer = c.perLayer;
            dtype = c.dtype;
            out = c.out;
            dataRoot = c.dataRoot;
            taskMemory = c.taskMemory;
            tile = c.tile;
            shardSize = c.shardSize;
            dryRun = c.dryRun;
            executors = c.executors;
            failShard = c.failShard;
            failTimes = c.failTimes;
            failMarkers = c.failMarkers;
        }

        SparkKernelConfig build() {
            return new SparkKernelConfig(
                    model,
                    weights,
                    seed,
                    dataset,
                    n,
                    test,
                    pad,
                    mode,
                    perLayer,
                    dtype,
                    out,
                    dataRoot,
                    taskMemory,
                    tile,
                    shardSize,
                    dryRun,
                    executors,
                    failShard,
                    failTimes,
                    failMarkers);
        }
    }
}
