package org.ntk4j.shard;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import com.google.gson.Gson;
import com.google.gson.JsonParseException;
import com.google.gson.TypeAdapter;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.ntk4j.OptionException;
import org.ntk4j.UserException;
import org.ntk4j.approx.ApproxError;
import org.ntk4j.approx.ApproxSpec;
import org.ntk4j.approx.Nystrom;
import org.ntk4j.io.KernelFiles;
import org.ntk4j.kernel.LayerPlan;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.request.KernelOption;
import org.ntk4j.request.KernelRequest;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;

/**
 * How a kernel too large for one machine is cut into shards: what is computed ({@link Source}: model, weights
 * hash, dataset, options; with N, M, mode and dtype the {@link KernelRequest} of {@link #request(Path)}), the
 * kernels' sizes, the tile grid every shard is computed on, and the shards, each a {@link TileRange} of whole
 * tiles. The plan is written once as {@code plan.json} in a {@link ShardStore} and travels as JSON ({@link
 * #toJson()}, {@link #fromJson(String, String)}) to whatever computes the shards.
 *
 * <p>Bit for bit: the values of a kernel depend on how its work is split into matrix products, i.e. on the tile
 * grid (tiles of {@link #tile()} samples from index 0). Every shard is computed on that grid ({@link
 * org.ntk4j.kernel.Ntk#computeBlock}), so the assembled kernel equals the whole kernel computed on one machine with
 * the same tile ({@code ntk4j kernel ... --tile T}) exactly.
 *
 * <p>Shards: Θ(X1, X1) is symmetric, so only its shards on and above the diagonal are planned (row block ≤ column
 * block); the assembler mirrors the others. Θ(X2, X1) (with M test samples) is planned whole.
 *
 * <p>A Nyström plan ({@link #approx()}, {@code --approx nystrom:M}) computes the exact blocks of the Nyström
 * approximation ({@link Nystrom}) instead: C = K(X, L) (kernel {@value TileRange#TRAIN}, N × m, its columns the m
 * landmarks L in increasing order) and C* = K(X*, L) ({@value TileRange#TEST}, M × m), in row-range shards of all m
 * columns, and the exact kernel K_SS of the h held-out training images S the error is measured on ({@value
 * TileRange#HOLDOUT}, h × h, symmetric, one shard). Each is computed on the plan's tile grid in the landmark (or
 * held-out) index space, as {@code ntk4j kernel --approx nystrom:M --tile T} computes them on one machine, so the
 * features assembled from the shards are that job's bit for bit.
 *
 * @param format {@value #FORMAT}
 * @param version {@value #VERSION}
 * @param id SHA-256 (hex, first 16 digits) of this plan's JSON without the id: names the plan in every shard's
 *     sidecar, so a shard of another plan is recognised
 * @param source what is computed
 * @param n training samples N (rows and columns of Θ(X1, X1), columns of Θ(X2, X1))
 * @param test test samples M (rows of Θ(X2, X1)); 0 = none
 * @param outputs network outputs O
 * @param mode trace, diagonal or full: an entry per pair is a scalar, O values or O×O values (lower case in JSON)
 * @param dtype float32 or float64 (of the network and of the stored kernels)
 * @param arrays the arrays of every shard of Θ(X1, X1): {@code ntk}, then {@code ntk.<layer>} per layer (with
 *     per-layer), then {@code ntk.<layer>.forward|backward} (with factor kernels); those of Θ(X2, X1) are
 *     {@link #arrays(String)}
 * @param tile samples per tile: the grid every shard is computed on
 * @param shardSize rows (and columns) per shard, a multiple of the tile; the last shard of a row or column is
 *     shorter
 * @param shards every shard, Θ(X1, X1)'s upper triangle by rows then Θ(X2, X1)'s (a Nyström plan: C's row ranges,
 *     C*'s, then K_SS)
 * @param approx the Nyström approximation whose exact blocks are computed; null for the exact kernel
 */
public record ShardPlan(
        String format,
        int version,
        String id,
        Source source,
        int n,
        int test,
        int outputs,
        Mode mode,
        DataType dtype,
        List<String> arrays,
        int tile,
        int shardSize,
        List<TileRange> shards,
        Approx approx) {
    /** The {@code format} field of a plan. */
    public static final String FORMAT = "ntk4j-shard-plan";

    /** The version of the plan's layout. */
    public static final int VERSION = 1;

    /** The plan's JSON: the spec records' own, with the mode, method and data type by lower-case name. */
    static final Gson JSON = Specs.GSON
            .newBuilder()
            .registerTypeAdapter(Mode.class, new ByName<>(Mode.class))
            .registerTypeAdapter(Method.class, new ByName<>(Method.class))
            .registerTypeAdapter(DataType.class, new DtypeByName())
            .create();

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
            Method method,
            String normalisation,
            boolean features,
            boolean perLayer,
            boolean factorKernels) {
        /** The source of {@code request}, its weights recorded as {@code weights} (as the user gave them). */
        static Source of(KernelRequest request, String weights) {
            Path w = request.weights();
            return new Source(
                    request.model(),
                    request.spec(),
                    weights,
                    w == null ? null : KernelFiles.sha256(w),
                    request.seed(),
                    request.samples().dataset(),
                    request.samples().perClass(),
                    request.samples().pad(),
                    request.options().method(),
                    request.normalisation(),
                    request.features(),
                    request.options().perLayer(),
                    request.options().factorKernels());
        }

        /** This source with the weights recorded as {@code given} (a URI, say), their hash unchanged. */
        public Source withWeights(String given) {
            return new Source(
                    model,
                    spec,
                    given,
                    weightsSha256,
                    seed,
                    dataset,
                    perClass,
                    pad,
                    method,
                    normalisation,
                    features,
                    perLayer,
                    factorKernels);
        }
    }

    /**
     * The Nyström approximation a plan computes the exact blocks of ({@link Nystrom}, Williams &amp; Seeger, NIPS
     * 2001): C = K(X, L), C* = K(X*, L) and the held-out K_SS of its error ({@link ApproxError}).
     *
     * @param spec {@code nystrom:M} (uniform landmarks)
     * @param landmarks L: m indices into the training images, increasing ({@link Nystrom#uniform}{@code (N, m,
     *     seed)}, as {@code ntk4j kernel --approx} draws them)
     * @param holdout S: the h training images the error is measured on, increasing ({@link ApproxError#holdout}{@code
     *     (N, h, seed + 0x5eed)})
     */
    public record Approx(String spec, int[] landmarks, int[] holdout) {
        /**
         * The Nyström approximation {@code spec} of the traced kernel of {@code request} on its N training images,
         * with the error measured on {@code holdout} of them: landmarks and held-out images drawn from the request's
         * seed as the single-machine job draws them. What cannot be planned as shards is a one-line {@link
         * UserException}: another approximation, leverage landmarks (they need a pilot pass over all N images first),
         * {@code nystrom:auto}, a mode other than trace, per-layer or factor kernels, more landmarks than images.
         */
        public static Approx of(ApproxSpec spec, int holdout, KernelRequest request, int n) {
            if (spec.kind() != ApproxSpec.Kind.NYSTROM) {
                throw new UserException("--approx " + spec + " is not planned as shards: only nystrom:M is (the"
                        + " N×m block is a shard); compute it with 'ntk4j kernel --approx " + spec
                        + "' on one machine");
            }
            if (spec.auto() || !"uniform".equals(spec.variant())) {
                throw new UserException("--approx " + spec + " is not planned as shards: "
                        + (spec.auto()
                                ? "nystrom:auto grows the landmarks from measured errors, one run after another"
                                : "leverage landmarks need a pilot pass over all N images first")
                        + "; plan nystrom:M (uniform landmarks) or compute it on one machine");
            }
            if (request.options().mode() != Mode.TRACE) {
                throw new UserException("--approx computes traced kernels; drop --mode "
                        + name(request.options().mode()) + " (or use --mode trace)");
            }
            if (request.options().perLayer() || request.options().factorKernels()) {
                throw new UserException("--approx writes the total kernel only; drop --per-layer and --factor-kernels");
            }
            if (holdout < 2) {
                throw new UserException("--approx-holdout must be >= 2 (got " + holdout + ")");
            }
            int m = spec.rank();
            if (m > n) {
                throw new UserException(
                        "--approx " + spec + " asks for " + m + " landmarks but there are only " + n + " train images");
            }
            long seed = request.seed();
            return new Approx(
                    spec.toString(), Nystrom.uniform(n, m, seed), ApproxError.holdout(n, holdout, seed + 0x5eedL));
        }
    }

    public ShardPlan {
        arrays = List.copyOf(arrays);
        shards = List.copyOf(shards);
    }

    /** The number of train images, after checking the worker count and shard size (one line each). */
    private static int trainCount(KernelRequest request, Integer shardSize, int workers, java.nio.file.Path dataDir) {
        if (workers < 1) {
            throw new OptionException(KernelOption.WORKERS, " must be >= 1 (got " + workers + ")");
        }
        if (shardSize != null && shardSize < 1) {
            throw new OptionException(KernelOption.SHARD_SIZE, " must be >= 1 (got " + shardSize + ")");
        }
        return request.samples().perClass() != null
                ? request.trainSet(dataDir).size()
                : request.samples().n();
    }

    /**
     * Plans {@code request} (its model, weights, samples, mode, dtype, options) for tasks with its memory budget each:
     * the tile is the request's fixed tile, else the largest whose working set fits half the budget ({@link
     * Ntk#tileEstimate}); the shard side is {@code shardSize} (rounded up to whole tiles), else the largest multiple
     * of the tile whose arrays fit the other half, made smaller (whole tiles still) until there are at least 4 shards
     * per worker of {@code workers}, so that the last shards do not leave workers idle for long. Builds the network
     * on {@code m} (to count outputs and layers) but reads no data, except the labels with {@code perClass} (from
     * {@code dataDir}); N may exceed the dataset for a plan that is only printed.
     */
    public static ShardPlan plan(
            KernelRequest request, Integer shardSize, int workers, java.nio.file.Path dataDir, NDManager m) {
        long perTaskMemory = request.options().memoryBytes();
        int n = trainCount(request, shardSize, workers, dataDir);
        int test = request.samples().test();
        try (NDManager pm = m.newSubManager();
                Network net = request.network(pm)) {
            Network target = request.features() ? net.features() : net;
            Ntk ntk = request.ntk(net).memory(Math.max(1, perTaskMemory / 2));
            Integer fixed = request.options().tile();
            int tile = fixed != null
                    ? fixed
                    : Math.min(
                            ntk.tileEstimate(n, n).tile(),
                            test > 0 ? ntk.tileEstimate(test, n).tile() : Integer.MAX_VALUE);
            if (tile == 0) {
                throw new OptionException(
                        KernelOption.MEMORY,
                        " " + Ntk.bytes(perTaskMemory)
                                + " per task is too small for even one-sample tiles: it needs at least "
                                + Ntk.bytes(2 * ntk.tileEstimate(n, n).minWorkingBytes()));
            }
            List<String> arrays = new ArrayList<>();
            arrays.add(TileRange.TRAIN);
            if (request.options().perLayer()) {
                for (Module l : target.parameterLayers()) {
                    arrays.add(TileRange.TRAIN + "." + l.name());
                }
            }
            if (request.options().factorKernels()) {
                for (LayerPlan l : ntk.plan(tile, tile).layers()) {
                    if (l.structured() && "dense".equals(l.ruleName())) {
                        arrays.add(TileRange.TRAIN + "." + l.name() + ".forward");
                        arrays.add(TileRange.TRAIN + "." + l.name() + ".backward");
                    }
                }
            }
            Mode mode = request.options().mode();
            DataType dtype = request.dtype();
            int o = target.outputs();
            long inner = inner(mode, o);
            long entryBytes = inner * (dtype == DataType.FLOAT64 ? 8 : 4) * arrays.size();
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
            Path w = request.weights();
            Source source = Source.of(request, w == null ? null : w.toString());
            List<TileRange> shards = shards(n, test, side);
            return new ShardPlan(
                            FORMAT, VERSION, null, source, n, test, o, mode, dtype, arrays, tile, side, shards, null)
                    .withId();
        }
    }

    /** The shards of the exact kernel: Θ(X1, X1)'s upper triangle by rows, then Θ(X2, X1)'s. */
    private static List<TileRange> shards(int n, int test, int side) {
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
        return shards;
    }

    /**
     * An approximation asked of a shard plan: {@code spec} ({@code nystrom:M}) with its error measured on {@code
     * holdout} training images.
     */
    public record ApproxRequest(ApproxSpec spec, int holdout) {}

    /**
     * Plans {@code request} as {@link #plan(KernelRequest, Integer, int, Path, NDManager)} does, or with {@code
     * approx} the exact blocks of its Nyström approximation ({@link Approx#of}): shards of whole tiles of rows and all
     * m columns, as many rows as fit half the budget (or {@code shardSize}), at least 4 shards per worker, and the
     * held-out block.
     */
    public static ShardPlan plan(
            KernelRequest request,
            ApproxRequest approx,
            Integer shardSize,
            int workers,
            java.nio.file.Path dataDir,
            NDManager m) {
        if (approx == null) {
            return plan(request, shardSize, workers, dataDir, m);
        }
        int n = trainCount(request, shardSize, workers, dataDir);
        Approx ap = Approx.of(approx.spec(), approx.holdout(), request, n);
        return nystrom(request, ap, n, request.samples().test(), shardSize, workers, m);
    }

    private static ShardPlan nystrom(
            KernelRequest request, Approx ap, int n, int test, Integer shardSize, int workers, NDManager m) {
        long perTaskMemory = request.options().memoryBytes();
        int lm = ap.landmarks().length;
        int h = ap.holdout().length;
        try (NDManager pm = m.newSubManager();
                Network net = request.network(pm)) {
            Network target = request.features() ? net.features() : net;
            Ntk ntk = request.ntk(net).memory(Math.max(1, perTaskMemory / 2));
            Integer fixed = request.options().tile();
            int tile = fixed != null
                    ? fixed
                    : Math.min(
                            Math.min(
                                    ntk.tileEstimate(n, lm).tile(),
                                    ntk.tileEstimate(h, h).tile()),
                            test > 0 ? ntk.tileEstimate(test, lm).tile() : Integer.MAX_VALUE);
            if (tile == 0) {
                throw new OptionException(
                        KernelOption.MEMORY,
                        " " + Ntk.bytes(perTaskMemory)
                                + " per task is too small for even one-sample tiles: it needs at least "
                                + Ntk.bytes(2 * ntk.tileEstimate(n, lm).minWorkingBytes()));
            }
            DataType dtype = request.dtype();
            long rowBytes = (long) lm * (dtype == DataType.FLOAT64 ? 8 : 4);
            int maxRows = Math.max(n, test);
            long cap = (long) (maxRows + tile - 1) / tile * tile;
            int side;
            if (shardSize != null) {
                side = (int) Math.min((long) (shardSize + tile - 1) / tile * tile, cap);
            } else {
                long fit = (long) ((perTaskMemory / 2.0) / rowBytes);
                side = (int) Math.min(cap, Math.max(tile, fit / tile * tile));
                while (side > tile && rowShards(n, side) + rowShards(test, side) + 1 < 4L * workers) {
                    side -= tile;
                }
            }
            List<TileRange> shards = new ArrayList<>();
            for (int r = 0; r < n; r += side) {
                shards.add(new TileRange(TileRange.TRAIN, r, Math.min(n, r + side), 0, lm));
            }
            for (int r = 0; r < test; r += side) {
                shards.add(new TileRange(TileRange.TEST, r, Math.min(test, r + side), 0, lm));
            }
            shards.add(new TileRange(TileRange.HOLDOUT, 0, h, 0, h));
            Path w = request.weights();
            Source source = Source.of(request, w == null ? null : w.toString());
            return new ShardPlan(
                            FORMAT,
                            VERSION,
                            null,
                            source,
                            n,
                            test,
                            target.outputs(),
                            Mode.TRACE,
                            dtype,
                            List.of(TileRange.TRAIN),
                            tile,
                            side,
                            shards,
                            ap)
                    .withId();
        }
    }

    private static long rowShards(int rows, int side) {
        return (rows + side - 1) / side;
    }

    /**
     * The request this plan computes: its model (the recorded spec), seed, samples, mode, dtype and options on the
     * plan's tile grid, the weights read from {@code weights} (this machine's copy of the plan's; null without
     * weights), the memory budget the engine's default (a computer sets its own).
     */
    public KernelRequest request(Path weights) {
        Source s = source;
        return KernelRequest.builder()
                .model(s.model())
                .spec(s.spec())
                .weights(weights)
                .seed(s.seed())
                .dataset(s.dataset())
                .n(n)
                .perClass(s.perClass())
                .test(test)
                .pad(s.pad())
                .mode(mode)
                .method(s.method())
                .dtype(dtype)
                .meanNormalised("mean".equals(s.normalisation()))
                .perLayer(s.perLayer())
                .features(s.features())
                .factorKernels(s.factorKernels())
                .tile(tile)
                .build();
    }

    /** This plan with the source's weights recorded as {@code given} (a URI, say) and its id recomputed. */
    public ShardPlan withWeightsAsGiven(String given) {
        return new ShardPlan(
                        format,
                        version,
                        null,
                        source.withWeights(given),
                        n,
                        test,
                        outputs,
                        mode,
                        dtype,
                        arrays,
                        tile,
                        shardSize,
                        shards,
                        approx)
                .withId();
    }

    /** Shards of a plan with side {@code side}: Θ(X1, X1)'s upper triangle and Θ(X2, X1) whole. */
    static long count(int n, int test, int side) {
        long t = (n + side - 1) / side;
        long m = (test + side - 1) / side;
        return t * (t + 1) / 2 + m * t;
    }

    private static long inner(Mode mode, int o) {
        return switch (mode) {
            case TRACE -> 1;
            case DIAGONAL -> o;
            default -> (long) o * o;
        };
    }

    /** This plan with its {@link #id()} computed from the rest (the hash of its JSON without the id). */
    public ShardPlan withId() {
        ShardPlan bare = new ShardPlan(
                format, version, null, source, n, test, outputs, mode, dtype, arrays, tile, shardSize, shards, approx);
        String hash = sha256(JSON.toJson(bare)).substring(0, 16);
        return new ShardPlan(
                format, version, hash, source, n, test, outputs, mode, dtype, arrays, tile, shardSize, shards, approx);
    }

    /** The plan as JSON (what {@code plan.json} holds). */
    public String toJson() {
        return JSON.toJson(this) + "\n";
    }

    /**
     * Reads a plan from its JSON; {@code origin} names it in messages. A plan that is not one, of another version,
     * or whose content does not match its id (edited by hand, truncated) is a one-line {@link UserException}.
     */
    public static ShardPlan fromJson(String json, String origin) {
        ShardPlan p;
        try {
            p = JSON.fromJson(json, ShardPlan.class);
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

    /** The lower-case name of a mode, method or data type, as the plan's JSON and messages write it. */
    public static String name(Object v) {
        return v instanceof Enum<?> e && !(v instanceof DataType)
                ? e.name().toLowerCase(Locale.ROOT)
                : String.valueOf(v);
    }

    /** An enum written by its lower-case name; an unknown name is a parse error. */
    private static final class ByName<E extends Enum<E>> extends TypeAdapter<E> {
        private final Class<E> type;

        ByName(Class<E> type) {
            this.type = type;
        }

        @Override
        public void write(JsonWriter out, E value) throws IOException {
            if (value == null) {
                out.nullValue();
            } else {
                out.value(value.name().toLowerCase(Locale.ROOT));
            }
        }

        @Override
        public E read(JsonReader in) throws IOException {
            String s = in.nextString();
            try {
                return Enum.valueOf(type, s.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new JsonParseException("unknown " + type.getSimpleName().toLowerCase(Locale.ROOT) + " " + s);
            }
        }
    }

    /** FLOAT32 and FLOAT64 written as float32 and float64. */
    private static final class DtypeByName extends TypeAdapter<DataType> {
        @Override
        public void write(JsonWriter out, DataType value) throws IOException {
            if (value == null) {
                out.nullValue();
            } else {
                out.value(value == DataType.FLOAT64 ? "float64" : "float32");
            }
        }

        @Override
        public DataType read(JsonReader in) throws IOException {
            String s = in.nextString();
            return switch (s) {
                case "float32" -> DataType.FLOAT32;
                case "float64" -> DataType.FLOAT64;
                default -> throw new JsonParseException("unknown dtype " + s);
            };
        }
    }

    /**
     * The arrays of every shard of {@code kernel}: those of {@link #arrays()}, renamed ntk_test.* for Θ(X2, X1) (and
     * ntk_holdout for a Nyström plan's K_SS) (no factor kernels).
     */
    public List<String> arrays(String kernel) {
        if (TileRange.TRAIN.equals(kernel)) {
            return arrays;
        }
        List<String> out = new ArrayList<>();
        for (String a : arrays) {
            if (!a.endsWith(".forward") && !a.endsWith(".backward")) {
                out.add(kernel + a.substring(TileRange.TRAIN.length()));
            }
        }
        return out;
    }

    /** The kernels of the plan with rows: ntk, ntk_test (with test samples), ntk_holdout (a Nyström plan). */
    public List<String> kernels() {
        List<String> out = new ArrayList<>();
        for (String k : List.of(TileRange.TRAIN, TileRange.TEST, TileRange.HOLDOUT)) {
            if (rows(k) > 0) {
                out.add(k);
            }
        }
        return out;
    }

    /** Whether {@code kernel}'s values are symmetric: Θ(X1, X1), or a Nyström plan's K_SS (not its C). */
    public boolean symmetric(String kernel) {
        return approx == null ? TileRange.TRAIN.equals(kernel) : TileRange.HOLDOUT.equals(kernel);
    }

    /** Rows of {@code kernel}: N, or M for Θ(X2, X1) (C and C* of a Nyström plan), h for its K_SS. */
    public int rows(String kernel) {
        return switch (kernel) {
            case TileRange.TRAIN -> n;
            case TileRange.TEST -> test;
            default -> approx == null ? 0 : approx.holdout().length;
        };
    }

    /** Columns of {@code kernel}: N, or in a Nyström plan m (the landmarks) for C and C*, h for K_SS. */
    public int cols(String kernel) {
        if (approx == null) {
            return n;
        }
        return TileRange.HOLDOUT.equals(kernel) ? approx.holdout().length : approx.landmarks().length;
    }

    /**
     * The training images of {@code kernel}'s columns: null when column j is image j (the exact kernel), else the
     * landmarks (C and C* of a Nyström plan) or the held-out images (K_SS).
     */
    public int[] columnImages(String kernel) {
        if (approx == null) {
            return null;
        }
        return TileRange.HOLDOUT.equals(kernel) ? approx.holdout() : approx.landmarks();
    }

    /** The images of {@code kernel}'s rows: null when row i is image i of its split, else the held-out images. */
    public int[] rowImages(String kernel) {
        return approx != null && TileRange.HOLDOUT.equals(kernel) ? approx.holdout() : null;
    }

    /** The shape of one entry: () for trace, (O) for diagonal, (O, O) for full; factor kernels are traced. */
    public long[] innerShape(String array) {
        if (array.endsWith(".forward") || array.endsWith(".backward") || mode == Mode.TRACE) {
            return new long[0];
        }
        return mode == Mode.DIAGONAL ? new long[] {outputs} : new long[] {outputs, outputs};
    }

    /** The whole shape of {@code array} in the assembled kernel: (rows, columns, inner...). */
    public long[] shape(String array) {
        String kernel = array.startsWith(TileRange.HOLDOUT)
                ? TileRange.HOLDOUT
                : array.startsWith(TileRange.TEST) ? TileRange.TEST : TileRange.TRAIN;
        long[] inner = innerShape(array);
        long[] s = new long[2 + inner.length];
        s[0] = rows(kernel);
        s[1] = cols(kernel);
        System.arraycopy(inner, 0, s, 2, inner.length);
        return s;
    }

    /** Bytes per stored value: 4 (float32) or 8 (float64). */
    public int valueBytes() {
        return dtype == DataType.FLOAT64 ? 8 : 4;
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
        KernelOption rowOption = TileRange.rowOption(k);
        int rows = rows(k);
        if (rows == 0 && TileRange.HOLDOUT.equals(k)) {
            throw new OptionException(
                    KernelOption.HOLDOUT_ROWS, ": the plan has no held-out block (it is not a Nyström plan)");
        }
        if (rows == 0) {
            throw new OptionException(
                    KernelOption.TEST_ROWS,
                    ": the plan has no test×train kernel (it was planned with ",
                    KernelOption.TEST,
                    " 0)");
        }
        if (requested.rowEnd() > rows) {
            throw new OptionException(
                    rowOption,
                    " " + requested.rowStart() + ":" + requested.rowEnd() + " is out of range: the kernel has " + rows
                            + " rows (0:" + rows + ")");
        }
        int cols = cols(k);
        if (requested.colEnd() > cols) {
            throw new OptionException(
                    KernelOption.COLS,
                    " " + requested.colStart() + ":" + requested.colEnd() + " is out of range: the kernel has " + cols
                            + " columns (0:" + cols + ")"
                            + (approx != null && !TileRange.HOLDOUT.equals(k) ? ", one per landmark" : ""));
        }
        for (TileRange s : shards) {
            if (s.equals(requested)) {
                return s;
            }
        }
        TileRange mirrored =
                new TileRange(k, requested.colStart(), requested.colEnd(), requested.rowStart(), requested.rowEnd());
        if (symmetric(k) && shards.contains(mirrored)) {
            throw new OptionException(
                    requested.options(),
                    " lies below the diagonal of the symmetric kernel; compute its mirror image ",
                    mirrored.options(),
                    " (assembly transposes it)");
        }
        List<TileRange> hit =
                shards.stream().filter(s -> s.overlaps(requested)).limit(2).toList();
        Object[] near = hit.isEmpty()
                ? new Object[0]
                : new Object[] {" (it overlaps ", hit.get(0).options(), (hit.size() > 1 ? ", ..." : "") + ")"};
        throw new OptionException(
                requested.options(),
                " is not a shard of the plan: shards are "
                        + (approx == null
                                ? shardSize + "×" + shardSize + " blocks on the grid of " + shardSize + " samples"
                                : "rows on the grid of " + shardSize + " samples × all " + cols(k) + " columns"),
                near,
                "; 'ntk4j kernel ... ",
                KernelOption.DRY_RUN,
                "' lists them");
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
            {"mode", name(mode), name(other.mode)},
            {"dtype", name(dtype), name(other.dtype)},
            {"seed", String.valueOf(a.seed()), String.valueOf(b.seed())},
            {"per-class", String.valueOf(a.perClass()), String.valueOf(b.perClass())},
            {"pad", String.valueOf(a.pad()), String.valueOf(b.pad())},
            {"method", name(a.method()), name(b.method())},
            {"normalisation", a.normalisation(), b.normalisation()},
            {"features", String.valueOf(a.features()), String.valueOf(b.features())},
            {"per-layer", String.valueOf(a.perLayer()), String.valueOf(b.perLayer())},
            {"factor-kernels", String.valueOf(a.factorKernels()), String.valueOf(b.factorKernels())},
            {"tile", String.valueOf(tile), String.valueOf(other.tile)},
            {"shard size", String.valueOf(shardSize), String.valueOf(other.shardSize)},
            {"approx", approx == null ? "exact" : approx.spec(), other.approx == null ? "exact" : other.approx.spec()},
            {
                "approx holdout",
                String.valueOf(approx == null ? 0 : approx.holdout().length),
                String.valueOf(other.approx == null ? 0 : other.approx.holdout().length)
            },
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
