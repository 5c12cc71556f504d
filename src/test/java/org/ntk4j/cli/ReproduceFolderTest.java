package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.experiment.support.Scale;

/**
 * {@code reproduce} never appends to another run's files: a folder holding an earlier run is refused without
 * --force, emptied with it (only when it is a reproduce run's folder), and the scales write to folders of their own
 * by default, so the README's "reproduce X" after "reproduce X --quick" meet no earlier files.
 */
class ReproduceFolderTest {
    static Path earlierRun(Path dir) throws Exception {
        Files.createDirectories(dir.resolve("sigma-1e-03"));
        Files.writeString(dir.resolve("sigma-1e-03").resolve("metrics.jsonl"), "{\"kind\":\"step\",\"step\":1}\n");
        Files.writeString(
                dir.resolve(StudyFolder.MARKER),
                "{\"format\": \"ntk4j-reproduce\", \"study\": \"silent-alignment\", \"scale\": \"quick\"}\n");
        return dir;
    }

    @Test
    void anEarlierRunIsRefusedWithoutForceAndEmptiedWithIt(@TempDir Path tmp) throws Exception {
        Path dir = earlierRun(tmp.resolve("sa"));
        CliTest.assertOneLineError(
                CliTest.run("reproduce", "silent-alignment", "--quick", "--out", dir.toString()),
                "holds an earlier run (reproduce silent-alignment --scale quick); pass --force to replace it");
        assertEquals(
                1,
                Files.readAllLines(dir.resolve("sigma-1e-03").resolve("metrics.jsonl"))
                        .size(),
                "untouched");
        CliTest.Run r = CliTest.run("reproduce", "phase-diagram", "--quick", "--force", "--out", dir.toString());
        assertEquals(0, r.code(), r.err());
        assertFalse(Files.exists(dir.resolve("sigma-1e-03")), "the earlier run's files were removed, not appended to");
        assertTrue(Files.readString(dir.resolve(StudyFolder.MARKER)).contains("\"phase-diagram\""));
        assertTrue(Files.isRegularFile(dir.resolve("report.html")));
    }

    @Test
    void aFolderThatIsNoReproduceRunIsNeverEmptied(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("mine");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("notes.txt"), "mine");
        CliTest.assertOneLineError(
                CliTest.run("reproduce", "phase-diagram", "--quick", "--force", "--out", dir.toString()),
                "holds files that are not a reproduce run");
        assertTrue(Files.exists(dir.resolve("notes.txt")));
        // a folder written before the marker existed: results.json and report.html make it a reproduce run
        Path old = tmp.resolve("old");
        Files.createDirectories(old);
        Files.writeString(old.resolve("results.json"), "{}");
        Files.writeString(old.resolve("report.html"), "<html></html>");
        CliTest.assertOneLineError(
                CliTest.run("reproduce", "phase-diagram", "--quick", "--out", old.toString()),
                "holds an earlier run (a reproduce run)");
    }

    @Test
    void eachScaleHasItsOwnDefaultFolder() {
        assertEquals(Path.of("runs", "reproduce", "silent-alignment"), ReproduceCommand.defaultDir("silent-alignment"));
        assertEquals(
                Path.of("runs", "reproduce", "silent-alignment-quick"),
                ReproduceCommand.defaultDir("silent-alignment", Scale.QUICK));
        assertEquals(
                Path.of("runs", "reproduce", "silent-alignment-paper"),
                ReproduceCommand.defaultDir("silent-alignment", Scale.PAPER));
        assertNotEquals(
                ReproduceCommand.defaultDir("silent-alignment", Scale.QUICK),
                ReproduceCommand.defaultDir("silent-alignment", Scale.CPU));
    }
}
