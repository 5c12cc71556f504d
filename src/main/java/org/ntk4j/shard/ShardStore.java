package org.ntk4j.shard;

import ai.djl.ndarray.NDManager;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.ntk4j.OptionException;
import org.ntk4j.UserException;
import org.ntk4j.io.KernelFiles;
import org.ntk4j.report.Files2;
import org.ntk4j.report.Npz;
import org.ntk4j.request.KernelRequest;
import org.ntk4j.spec.Specs;

/**
 * A directory of shards of one {@link ShardPlan}, on a local (or mounted shared) file system:
 *
 * <pre>
 * DIR/plan.json                       the plan, written once
 * DIR/shards/&lt;name&gt;/&lt;array&gt;.npy      a shard's arrays (rows × cols[ × O[ × O]]), float32 or float64
 * DIR/shards/&lt;name&gt;.json             its sidecar: plan id, range, SHA-256 of each .npy, seconds, host
 * DIR/manifest.json                   written by {@link ShardAssembler}
 * </pre>
 *
 * {@code <name>} is {@link TileRange#name()}. A shard is written as a whole: its directory appears atomically
 * (written beside it, then moved), its sidecar after it (atomically too); a shard without sidecar, or whose files
 * do not match the sidecar's checksums, does not exist. Several processes may write different shards of one store
 * at the same time (each shard has its own files); two writing the same shard leave one complete copy.
 */
public final class ShardStore {
    /** The {@code format} field of a shard's sidecar. */
    public static final String SHARD_FORMAT = "ntk4j-shard";

    private final Path dir;
    private final ShardPlan plan;

    private ShardStore(Path dir, ShardPlan plan) {
        this.dir = dir;
        this.plan = plan;
    }

    /**
     * Opens the store in {@code dir} for {@code plan}, creating it (and writing plan.json) when it has no plan
     * yet. A plan.json of another plan (other weights, model, dataset, N, mode, dtype, tile...) is a one-line
     * {@link UserException} naming the first field that differs.
     */
    public static ShardStore create(Path dir, ShardPlan plan) {
        Path file = dir.resolve("plan.json");
        try {
            Files.createDirectories(dir.resolve("shards"));
            if (!Files.exists(file)) {
                Path tmp = org.ntk4j.files.TempFiles.file(file);
                try {
                    Files.writeString(tmp, plan.toJson(), StandardCharsets.UTF_8);
                    Files.move(tmp, file); // no replace: a plan written meanwhile by another process wins
                } catch (FileAlreadyExistsException e) {
                    // checked below
                } finally {
                    org.ntk4j.files.TempFiles.delete(tmp);
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            throw new UserException("cannot write the shard store " + dir + ": " + e.getMessage());
        }
        ShardStore s = open(dir);
        String diff = s.plan.difference(plan);
        if (diff != null) {
            throw new UserException(file + " is another plan (" + s.plan.id() + "): " + diff
                    + "; shards of different kernels do not mix: use another directory");
        }
        return s;
    }

    /**
     * The plan of {@code request} for the store in {@code dir}: when the store has a plan already, its tile and
     * shard size are kept unless the request's tile or {@code shardSize} name others (so later shards need only the
     * same kernel options); else a new plan for {@code workers} ({@link ShardPlan#plan}). Nothing is written;
     * {@link #create} checks the plan against the store's.
     */
    public static ShardPlan planFor(
            Path dir, KernelRequest request, Integer shardSize, int workers, Path dataDir, NDManager m) {
        return planFor(dir, request, null, shardSize, workers, dataDir, m);
    }

    /**
     * As {@link #planFor(Path, KernelRequest, Integer, int, Path, NDManager)}, for the exact blocks of a Nyström
     * approximation ({@code approx}; null: the exact kernel).
     */
    public static ShardPlan planFor(
            Path dir,
            KernelRequest request,
            ShardPlan.ApproxRequest approx,
            Integer shardSize,
            int workers,
            Path dataDir,
            NDManager m) {
        if (Files.isRegularFile(dir.resolve("plan.json"))) {
            ShardPlan old = open(dir).plan();
            KernelRequest r = request.options().tile() != null
                    ? request
                    : request.toBuilder().tile(old.tile()).build();
            return ShardPlan.plan(r, approx, shardSize != null ? shardSize : old.shardSize(), 1, dataDir, m);
        }
        return ShardPlan.plan(request, approx, shardSize, workers, dataDir, m);
    }

    /** Opens an existing store; a directory without a readable plan.json is a one-line {@link UserException}. */
    public static ShardStore open(Path dir) {
        Path file = dir.resolve("plan.json");
        if (!Files.isRegularFile(file)) {
            throw new UserException(dir + " is not a shard store (no plan.json)");
        }
        try {
            return new ShardStore(
                    dir, ShardPlan.fromJson(Files.readString(file, StandardCharsets.UTF_8), file.toString()));
        } catch (IOException e) {
            throw new UserException("cannot read " + file + ": " + e.getMessage());
        }
    }

    public Path dir() {
        return dir;
    }

    public ShardPlan plan() {
        return plan;
    }

    /** The directory of a shard's .npy files. */
    public Path shardDir(TileRange r) {
        return dir.resolve("shards").resolve(r.name());
    }

    /** A shard's sidecar. */
    public Path sidecar(TileRange r) {
        return dir.resolve("shards").resolve(r.name() + ".json");
    }

    /**
     * Writes a computed shard: its arrays as .npy files into {@link #shardDir} (atomically), then its sidecar with
     * the plan id, the range and each file's SHA-256. The range must be a shard of the plan; its arrays the plan's.
     */
    public void write(ShardData d) {
        TileRange r = plan.shard(d.range());
        List<String> want = plan.arrays(r.kernel());
        if (!want.equals(new ArrayList<>(d.arrays().keySet()))) {
            throw new IllegalArgumentException("shard arrays " + d.arrays().keySet() + ", plan " + want);
        }
        Npz npz = new Npz().format(Npz.Format.NPY);
        d.arrays().forEach(npz::put);
        Path sd = shardDir(r);
        try {
            Files.deleteIfExists(sidecar(r)); // an old sidecar never describes new files
        } catch (IOException e) {
            throw new UserException("cannot write " + sidecar(r) + ": " + e.getMessage());
        }
        npz.write(sd);
        Sidecar side = new Sidecar(
                SHARD_FORMAT,
                plan.id(),
                r.kernel(),
                new int[] {r.rowStart(), r.rowEnd()},
                new int[] {r.colStart(), r.colEnd()},
                ShardPlan.name(plan.dtype()),
                KernelFiles.sha256Dir(sd),
                d.seconds(),
                d.timings(),
                host());
        Files2.writeString(sidecar(r), Specs.toJson(side) + "\n");
    }

    /**
     * A shard's sidecar ({@code shards/<name>.json}).
     *
     * @param format {@value #SHARD_FORMAT}
     * @param plan the plan's id
     * @param kernel {@link TileRange#TRAIN}, {@link TileRange#TEST} or {@link TileRange#HOLDOUT}
     * @param rows first and last (exclusive) row
     * @param cols first and last (exclusive) column
     * @param dtype float32 or float64
     * @param files SHA-256 of each .npy file of the shard, by file name
     * @param seconds the block's compute seconds
     * @param phases its seconds by phase
     * @param host the machine that computed it
     */
    public record Sidecar(
            String format,
            String plan,
            String kernel,
            int[] rows,
            int[] cols,
            String dtype,
            java.util.SortedMap<String, String> files,
            double seconds,
            Map<String, Double> phases,
            String host) {}

    private static String host() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** Whether a shard is complete: its sidecar names this plan and every file matches its checksum. */
    public boolean exists(TileRange r) {
        try {
            verify(r);
            return true;
        } catch (UserException e) {
            return false;
        }
    }

    /**
     * Checks a shard, returning the SHA-256 of each of its files by file name; a missing shard, a shard of another
     * plan, a missing or extra file, or a file whose checksum differs from its sidecar's is a one-line {@link
     * UserException}.
     */
    public Map<String, String> verify(TileRange r) {
        Path side = sidecar(r);
        if (!Files.isRegularFile(side)) {
            throw new OptionException("shard ", r.options(), " is missing (no " + dir.relativize(side) + ")");
        }
        JsonObject o = readSidecar(side);
        String id = o.has("plan") ? o.get("plan").getAsString() : null;
        if (!plan.id().equals(id)) {
            throw new UserException(side + " belongs to plan " + id + ", not to this store's plan " + plan.id()
                    + " (a shard of another kernel)");
        }
        Map<String, String> files = new LinkedHashMap<>();
        for (Map.Entry<String, JsonElement> e : o.getAsJsonObject("files").entrySet()) {
            files.put(e.getKey(), e.getValue().getAsString());
        }
        Map<String, String> expected = new LinkedHashMap<>();
        for (String a : plan.arrays(r.kernel())) {
            expected.put(a + ".npy", files.get(a + ".npy"));
        }
        if (!new java.util.TreeSet<>(files.keySet()).equals(new java.util.TreeSet<>(expected.keySet()))) {
            throw new UserException(
                    side + " lists " + files.keySet() + " but the plan's shards hold " + expected.keySet());
        }
        Path sd = shardDir(r);
        for (Map.Entry<String, String> e : files.entrySet()) {
            Path f = sd.resolve(e.getKey());
            if (!Files.isRegularFile(f)) {
                throw new OptionException("shard ", r.options(), ": " + dir.relativize(f) + " is missing");
            }
            String h = KernelFiles.sha256(f);
            if (!h.equals(e.getValue())) {
                throw new OptionException(
                        "shard ",
                        r.options(),
                        ": " + dir.relativize(f) + " has sha256 " + h.substring(0, 16) + "..., its sidecar says "
                                + e.getValue().substring(0, 16) + "... (corrupt: compute it again)");
            }
        }
        return files;
    }

    private static JsonObject readSidecar(Path side) {
        try {
            JsonObject o = JsonParser.parseString(Files.readString(side, StandardCharsets.UTF_8))
                    .getAsJsonObject();
            if (!SHARD_FORMAT.equals(o.has("format") ? o.get("format").getAsString() : null) || !o.has("files")) {
                throw new UserException(side + " is not a shard sidecar");
            }
            return o;
        } catch (IOException | RuntimeException e) {
            if (e instanceof UserException u) {
                throw u;
            }
            throw new UserException(side + ": cannot read the shard sidecar (" + e.getMessage() + ")");
        }
    }

    /** The plan's shards not yet complete ({@link #exists} false), in the plan's order. */
    public List<TileRange> missing() {
        return plan.shards().stream().filter(r -> !exists(r)).toList();
    }

    /**
     * Sidecars in {@code shards/} that are not a shard of this plan (another plan's, or a range the plan has
     * not), by file name.
     */
    public List<String> strays() {
        java.util.Set<String> names = new java.util.HashSet<>();
        plan.shards().forEach(r -> names.add(r.name() + ".json"));
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir.resolve("shards"))) {
            for (Path p : s.filter(p -> p.getFileName().toString().endsWith(".json"))
                    .sorted()
                    .toList()) {
                if (!names.contains(p.getFileName().toString())) {
                    out.add(p.getFileName().toString());
                }
            }
        } catch (IOException e) {
            throw new UserException("cannot list " + dir.resolve("shards") + ": " + e.getMessage());
        }
        return out;
    }

    /** Deletes every shard's files (after assembly): shards/ and its contents. */
    void deleteShards() {
        Path sd = dir.resolve("shards");
        try (Stream<Path> s = Files.walk(sd)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UserException("cannot delete " + sd + ": " + e.getMessage());
        }
    }

    /** Moves {@code tmp} onto {@code target} atomically, replacing it. */
    static void publish(Path tmp, Path target) {
        try {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UserException("cannot write " + target + ": " + e.getMessage());
        }
    }
}
