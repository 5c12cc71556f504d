package org.ntk4j.io;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.ntk4j.UserException;
import org.ntk4j.files.IoMessages;

/** Named weight arrays from a file, by its extension: {@code .safetensors}, else NPZ ({@code weights.npz}). */
public final class Weights {
    private Weights() {}

    /** Whether the file is read as safetensors. */
    public static boolean isSafetensors(Path file) {
        return file.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".safetensors");
    }

    /**
     * The named arrays of a weights file, on {@code manager}.
     *
     * @throws UserException if the file cannot be read
     */
    public static NDList read(Path file, NDManager manager) {
        try {
            if (isSafetensors(file)) {
                return new NDList(Safetensors.read(file, manager).values());
            }
            if (isZip(file)) {
                // every entry's header against its size, before the decoder allocates what a header claims
                NpyHeader.checkNpz(file);
            }
            try (InputStream is = new BufferedInputStream(Files.newInputStream(file))) {
                return NDList.decode(manager, is);
            }
        } catch (IOException e) {
            throw new UserException(file + ": cannot read weights (" + IoMessages.describe(e) + ")");
        } catch (IllegalArgumentException | ArithmeticException | IllegalStateException e) {
            throw new UserException(file + ": cannot read weights (" + IoMessages.words(e.getMessage()) + ")");
        }
    }

    /** Whether the file starts as a zip (an NPZ) does. */
    static boolean isZip(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] b = in.readNBytes(2);
            return b.length == 2 && b[0] == 'P' && b[1] == 'K';
        }
    }
}
