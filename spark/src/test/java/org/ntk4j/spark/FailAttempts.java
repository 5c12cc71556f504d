package org.ntk4j.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A task fault for the tests: the first {@code times} attempts at shard {@code shard} fail (Integer.MAX_VALUE: every
 * one), counted by marker files in {@code markers} (a folder every task sees, e.g. local in local mode).
 */
record FailAttempts(String shard, int times, String markers) implements ShardTask.FailureHook {
    @Override
    public void before(String name) {
        if (!shard.equals(name)) {
            return;
        }
        try {
            Path dir = Path.of(markers);
            Files.createDirectories(dir);
            for (int i = 0; i < times; i++) {
                try {
                    Files.createFile(dir.resolve(name + ".failed." + i));
                } catch (FileAlreadyExistsException e) {
                    continue;
                }
                throw new IllegalStateException("injected failure " + (i + 1) + " of shard " + name + " (test hook)");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
