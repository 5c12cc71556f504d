package org.ntk4j.shard;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.ntk4j.UserException;
import org.ntk4j.job.KernelFiles;
import org.ntk4j.job.KernelJob;
import org.ntk4j.job.KernelJobConfig;
import org.ntk4j.kernel.LayerPlan;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;

/**
 * How a kernel too large for one machine is cut into shards: what is computed ({@link Source}: model, weights
 * hash, dataset, options), the kernels' sizes, the tile grid every shard is computed on, and the shards, each a
 * {@link TileRange} of whole tiles. The plan is written once as {@code plan.json} in a {@link ShardStore} and
 * travels as JSON ({@link #toJson()}, {@link #fromJson(String, String)}) to whatever computes the shards.
 *
 * <p>Bit for bit: the values of a kernel depend on how its work is split into matrix products, i.e. on the tile
 * grid (tiles of {@link #tile()} samples from index 0). Every shard is computed on that grid ({@link
 * org.ntk4j.kernel.Ntk#computeBlock}), so the assembled kernel equals the whole kernel computed on one machine with
 * the same tile ({@code ntk4j kernel ... --tile T}) exactly.
 *
 * <p>Shards: Θ(X1, X1) is symmetric, so only its shards on and above the diagonal are planned (row block ≤ column
 * block); the assembler mirrors the others. Θ(X2, X1) (with {@code --test M}) is planned whole.
 *
 * @param format {@value #FORMAT}
 * @param version {@value #VERSION}
 * @param id SHA-256 (hex, first 16 digits) of this plan's JSON without the id: names the plan in every shard's
 *     sidecar, so a shard of another plan is recognised
 * @param source what is computed
 * @param n training samples N (rows and columns of Θ(X1, X1), columns of Θ(X2, X1))
 * @param test test samples M (rows of Θ(X2, X1)); 0 = none
 * @param outputs network outputs O
 * @param mode trace, diagonal or full: an entry per pair is a scalar, O values or O×O values
 * @param dtype float32 or float64 (of the network and of the stored kernels)
 * @param arrays the arrays of every shard of Θ(X1, X1): {@code ntk}, then {@code ntk.<layer>} per layer (with
 *     per-layer), then {@code ntk.<layer>.forward|backward} (with factor kernels); those of Θ(X2, X1) are
 *     {@link #arrays(String)}
 * @param tile samples per tile: the grid every shard is computed on
 * @param shardSize rows (and columns) per shard, a multiple of the tile; the last shard of a row or column is
 *     shorter
 * @param shards every shard, Θ(X1, X1)'s upper triangle by rows then Θ(X2, X1)'s
 */
public record ShardPlan(
        String format,
        int version,
        String id,
        Source source,
        int n,
        int test,
        int outputs,
        String mode,
        String dtype,
        List<String> arrays,
        int tile,
        int shardSize,
        List<TileRange> shards) {
    /** The {@code format} field of a plan. */
    public static final String FORMAT = "ntk4j-shard-plan";

    /** The version of the plan's layout. */
    public static final int VERSION = 1;

    /**
     * What a plan computes: every field that decides the kernel's values. Two runs with the same source compute
     * the same kernel.
     *
     * @param model the model as given (spec file or name in models/)
     * @param spec the resolved spec
     * @param weights the weights file as given; null = fresh initialisation from the seed
     * @param weightsSha256 SHA-256 of the weights file (hex); null without weights
     * @param seed initialisation seed (and the class-balanced sample's)
     * @param dataset dataset name
     * @param perClass samples per class (ordered by class) instead of the first N; null = the first N
     * @param pad zero padding per side; null = none
     * @param method auto, structured or jacobian
     * @param normalisation sum or mean (trace kernels divided by O)
     * @param features the last-layer-features kernel Θ^h instead of the NTK
     * @param perLayer per-layer kernels Θ_l too
     * @param factorKernels dense layers' forward and backward kernels too
     */
    public record Source(
            String model,
            ModelSpec spec,
            String weights,
            String weightsSha256,
            long seed,
            String dataset,
            Integer perClass,
            Integer pad,
            String method,
            String normalisation,
            boolean features,
            boolean perLayer,
            boolean factorKernels) {}

    public ShardPlan {
        arrays = List.copyOf(arrays);
        shards = List.copyOf(shards);
    }

    /**
     * Plans the kernel of {@code config} (its model, weights, dataset, N, M, mode, dtype, options; {@code out}
     * and {@code memory} are not used) for tasks of {@code perTaskMemory} bytes each: the tile is the config's
     * fixed tile, else the largest whose working set fits half of it ({@link Ntk#tileEstimate}); the shard side is
     * {@code shardSize} (rounded up to whole tiles), else the largest multiple of the tile whose arrays fit the
     * other half. Builds the network on {@code m} (to count outputs and layers) but reads no data, except the
     * labels with {@code perClass}; N may exceed the dataset for a plan that is only printed.
     */
    public static ShardPlan plan(KernelJobConfig config, long perTaskMemory, Integer shardSize, NDManager m) {
        return plan(config, perTaskMemory, shardSize, 1, m);
    }

    /**
     * As {@link #plan(KernelJobConfig, long, Integer, NDManager)}, for {@code workers} machines: without {@code
     * shardSize}, the shards are made smaller (whole tiles still) until there are at least 4 per worker, so that
     * the last shards do not leave workers idle for long.
     */
    public static ShardPlan plan(
            KernelJobConfig config, long perTaskMemory, Integer shardSize, int workers, NDManager m) {
        if (workers < 1) {
            throw new UserException("--workers must be >= 1 (got " + workers + ")");
        }
        if (perTaskMemory <= 0) {
            throw new UserException("--memory must be positive (got " + perTaskMemory + ")");
        }
        if (shardSize != null && shardSize < 1) {
            throw new UserException("--shard-size must be >= 1 (got " + shardSize + ")");
        }
        KernelJob job = new KernelJob(config);
        int n = config.perClass() != null ? job.trainSet().size() : config.n();
        int test = config.test();
        try (NDManager pm = m.newSubManager();
                Network net = job.network(pm)) {
            Network target = config.features() ? net.features() : net;
            Ntk ntk = job.ntk(net).memory(Math.max(1, perTaskMemory / 2));
            int tile = config.tile() != null
                    ? config.tile()
                    : Math.min(
                            ntk.tileEstimate(n, n).tile(),
                            test > 0 ? ntk.tileEstimate(test, n).tile() : Integer.MAX_VALUE);
            if (tile == 0) {
                throw new UserException("--memory " + Ntk.bytes(perTaskMemory)
                        + " per task is too small for even one-sample tiles: it needs at least "
                        + Ntk.bytes(2 * ntk.tileEstimate(n, n).minWorkingBytes()));
            }
            List<String> arrays = new ArrayList<>();
            arrays.add(TileRange.TRAIN);
            if (config.perLayer()) {
                for (Module l : target.parameterLayers()) {
                    arrays.add(TileRange.TRAIN + "." + l.name());
                }
            }
            if (config.factorKernels()) {
                for (LayerPlan l : ntk.plan(tile, tile).layers()) {
                    if (l.structured() && "dense".equals(l.ruleName())) {
                        arrays.add(TileRange.TRAIN + "." + l.name() + ".forward");
                        arrays.add(TileRange.TRAIN + "." + l.name() + ".backward");
                    }
                }
            }
            String mode = config.mode().name().toLowerCase(Locale.ROOT);
            String dtype = config.dtype() == DataType.FLOAT64 ? "float64" : "float32";
            int o = target.outputs();
            long inner = inner(mode, o);
            long entryBytes = inner * (dtype.equals("float64") ? 8 : 4) * arrays.size();
            int side;
            if (shardSize != null) {
                side = (int) Math.min((long) (shardSize + tile - 1) / tile * tile, Integer.MAX_VALUE);
            } else {
                long fit = (long) Math.sqrt((perTaskMemory / 2.0) / entryBytes);
                side = (int) Math.max(tile, fit / tile * tile);
            }
            int maxRows = Math.max(n, test);
            side = (int) Math.min(side, (long) (maxRows + tile - 1) / tile * tile);
            if (shardSize == null) {
                while (side > tile && count(n, test, side) < 4L * workers) {
                    side -= tile;
                }
            }
            ModelSpec spec = ModelSpec.resolve(config.model());
            Path w = config.weights();
            Source source = new Source(
                    config.model(),
                    spec,
                    w == null ? null : w.toString(),
                    w == null ? null : KernelFiles.sha256(w),
                    config.seed(),
                    config.dataset(),
                    config.perClass(),
                    config.pad(),
                    config.method().name().toLowerCase(Locale.ROOT),
                    config.meanNormalised() && config.mode() == Mode.TRACE ? "mean" : "sum",
                    config.features(),
                    config.perLayer(),
                    config.factorKernels());
            List<TileRange> shards = new ArrayList<>();
            for (int r = 0; r < n; r += side) {
                for (int c = r; c < n; c += side) {
                    shards.add(new TileRange(TileRange.TRAIN, r, Math.min(n, r + side), c, Math.min(n, c + side)));
                }
            }
            for (int r = 0; r < test; r += side) {
                for (int c = 0; c < n; c += side) {
                    shards.add(new TileRange(TileRange.TEST, r, Math.min(test, r + side), c, Math.min(n, c + side)));
                }
            }
            return new ShardPlan(FORMAT, VERSION, null, source, n, test, o, mode, dtype, arrays, tile, side, shards)
                    .withId();
        }
    }

    /** Shards of a plan with side {@code side}: Θ(X1, X1)'s upper triangle and Θ(X2, X1) whole. */
    static long count(int n, int test, int side) {
        long t = (n + side - 1) / side;
        long m = (test + side - 1) / side;
        return t * (t + 1) / 2 + m * t;
    }

    private static long inner(String mode, int o) {
        return switch (mode) {
            case "trace" -> 1;
            case "diagonal" -> o;
            default -> (long) o * o;
        };
    }

    /** This plan with its {@link #id()} computed from the rest (the hash of its JSON without the id). */
    public ShardPlan withId() {
        ShardPlan bare = new ShardPlan(
                format, version, null, source, n, test, outputs, mode, dtype, arrays, tile, shardSize, shards);
        String hash = sha256(Specs.toJson(bare)).substring(0, 16);
        return new ShardPlan(
                format, version, hash, source, n, test, outputs, mode, dtype, arrays, tile, shardSize, shards);
    }

    /** The plan as JSON (what {@code plan.json} holds). */
    public String toJson() {
        return Specs.toJson(this) + "\n";
    }

    /**
     * Reads a plan from its JSON; {@code origin} names it in messages. A plan that is not one, of another version,
     * or whose content does not match its id (edited by hand, truncated) is a one-line {@link UserException}.
     */
    public static ShardPlan fromJson(String json, String origin) {
        ShardPlan p;
        try {
            p = Specs.GSON.fromJson(json, ShardPlan.class);
        } catch (RuntimeException e) {
            throw new UserException(origin + ": not a shard plan (" + e.getMessage() + ")");
        }
        if (p == null || !FORMAT.equals(p.format())) {
            throw new UserException(origin + ": not a shard plan (no \"format\": \"" + FORMAT + "\")");
        }
        if (p.version() != VERSION) {
            throw new UserException(
                    origin + ": shard plan version " + p.version() + "; this ntk4j reads version " + VERSION);
        }
        if (p.id() == null || !p.id().equals(p.withId().id())) {
            throw new UserException(origin + ": the plan's content does not match its id " + p.id()
                    + " (edited or damaged); plan again into an empty directory");
        }
        return p;
    }

    /** The arrays of every shard of {@code kernel}: those of {@link #arrays()}, renamed ntk_test.* for Θ(X2, X1) (no factor kernels). */
    public List<String> arrays(String kernel) {
        if (TileRange.TRAIN.equals(kernel)) {
            return arrays;
        }
        List<String> out = new ArrayList<>();
        for (String a : arrays) {
            if (!a.endsWith(".forward") && !a.endsWith(".backward")) {
                out.add(TileRange.TEST + a.substring(TileRange.TRAIN.length()));
            }
        }
        return out;
    }

    /** Whether {@code kernel}'s values are symmetric (Θ(X1, X1)). */
    public boolean symmetric(String kernel) {
        return TileRange.TRAIN.equals(kernel);
    }

    /** Rows of {@code kernel}: N, or M for Θ(X2, X1). */
    public int rows(String kernel) {
        return TileRange.TRAIN.equals(kernel) ? n : test;
    }

    /** The shape of one entry: () for trace, (O) for diagonal, (O, O) for full; factor kernels are traced. */
    public long[] innerShape(String array) {
        if (array.endsWith(".forward") || array.endsWith(".backward") || mode.equals("trace")) {
            return new long[0];
        }
        return mode.equals("diagonal") ? new long[] {outputs} : new long[] {outputs, outputs};
    }

    /** The whole shape of {@code array} in the assembled kernel: (rows, N, inner...). */
    public long[] shape(String array) {
        String kernel = array.startsWith(TileRange.TEST) ? TileRange.TEST : TileRange.TRAIN;
        long[] inner = innerShape(array);
        long[] s = new long[2 + inner.length];
        s[0] = rows(kernel);
        s[1] = n;
        System.arraycopy(inner, 0, s, 2, inner.length);
        return s;
    }

    /** Bytes per stored value: 4 (float32) or 8 (float64). */
    public int valueBytes() {
        return dtype.equals("float64") ? 8 : 4;
    }

    /** Bytes of the arrays of one shard (what it writes). */
    public long bytes(TileRange r) {
        long b = 0;
        for (String a : arrays(r.kernel())) {
            long e = (long) r.rows() * r.cols() * valueBytes();
            for (long d : innerShape(a)) {
                e *= d;
            }
            b += e;
        }
        return b;
    }

    /** Bytes of all shards. */
    public long totalBytes() {
        return shards.stream().mapToLong(this::bytes).sum();
    }

    /** The tile pairs a shard computes (in a diagonal shard of Θ(X1, X1): those on and above the diagonal). */
    public long tilePairs(TileRange r) {
        long tr = (r.rows() + tile - 1) / tile;
        long tc = (r.cols() + tile - 1) / tile;
        if (symmetric(r.kernel()) && r.rowStart() == r.colStart() && r.rowEnd() == r.colEnd()) {
            return tr * (tr + 1) / 2;
        }
        return tr * tc;
    }

    /**
     * The shard of this plan that {@code requested} names, checked: a range outside the kernel, of a kernel the
     * plan has not, or that is not exactly one of the plan's shards (off the grid, overlapping several, or below
     * the diagonal of Θ(X1, X1)) is a one-line {@link UserException} saying which shards there are.
     */
    public TileRange shard(TileRange requested) {
        String k = requested.kernel();
        String rowOption = TileRange.TEST.equals(k) ? "--test-rows" : "--rows";
        int rows = rows(k);
        if (rows == 0) {
            throw new UserException("--test-rows: the plan has no test×train kernel (it was planned with --test 0)");
        }
        if (requested.rowEnd() > rows) {
            throw new UserException(rowOption + " " + requested.rowStart() + ":" + requested.rowEnd()
                    + " is out of range: the kernel has " + rows + " rows (0:" + rows + ")");
        }
        if (requested.colEnd() > n) {
            throw new UserException("--cols " + requested.colStart() + ":" + requested.colEnd()
                    + " is out of range: the kernel has " + n + " columns (0:" + n + ")");
        }
        for (TileRange s : shards) {
            if (s.equals(requested)) {
                return s;
            }
        }
        TileRange mirrored =
                new TileRange(k, requested.colStart(), requested.colEnd(), requested.rowStart(), requested.rowEnd());
        if (symmetric(k) && shards.contains(mirrored)) {
            throw new UserException(requested.options() + " lies below the diagonal of the symmetric kernel;"
                    + " compute its mirror image " + mirrored.options() + " (assembly transposes it)");
        }
        List<TileRange> hit =
                shards.stream().filter(s -> s.overlaps(requested)).limit(2).toList();
        String near =
                hit.isEmpty() ? "" : " (it overlaps " + hit.get(0).options() + (hit.size() > 1 ? ", ..." : "") + ")";
        throw new UserException(requested.options() + " is not a shard of the plan: shards are " + shardSize + "×"
                + shardSize + " blocks on the grid of " + shardSize + " samples" + near
                + "; 'ntk4j kernel ... --dry-run' lists them");
    }

    /**
     * The first field in which {@code other} (planned for the same directory) differs from this plan, as a
     * sentence naming both values; null when the two plans are the same.
     */
    public String difference(ShardPlan other) {
        if (id.equals(other.id)) {
            return null;
        }
        Source a = source;
        Source b = other.source;
        String[][] fields = {
            {"weights sha256", a.weightsSha256(), b.weightsSha256()},
            {"model", Specs.toJson(a.spec()), Specs.toJson(b.spec())},
            {"dataset", a.dataset(), b.dataset()},
            {"n", String.valueOf(n), String.valueOf(other.n)},
            {"test", String.valueOf(test), String.valueOf(other.test)},
            {"mode", mode, other.mode},
            {"dtype", dtype, other.dtype},
            {"seed", String.valueOf(a.seed()), String.valueOf(b.seed())},
            {"per-class", String.valueOf(a.perClass()), String.valueOf(b.perClass())},
            {"pad", String.valueOf(a.pad()), String.valueOf(b.pad())},
            {"method", a.method(), b.method()},
            {"normalisation", a.normalisation(), b.normalisation()},
            {"features", String.valueOf(a.features()), String.valueOf(b.features())},
            {"per-layer", String.valueOf(a.perLayer()), String.valueOf(b.perLayer())},
            {"factor-kernels", String.valueOf(a.factorKernels()), String.valueOf(b.factorKernels())},
            {"tile", String.valueOf(tile), String.valueOf(other.tile)},
            {"shard size", String.valueOf(shardSize), String.valueOf(other.shardSize)},
        };
        for (String[] f : fields) {
            if (!Objects.equals(f[1], f[2])) {
                String x =
                        f[0].equals("model") ? a.model() + " (" + sha256(f[1]).substring(0, 12) + ")" : f[1];
                String y =
                        f[0].equals("model") ? b.model() + " (" + sha256(f[2]).substring(0, 12) + ")" : f[2];
                return f[0] + " is " + x + " in the plan but " + y + " here";
            }
        }
        return "plan id is " + id + " but " + other.id + " here";
    }

    static String sha256(String s) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            StringBuilder hex = new StringBuilder();
            for (byte b : md.digest(s.getBytes(StandardCharsets.UTF_8))) {
                hex.append(String.format("%02x", b));
            }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
