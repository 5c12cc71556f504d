package org.ntk4j.report;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Atomic writes: write to a temporary sibling, then move into place, so no half-written file is ever seen as complete. */
public final class Files2 {
    private Files2() {}

    /** Receives the stream of the temporary file. */
    public interface Writer {
        void write(OutputStream os) throws IOException;
    }

    public static void writeAtomically(Path file, Writer w) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
            try {
                try (OutputStream os = Files.newOutputStream(tmp)) {
                    w.write(os);
                }
                try {
                    // createTempFile makes owner-only files; results are ordinary readable files
                    Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
                } catch (UnsupportedOperationException e) {
                    // not a POSIX file system: keep the default permissions
                }
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    public static void writeString(Path file, String s) {
        writeAtomically(file, os -> os.write(s.getBytes(StandardCharsets.UTF_8)));
    }
}
