package org.ntk4j.report;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.ntk4j.UserException;
import org.ntk4j.spec.Specs;

/**
 * A run's folder: the resolved spec ({@code spec.json}), {@code metrics.jsonl} (one JSON object
 * per measurement, appended and flushed as they come), checkpoints, plots and {@code report.html}.
 */
public final class RunFolder implements AutoCloseable {
    /** The lock file: the owner's pid, held with an OS file lock while a run writes the folder. */
    public static final String LOCK = ".ntk4j.lock";
    /** Files a run writes (what {@link #clearRunFiles} removes before a forced fresh run). */
    static final java.util.List<String> RUN_FILES = java.util.List.of(
            "args.json",
            "metrics.jsonl",
            "weights.npz",
            "report.html",
            "model.json",
            "train.json",
            "checkpoint",
            "checkpoint.prev",
            "checkpoint.old",
            "checkpoint.tmp",
            "results.json",
            Figure.INDEX);

    private final Path dir;
    private java.nio.channels.FileChannel lockChannel;
    private java.nio.channels.FileLock lock;

    public RunFolder(Path dir) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UserException(dir + ": cannot create run folder (" + e.getMessage() + ")");
        }
    }

    /** An existing run folder (a directory with a metrics.jsonl), e.g. to report on it; nothing is created. */
    public static RunFolder existing(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new UserException(dir + ": no such run folder");
        }
        if (!Files.isRegularFile(dir.resolve("metrics.jsonl"))) {
            throw new UserException(dir + ": not a run folder (no metrics.jsonl)");
        }
        return new RunFolder(dir);
    }

    public Path dir() {
        return dir;
    }

    /**
     * Takes the folder's lock (idempotent for this object): {@value #LOCK} holds the owner's pid under
     * an OS file lock, so a second run on the folder, in this or another process, is refused with the
     * owner's pid; a lock file left by a killed process (the OS released its lock) is taken over with
     * a message. Returns whether this call took it (false: this object held it already).
     */
    public synchronized boolean lock() {
        if (lock != null) {
            return false;
        }
        Path f = file(LOCK);
        try {
            java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(
                    f, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            java.nio.channels.FileLock l;
            try {
                l = ch.tryLock();
            } catch (java.nio.channels.OverlappingFileLockException e) {
                ch.close();
                throw new UserException(dir + ": in use by another run in this process (" + f + ")");
            }
            if (l == null) {
                String owner = readPid(ch);
                ch.close();
                throw new UserException(dir + ": in use by process " + owner + " (lock " + f
                        + "); wait for it to finish," + " or use another folder");
            }
            // read through the locked channel: closing any other descriptor of the file would drop
            // this process's POSIX lock
            String old = readPid(ch);
            long me = ProcessHandle.current().pid();
            if (!old.isEmpty() && !old.equals(Long.toString(me))) {
                System.err.println(
                        "ntk4j: taking over the stale lock of process " + old + " (no longer running) in " + dir);
            }
            ch.truncate(0);
            ch.write(java.nio.ByteBuffer.wrap((me + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            ch.force(false);
            lockChannel = ch;
            lock = l;
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String readPid(java.nio.channels.FileChannel ch) {
        try {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(64);
            int n = ch.read(b, 0);
            return n <= 0 ? "" : new String(b.array(), 0, n, StandardCharsets.US_ASCII).strip();
        } catch (IOException e) {
            return "?";
        }
    }

    /** Releases the lock (deleting the lock file); no-op when not held. */
    public synchronized void unlock() {
        if (lock == null) {
            return;
        }
        try {
            Files.deleteIfExists(file(LOCK));
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            // the OS drops the lock when the channel or the process goes
        } finally {
            lock = null;
            lockChannel = null;
        }
    }

    @Override
    public void close() {
        unlock();
    }

    /** Whether the folder holds anything but its lock file (a missing folder counts as empty). */
    public static boolean hasContent(Path dir) {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (var s = Files.list(dir)) {
            return s.anyMatch(p -> !p.getFileName().toString().equals(LOCK));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Removes what an earlier run left (args, metrics, checkpoints, weights, report, plots, probe
     * kernels) before a forced fresh run; other files are left alone.
     */
    public void clearRunFiles() {
        try (var s = Files.list(dir)) {
            for (Path p : s.toList()) {
                String n = p.getFileName().toString();
                if (RUN_FILES.contains(n)
                        || n.endsWith(".png")
                        || n.endsWith(".csv") // a plot's data when no PNG could be drawn
                        || n.startsWith("ntk-step") && n.endsWith(".npz")) {
                    deleteTree(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        count = -1;
    }

    private static void deleteTree(Path p) throws IOException {
        if (Files.isDirectory(p)) {
            try (var s = Files.walk(p)) {
                for (Path q : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(q);
                }
            }
        } else {
            Files.deleteIfExists(p);
        }
    }

    public Path file(String name) {
        return dir.resolve(name);
    }

    public void writeJson(String name, Object o) {
        Files2.writeString(file(name), Specs.toJson(o) + "\n");
    }

    /** Records in metrics.jsonl, counted once and then kept up to date (-1 = not counted yet). */
    private int count = -1;

    /**
     * Appends one metrics record. No fsync per line: a killed process's appends are in the page cache
     * already, and a resumed run truncates to its checkpoint's count anyway; syncing every line made
     * full-batch runs of thousands of one-step epochs I/O-bound.
     */
    public void log(JsonObject record) {
        try {
            Files.writeString(
                    file("metrics.jsonl"),
                    finite(record).toString() + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            if (count >= 0) {
                count++;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The record with every non-finite number (NaN, ±Infinity: not JSON) written as the string
     * "NaN", "Infinity" or "-Infinity"; Gson's getAsDouble and Python's float() read them back.
     */
    static JsonObject finite(JsonObject o) {
        JsonObject out = null;
        for (var e : o.entrySet()) {
            com.google.gson.JsonElement v = e.getValue();
            com.google.gson.JsonElement w = finite(v);
            if (w != v) {
                if (out == null) {
                    out = o.deepCopy();
                }
                out.add(e.getKey(), w);
            }
        }
        return out == null ? o : out;
    }

    private static com.google.gson.JsonElement finite(com.google.gson.JsonElement v) {
        if (v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber()) {
            double d = v.getAsDouble();
            return Double.isFinite(d) ? v : new com.google.gson.JsonPrimitive(Double.toString(d));
        }
        if (v.isJsonObject()) {
            return finite(v.getAsJsonObject());
        }
        if (v.isJsonArray()) {
            com.google.gson.JsonArray a = v.getAsJsonArray();
            com.google.gson.JsonArray b = null;
            for (int i = 0; i < a.size(); i++) {
                com.google.gson.JsonElement w = finite(a.get(i));
                if (w != a.get(i) && b == null) {
                    b = a.deepCopy();
                }
                if (b != null) {
                    b.set(i, w);
                }
            }
            return b == null ? a : b;
        }
        return v;
    }

    /** Number of records, without parsing them (checkpoints store it on every save). */
    public int recordCount() {
        if (count < 0) {
            count = records().size();
        }
        return count;
    }

    /** All metrics records so far. */
    public List<JsonObject> records() {
        Path f = file("metrics.jsonl");
        List<JsonObject> out = new ArrayList<>();
        if (!Files.exists(f)) {
            return out;
        }
        try {
            for (String line : Files.readAllLines(f)) {
                if (!line.isBlank()) {
                    out.add(JsonParser.parseString(line).getAsJsonObject());
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new UserException(f + ": unreadable metrics (" + e.getMessage() + ")");
        }
        return out;
    }

    /**
     * Keeps the first {@code n} records (used when resuming from a checkpoint that had seen
     * {@code n}): lines after them, including a line torn by a kill, are dropped. Fewer than
     * {@code n} readable records (a missing, short or damaged metrics.jsonl) is a UserException:
     * the resumed run would silently lack history.
     */
    public void truncateRecords(int n) {
        Path f = file("metrics.jsonl");
        List<String> lines;
        try {
            lines = Files.exists(f) ? Files.readAllLines(f, StandardCharsets.UTF_8) : List.of();
        } catch (IOException e) {
            throw new UserException(f + ": unreadable metrics (" + e.getMessage() + ")");
        }
        StringBuilder sb = new StringBuilder();
        int kept = 0;
        for (String line : lines) {
            if (kept == n) {
                break;
            }
            if (line.isBlank()) {
                continue;
            }
            try {
                JsonParser.parseString(line).getAsJsonObject();
            } catch (RuntimeException e) {
                break; // a torn or damaged line: the records stop here
            }
            sb.append(line).append('\n');
            kept++;
        }
        if (kept < n) {
            throw new UserException(f + (Files.exists(f) ? ": holds " + kept + " readable records" : ": missing")
                    + " but the checkpoint had seen " + n
                    + "; the run's history is incomplete (restore metrics.jsonl, or"
                    + " start a new run)");
        }
        Files2.writeString(f, sb.toString());
        count = n;
    }

    /** Records of one kind ("epoch", "probe", ...). */
    public List<JsonObject> records(String kind) {
        return records().stream()
                .filter(o -> o.has("kind") && kind.equals(o.get("kind").getAsString()))
                .toList();
    }
}
