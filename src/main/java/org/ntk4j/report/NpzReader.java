package org.ntk4j.report;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.ntk4j.UserException;
import org.ntk4j.files.IoMessages;
import org.ntk4j.io.NpyHeader;

/**
 * Reads arrays back from what {@link Npz} writes: an NPZ zip of .npy entries (stored or deflated) or a directory of
 * {@code <name>.npy} files. NPY format 1.0/2.0, C order, little-endian float32/float64/int32/int64/uint8, returned as
 * doubles. Arrays are read whole (a kernel for regression fits in memory), decoded through a 1 MiB-value buffer so
 * that an entry needs only its doubles (up to Java's largest array) and not a second copy of its bytes.
 */
public final class NpzReader {
    private static final int CHUNK_VALUES = 1 << 20;

    /** One array: its shape and values in C order. */
    public record Array(long[] shape, double[] data) {
        public int rows() {
            return (int) shape[0];
        }

        public int cols() {
            return shape.length < 2 ? 1 : (int) (data.length / Math.max(shape[0], 1));
        }
    }

    private final Path path;

    public NpzReader(Path path) {
        if (!Files.exists(path)) {
            throw new UserException("kernel file " + path + " does not exist");
        }
        this.path = path;
    }

    /** Entry names (without .npy). */
    public List<String> names() {
        List<String> out = new ArrayList<>();
        try {
            if (Files.isDirectory(path)) {
                try (var s = Files.list(path)) {
                    s.map(p -> p.getFileName().toString())
                            .filter(n -> n.endsWith(".npy"))
                            .forEach(n -> out.add(n.substring(0, n.length() - 4)));
                }
            } else {
                try (ZipFile z = new ZipFile(path.toFile())) {
                    z.stream()
                            .map(ZipEntry::getName)
                            .filter(n -> n.endsWith(".npy"))
                            .forEach(n -> out.add(n.substring(0, n.length() - 4)));
                }
            }
        } catch (IOException e) {
            throw new UserException(path + " is not an NPZ file or a directory of .npy files (" + e.getMessage() + ")");
        }
        return out;
    }

    /** Whether the entry exists. */
    public boolean has(String name) {
        return names().contains(name);
    }

    /** Reads entry {@code name}; a missing entry is a {@link UserException} naming the file and the entries present. */
    public Array read(String name) {
        try {
            if (Files.isDirectory(path)) {
                Path f = path.resolve(name + ".npy");
                if (!Files.exists(f)) {
                    throw missing(name);
                }
                try (InputStream in = Files.newInputStream(f)) {
                    return parse(in, name, Files.size(f));
                }
            }
            try (ZipFile z = new ZipFile(path.toFile())) {
                ZipEntry e = z.getEntry(name + ".npy");
                if (e == null) {
                    throw missing(name);
                }
                try (InputStream in = z.getInputStream(e)) {
                    return parse(in, name, e.getSize());
                }
            }
        } catch (IOException e) {
            throw new UserException("cannot read '" + name + "' from " + path + ": " + IoMessages.describe(e));
        }
    }

    private UserException missing(String name) {
        return new UserException(path + " has no entry '" + name + "' (entries: " + String.join(", ", names()) + ")");
    }

    /** Reads one array; {@code bytes} is the entry's size in bytes (header included), -1 when unknown. */
    private Array parse(InputStream raw, String name, long bytes) throws IOException {
        String what = "entry '" + name + "' of " + path;
        NpyHeader h = NpyHeader.read(raw, what);
        if (bytes >= 0) {
            h.checkSize(bytes - h.headerBytes(), what);
        }
        DataInputStream in = new DataInputStream(raw);
        long[] shape = h.shape();
        long count = h.count();
        if (count > Integer.MAX_VALUE - 8) {
            throw new UserException(what + " is too large to read whole (" + count + " values; at most "
                    + (Integer.MAX_VALUE - 8) + " fit one array)");
        }
        String descr = h.descr().replace('=', '<');
        int size =
                switch (descr) {
                    case "<f4", "<i4" -> 4;
                    case "<f8", "<i8" -> 8;
                    case "|u1", "<u1", "|i1", "<i1" -> 1;
                    default -> throw new UserException("entry '" + name + "' of " + path + " has dtype " + descr
                            + " (float32/64, int32/64, uint8 read)");
                };
        double[] v = new double[(int) count];
        byte[] chunk = new byte[CHUNK_VALUES * size];
        ByteBuffer b = ByteBuffer.wrap(chunk).order(ByteOrder.LITTLE_ENDIAN);
        for (int start = 0; start < v.length; start += CHUNK_VALUES) {
            int k = Math.min(CHUNK_VALUES, v.length - start);
            in.readFully(chunk, 0, k * size);
            b.clear();
            for (int i = start; i < start + k; i++) {
                v[i] = switch (descr) {
                    case "<f4" -> b.getFloat();
                    case "<f8" -> b.getDouble();
                    case "<i4" -> b.getInt();
                    case "<i8" -> b.getLong();
                    case "|i1", "<i1" -> b.get();
                    default -> Byte.toUnsignedInt(b.get());
                };
            }
        }
        return new Array(shape, v);
    }
}
