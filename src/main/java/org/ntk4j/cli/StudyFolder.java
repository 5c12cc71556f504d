package org.ntk4j.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.ntk4j.UserException;
import org.ntk4j.report.Files2;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.Specs;

/**
 * The folder of one {@code ntk4j reproduce} run: locked while the study writes it, refused when it holds an earlier
 * run unless {@code --force} (which empties it first, so that no study ever appends to another run's files), and
 * marked with {@value #MARKER} (study, scale) so that {@code --force} empties only folders a reproduce run made.
 */
final class StudyFolder implements AutoCloseable {
    /** The marker a reproduce run writes first: {@code {"format": "ntk4j-reproduce", "study": ..., "scale": ...}}. */
    static final String MARKER = "reproduce.json";

    private final RunFolder folder;

    private StudyFolder(RunFolder folder) {
        this.folder = folder;
    }

    /**
     * Locks {@code dir} (a second run on it is refused with the owner's pid), checks that it is empty or, with
     * {@code force}, an earlier reproduce run's folder and empties it, and writes the marker.
     */
    static StudyFolder open(Path dir, String study, String scale, boolean force) {
        RunFolder f = new RunFolder(dir);
        try {
            f.lock();
            if (RunFolder.hasContent(dir)) {
                String earlier = earlier(dir);
                if (!force) {
                    throw new UserException(
                            dir + " holds an earlier run" + (earlier != null ? " (" + earlier + ")" : "")
                                    + "; pass --force to replace it, or choose another --out");
                }
                if (earlier == null) {
                    throw new UserException(dir + " holds files that are not a reproduce run; ntk4j will not empty it,"
                            + " even with --force: choose another --out");
                }
                clear(dir);
            }
            Map<String, Object> marker = new LinkedHashMap<>();
            marker.put("format", "ntk4j-reproduce");
            marker.put("study", study);
            marker.put("scale", scale);
            Files2.writeString(dir.resolve(MARKER), Specs.toJson(marker) + "\n");
            return new StudyFolder(f);
        } catch (RuntimeException e) {
            f.close();
            throw e;
        }
    }

    /** What earlier reproduce run the folder holds ("reproduce silent-alignment --scale quick"), or null if none. */
    static String earlier(Path dir) {
        Path m = dir.resolve(MARKER);
        if (Files.isRegularFile(m)) {
            try {
                com.google.gson.JsonObject o = com.google.gson.JsonParser.parseString(Files.readString(m))
                        .getAsJsonObject();
                return "reproduce " + o.get("study").getAsString() + " --scale "
                        + o.get("scale").getAsString();
            } catch (IOException | RuntimeException e) {
                return "a reproduce run";
            }
        }
        // folders written before the marker: every study writes results.json and report.html
        if (Files.isRegularFile(dir.resolve("results.json")) && Files.isRegularFile(dir.resolve("report.html"))) {
            return "a reproduce run";
        }
        return null;
    }

    /** Deletes everything in {@code dir} but its lock. */
    private static void clear(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> all = s.filter(p -> !p.getFileName().toString().equals(RunFolder.LOCK))
                    .toList();
            for (Path p : all) {
                try (Stream<Path> w = Files.walk(p)) {
                    for (Path q : w.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(q);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot empty " + dir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        folder.close();
    }
}
