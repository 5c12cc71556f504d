package org.ntk4j.report;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Atomic writes: write to a temporary sibling, then move into place, so no half-written file is ever
 * seen as complete. Temporaries still open when the JVM shuts down (Ctrl-C, SIGTERM) are deleted by
 * a shutdown hook; only a SIGKILL can leave a hidden {@code .NAME*.tmp} behind, never NAME itself.
 */
public final class Files2 {
    private Files2() {}

    private static final java.util.Set<Path> PENDING = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            for (Path p : PENDING) {
                                try {
                                    Files.deleteIfExists(p);
                                } catch (IOException e) {
                                    // shutting down: nothing more to do
                                }
                            }
                        },
                        "ntk4j-temp-cleanup"));
    }

    /** Receives the stream of the temporary file. */
    public interface Writer {
        void write(OutputStream os) throws IOException;
    }

    public static void writeAtomically(Path file, Writer w) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
            PENDING.add(tmp);
            try {
                try (OutputStream os = Files.newOutputStream(tmp)) {
                    w.write(os);
                }
                try {
                    // createTempFile makes owner-only files; results are ordinary readable files
                    Files.setPosixFilePermissions(
                            tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
                } catch (UnsupportedOperationException e) {
                    // not a POSIX file system: keep the default permissions
                }
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
                PENDING.remove(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    public static void writeString(Path file, String s) {
        writeAtomically(file, os -> os.write(s.getBytes(StandardCharsets.UTF_8)));
    }
}
