package org.ntk4j.report;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.ntk4j.files.TempFiles;

/**
 * Atomic writes: write to a temporary sibling, then move into place, so no half-written file is ever
 * seen as complete. The temporary follows {@link TempFiles}' rule: deleted on every exit but SIGKILL, and what a
 * SIGKILL leaves is deleted by the next ntk4j process that writes in the folder; never NAME itself.
 */
public final class Files2 {
    private Files2() {}

    /** Receives the stream of the temporary file. */
    public interface Writer {
        void write(OutputStream os) throws IOException;
    }

    public static void writeAtomically(Path file, Writer w) {
        try {
            Path tmp = TempFiles.file(file);
            try {
                try (OutputStream os = Files.newOutputStream(tmp)) {
                    w.write(os);
                }
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                TempFiles.delete(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    public static void writeString(Path file, String s) {
        writeAtomically(file, os -> os.write(s.getBytes(StandardCharsets.UTF_8)));
    }
}
