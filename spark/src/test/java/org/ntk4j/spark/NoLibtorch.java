package org.ntk4j.spark;

import ai.djl.engine.EngineException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An executor without libtorch, for the tests: every task fails to load it with the exceptions DJL 0.35 throws on
 * a node with no natives jar, no PYTORCH_LIBRARY_PATH and {@code ai.djl.offline=true}, and appends a line per
 * attempt to {@code markers/<shard>} (so that the test counts the attempts of each shard).
 */
record NoLibtorch(String markers) implements ShardTask.FailureHook {
    /** What DJL 0.35 throws (measured: Engine.getEngine("PyTorch") offline with no natives jar and an empty cache). */
    static EngineException djlOffline() {
        return new EngineException("Failed to save pytorch index file", new IOException("Offline mode is enabled."));
    }

    @Override
    public void before(String shard) {
        try {
            Path dir = Path.of(markers);
            Files.createDirectories(dir);
            Files.writeString(
                    dir.resolve(shard),
                    "attempt\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw djlOffline();
    }
}
