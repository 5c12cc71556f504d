package org.ntk4j.spark;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.ntk4j.UserException;
import org.ntk4j.shard.ShardData;
import org.ntk4j.shard.ShardPlan;
import org.ntk4j.shard.ShardStore;
import org.ntk4j.shard.TileRange;

/**
 * The core's {@link ShardStore} layout on any Hadoop file system ({@code hdfs://}, {@code s3a://}, or a
 * local path / {@code file://} through the raw local file system):
 *
 * <pre>
 * OUT/plan.json                   the plan, written once by the driver
 * OUT/shards/&lt;name&gt;/&lt;array&gt;.npy   a shard's arrays
 * OUT/shards/&lt;name&gt;.json          its sidecar (plan id, range, SHA-256 of each .npy), written last
 * </pre>
 *
 * A task writes its shard into a local {@link ShardStore} of the same plan (the core's writer), then copies
 * the shard's folder (to a temporary name, renamed into place) and then its sidecar, so that a shard whose
 * sidecar is there is whole; a killed task leaves at most a temporary folder, never a shard that looks
 * complete. A shard is valid when its sidecar names this plan and every file's SHA-256 matches it.
 * {@code ntk4j kernel assemble} reads the store (a local copy of it: {@code hdfs dfs -get OUT}).
 */
final class HadoopStore {
    /** What {@link #check} returns for a shard with no sidecar. */
    static final String MISSING = "missing";

    private final Path root;
    private final FileSystem fs;
    private int tempsRemoved;

    HadoopStore(String uri, Configuration conf) {
        Path p = new Path(uri);
        try {
            String scheme = p.toUri().getScheme();
            if (scheme == null || scheme.equals("file")) {
                // the raw local file system: no .crc files beside the shards
                fs = FileSystem.getLocal(conf).getRaw();
                root = fs.makeQualified(new Path(
                        java.nio.file.Path.of(scheme == null ? uri : p.toUri().getPath())
                                .toAbsolutePath()
                                .toUri()));
            } else {
                fs = p.getFileSystem(conf);
                root = fs.makeQualified(p);
            }
        } catch (IOException | RuntimeException e) {
            throw new UserException(uri + ": no file system for the output store (" + e.getMessage() + ")", e);
        }
    }

    Path root() {
        return root;
    }

    /** Temporary files and folders of killed tasks that {@link #preparePlan} removed. */
    int tempsRemoved() {
        return tempsRemoved;
    }

    private Path shards() {
        return new Path(root, "shards");
    }

    private Path shardDir(TileRange r) {
        return new Path(shards(), r.name());
    }

    private Path sidecar(TileRange r) {
        return new Path(shards(), r.name() + ".json");
    }

    /**
     * On the driver: writes plan.json when the store has none; a plan.json of another plan, or a shard sidecar of
     * another plan in shards/, is a one-line {@link UserException}. Removes the temporary copies that killed
     * tasks left in shards/ ({@code .<name>.<uuid>.tmp}).
     */
    void preparePlan(ShardPlan plan) {
        Path file = new Path(root, "plan.json");
        try {
            fs.mkdirs(shards());
            if (!fs.exists(file)) {
                Path tmp = new Path(root, ".plan.json." + java.util.UUID.randomUUID() + ".tmp");
                try (OutputStream out = fs.create(tmp, false)) {
                    out.write(plan.toJson().getBytes(StandardCharsets.UTF_8));
                }
                if (!fs.rename(tmp, file)) {
                    fs.delete(tmp, false); // another driver wrote it meanwhile: compared below
                }
            }
            ShardPlan there = ShardPlan.fromJson(readString(file), file.toString());
            String diff = there.difference(plan);
            if (diff != null) {
                throw new UserException(file + " is another plan (" + there.id() + "): " + diff
                        + "; shards of different kernels do not mix: use another --out");
            }
            for (FileStatus s : fs.listStatus(shards())) {
                String name = s.getPath().getName();
                if (name.startsWith(".") && name.endsWith(".tmp")) {
                    // left by a task that was killed while copying its shard (one job per store at a time)
                    fs.delete(s.getPath(), true);
                    tempsRemoved++;
                } else if (s.isFile() && name.endsWith(".json")) {
                    String id = planOf(s.getPath());
                    if (!plan.id().equals(id)) {
                        throw new UserException(s.getPath() + " belongs to plan " + id + ", not to this store's plan "
                                + plan.id() + " (a shard of another kernel): remove it, or use another --out");
                    }
                }
            }
        } catch (IOException e) {
            throw new UserException(root + ": cannot write the shard store (" + e.getMessage() + ")", e);
        }
    }

    /** The shard size of the plan already in the store; null when it has none (or an unreadable one). */
    Integer existingShardSize() {
        Path file = new Path(root, "plan.json");
        try {
            if (!fs.exists(file)) {
                return null;
            }
            return ShardPlan.fromJson(readString(file), file.toString()).shardSize();
        } catch (IOException | UserException e) {
            return null; // preparePlan reports it
        }
    }

    /**
     * In a task: null when the shard is valid (its sidecar names the plan, every file matches its SHA-256);
     * {@link #MISSING} when it has no sidecar; otherwise why it is corrupt.
     */
    String check(ShardPlan plan, TileRange r) {
        Path side = sidecar(r);
        try {
            if (!fs.exists(side)) {
                return MISSING;
            }
            JsonObject o = JsonParser.parseString(readString(side)).getAsJsonObject();
            String id = o.has("plan") ? o.get("plan").getAsString() : null;
            if (!plan.id().equals(id)) {
                throw new UserException(side + " belongs to plan " + id + ", not to this store's plan " + plan.id()
                        + " (a shard of another kernel): remove it, or use another --out");
            }
            Map<String, String> files = new LinkedHashMap<>();
            for (Map.Entry<String, JsonElement> e : o.getAsJsonObject("files").entrySet()) {
                files.put(e.getKey(), e.getValue().getAsString());
            }
            for (String a : plan.arrays(r.kernel())) {
                if (!files.containsKey(a + ".npy")) {
                    return "the sidecar lists no " + a + ".npy";
                }
            }
            for (Map.Entry<String, String> e : files.entrySet()) {
                Path f = new Path(shardDir(r), e.getKey());
                String h;
                try (InputStream in = fs.open(f)) {
                    h = ShardHash.sha256(in);
                } catch (FileNotFoundException ex) {
                    return e.getKey() + " is missing";
                }
                if (!h.equals(e.getValue())) {
                    return e.getKey() + " has sha256 " + h.substring(0, 16) + "..., its sidecar says "
                            + e.getValue()
                                    .substring(0, Math.min(16, e.getValue().length())) + "...";
                }
            }
            return null;
        } catch (IOException | IllegalStateException | com.google.gson.JsonParseException e) {
            return "unreadable sidecar or files (" + e.getMessage() + ")";
        }
    }

    /** In a task: writes a computed shard (through a local {@link ShardStore} of the same plan), sidecar last. */
    void write(ShardPlan plan, ShardData d) {
        TileRange r = d.range();
        java.nio.file.Path local = null;
        try {
            local = Files.createTempDirectory("ntk4j-shard-");
            ShardStore store = ShardStore.create(local, plan);
            store.write(d);
            Path side = sidecar(r);
            Path dir = shardDir(r);
            fs.delete(side, false); // an old sidecar never describes new files
            Path tmpDir = new Path(shards(), "." + r.name() + "." + java.util.UUID.randomUUID() + ".tmp");
            fs.mkdirs(tmpDir);
            try (var files = Files.list(store.shardDir(r))) {
                for (java.nio.file.Path f : files.toList()) {
                    copy(f, new Path(tmpDir, f.getFileName().toString()));
                }
            }
            fs.delete(dir, true);
            if (!fs.rename(tmpDir, dir)) {
                throw new IOException("cannot rename " + tmpDir + " to " + dir);
            }
            Path tmpSide = new Path(shards(), "." + r.name() + ".json." + java.util.UUID.randomUUID() + ".tmp");
            copy(store.sidecar(r), tmpSide);
            if (!fs.rename(tmpSide, side)) {
                fs.delete(tmpSide, false);
                throw new IOException("cannot rename " + tmpSide + " to " + side);
            }
        } catch (IOException e) {
            throw new UserException(root + ": cannot write shard " + r.name() + " (" + e.getMessage() + ")", e);
        } finally {
            deleteLocal(local);
        }
    }

    /** The shards of the plan valid in the store (read on the driver after a failed job, for its message). */
    int countValid(ShardPlan plan) {
        int n = 0;
        for (TileRange r : plan.shards()) {
            if (check(plan, r) == null) {
                n++;
            }
        }
        return n;
    }

    /** The plan's shards missing or corrupt in the store, in the plan's order. */
    List<TileRange> invalid(ShardPlan plan) {
        List<TileRange> out = new ArrayList<>();
        for (TileRange r : plan.shards()) {
            if (check(plan, r) != null) {
                out.add(r);
            }
        }
        return out;
    }

    private void copy(java.nio.file.Path from, Path to) throws IOException {
        try (InputStream in = Files.newInputStream(from);
                OutputStream out = fs.create(to, true)) {
            in.transferTo(out);
        }
    }

    private String planOf(Path side) {
        try {
            JsonObject o = JsonParser.parseString(readString(side)).getAsJsonObject();
            return o.has("plan") ? o.get("plan").getAsString() : null;
        } catch (IOException | RuntimeException e) {
            return "(unreadable sidecar: " + e.getMessage() + ")";
        }
    }

    private String readString(Path p) throws IOException {
        try (InputStream in = fs.open(p)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static void deleteLocal(java.nio.file.Path dir) {
        if (dir == null) {
            return;
        }
        try (var s = Files.walk(dir)) {
            for (java.nio.file.Path p :
                    s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a temporary folder left behind is harmless
        }
    }
}
