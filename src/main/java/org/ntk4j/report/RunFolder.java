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
public final class RunFolder {
    private final Path dir;

    public RunFolder(Path dir) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UserException(dir + ": cannot create run folder (" + e.getMessage() + ")");
        }
    }

    public Path dir() {
        return dir;
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
            Files.writeString(file("metrics.jsonl"), record.toString() + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            if (count >= 0) {
                count++;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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

    /** Keeps the first {@code n} records (used when resuming from a checkpoint). */
    public void truncateRecords(int n) {
        List<JsonObject> r = records();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(n, r.size()); i++) {
            sb.append(r.get(i)).append('\n');
        }
        Files2.writeString(file("metrics.jsonl"), sb.toString());
        count = Math.min(n, r.size());
    }

    /** Records of one kind ("epoch", "probe", ...). */
    public List<JsonObject> records(String kind) {
        return records().stream().filter(o -> o.has("kind") && kind.equals(o.get("kind").getAsString())).toList();
    }
}
