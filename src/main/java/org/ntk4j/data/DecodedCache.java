package org.ntk4j.data;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.ntk4j.files.TempFiles;

/**
 * The decoded pixels of an image file kept beside it ({@code .NAME.u8}), so that a dataset stored as PNG is decoded
 * once, not by every command: decoding CIFAR-10's six batch PNGs took 9.6 s of a ResNet-20 training run's 20 s; the
 * decoded bytes read back in a fraction of a second. The copy names the file's size and modification time and is
 * used only while both match; it is written to a temporary name and moved into place, so a reader never sees half of
 * one, and any failure to read or write it (a read-only folder, a truncated copy) falls back to decoding.
 *
 * <p>Layout: the magic {@code NTK4JU8\1}, the source's size and modification time in milliseconds (two big-endian
 * longs), the number of bytes that follow (a big-endian long), then those bytes.
 */
final class DecodedCache {
    private static final byte[] MAGIC = {'N', 'T', 'K', '4', 'J', 'U', '8', 1};
    private static final int HEADER = MAGIC.length + 3 * Long.BYTES;

    private DecodedCache() {}

    /** The cache file of {@code source}. */
    static Path of(Path source) {
        return source.resolveSibling("." + source.getFileName() + ".u8");
    }

    /** The decoded bytes of {@code source} when a current copy is kept, else null. */
    static byte[] read(Path source) {
        long length = length(source);
        if (length < 0) {
            return null;
        }
        byte[] b = new byte[(int) length];
        return readInto(source, b, 0, b.length) ? b : null;
    }

    /** The length of {@code source}'s decoded copy while it is current, else -1 (absent, stale, damaged). */
    static long length(Path source) {
        try (FileChannel ch = FileChannel.open(of(source), StandardOpenOption.READ)) {
            return current(ch, source);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Reads {@code source}'s current decoded copy of {@code length} bytes into {@code dst} from {@code off} (several
     * copies into one array, without a second copy of each); false when it is not current or ends early.
     */
    static boolean readInto(Path source, byte[] dst, int off, int length) {
        try (FileChannel ch = FileChannel.open(of(source), StandardOpenOption.READ)) {
            return current(ch, source) == length && DataFiles.readFully(ch, ByteBuffer.wrap(dst, off, length));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Reads the header of a decoded copy: its body's length when it matches {@code source}, else -1. */
    private static long current(FileChannel ch, Path source) throws IOException {
        ByteBuffer h = ByteBuffer.allocate(HEADER).order(ByteOrder.BIG_ENDIAN);
        if (!DataFiles.readFully(ch, h)) {
            return -1;
        }
        h.flip();
        for (byte m : MAGIC) {
            if (h.get() != m) {
                return -1;
            }
        }
        long size = h.getLong();
        long mtime = h.getLong();
        long length = h.getLong();
        if (size != Files.size(source)
                || mtime != Files.getLastModifiedTime(source).toMillis()
                || length < 0
                || length > Integer.MAX_VALUE - 8
                || ch.size() != HEADER + length) {
            return -1;
        }
        return length;
    }

    /** Keeps {@code decoded} as the copy of {@code source}; best effort (nothing happens when it cannot be written). */
    static void write(Path source, byte[] decoded) {
        Path cache = of(source);
        Path tmp = null;
        try {
            tmp = TempFiles.file(cache); // the project's one naming and clean-up rule for temporaries
            ByteBuffer h = ByteBuffer.allocate(HEADER).order(ByteOrder.BIG_ENDIAN);
            h.put(MAGIC);
            h.putLong(Files.size(source));
            h.putLong(Files.getLastModifiedTime(source).toMillis());
            h.putLong(decoded.length);
            h.flip();
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ByteBuffer[] parts = {h, ByteBuffer.wrap(decoded)};
                while (parts[0].hasRemaining() || parts[1].hasRemaining()) {
                    ch.write(parts);
                }
            }
            try {
                Files.move(tmp, cache, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, cache, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException | RuntimeException e) {
            // best effort: the next command decodes again
        } finally {
            if (tmp != null) {
                TempFiles.delete(tmp); // a no-op once moved into place
            }
        }
    }
}
