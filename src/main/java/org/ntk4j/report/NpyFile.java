package org.ntk4j.report;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.ntk4j.UserException;

/**
 * A float32 or float64 {@code .npy} file (NPY 1.0 to 3.0, little-endian, C order) mapped for reading, as {@link
 * Npz} writes them: the reader of kernel shards. Values are read in place from 1 GiB mapped chunks.
 */
public final class NpyFile implements AutoCloseable {
    private static final Pattern DESCR = Pattern.compile("'descr':\\s*'([<|=]?[fi][48])'");
    private static final Pattern FORTRAN = Pattern.compile("'fortran_order':\\s*(True|False)");
    private static final Pattern SHAPE = Pattern.compile("'shape':\\s*\\(([^)]*)\\)");
    private static final int CHUNK_BITS = 27; // values per chunk: 2^27 (1 GiB of float64)

    private final Path file;
    private final FileChannel channel;
    private final long[] shape;
    private final long size;
    private final int valueBytes;
    private final ByteBuffer[] chunks;

    private NpyFile(Path file, FileChannel channel, long[] shape, int valueBytes, long offset) throws IOException {
        this.file = file;
        this.channel = channel;
        this.shape = shape;
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        this.size = n;
        this.valueBytes = valueBytes;
        if (channel.size() != offset + n * valueBytes) {
            throw new UserException(file + ": " + channel.size() + " bytes, but its header promises "
                    + (offset + n * valueBytes) + " (truncated or damaged)");
        }
        int count = (int) ((n + (1L << CHUNK_BITS) - 1) >>> CHUNK_BITS);
        chunks = new ByteBuffer[count];
        for (int c = 0; c < count; c++) {
            long first = (long) c << CHUNK_BITS;
            long len = Math.min(1L << CHUNK_BITS, n - first) * valueBytes;
            MappedByteBuffer mb = channel.map(FileChannel.MapMode.READ_ONLY, offset + first * valueBytes, len);
            chunks[c] = mb.order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    /** Opens {@code file}; a file that is not a float .npy in C order is a one-line {@link UserException}. */
    public static NpyFile open(Path file) {
        FileChannel ch = null;
        try {
            ch = FileChannel.open(file, StandardOpenOption.READ);
            ByteBuffer pre = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
            while (pre.hasRemaining() && ch.read(pre) > 0) {
                // read the preamble
            }
            pre.flip();
            byte[] magic = new byte[6];
            if (pre.remaining() < 10) {
                throw new UserException(file + ": not a .npy file (too short)");
            }
            pre.get(magic);
            if (magic[0] != (byte) 0x93 || !new String(magic, 1, 5, StandardCharsets.US_ASCII).equals("NUMPY")) {
                throw new UserException(file + ": not a .npy file (no NUMPY magic)");
            }
            int major = pre.get();
            pre.get();
            long headerLen;
            long offset;
            if (major == 1) {
                headerLen = pre.getShort() & 0xFFFF;
                offset = 10;
            } else if (pre.remaining() >= 4) {
                headerLen = pre.getInt() & 0xFFFFFFFFL;
                offset = 12;
            } else {
                throw new UserException(file + ": not a .npy file (truncated header)");
            }
            if (headerLen > (1 << 20)) {
                throw new UserException(file + ": .npy header of " + headerLen + " bytes");
            }
            ByteBuffer h = ByteBuffer.allocate((int) headerLen);
            ch.position(offset);
            while (h.hasRemaining() && ch.read(h) > 0) {
                // read the header
            }
            String dict = new String(h.array(), 0, h.position(), StandardCharsets.ISO_8859_1);
            Matcher d = DESCR.matcher(dict);
            Matcher f = FORTRAN.matcher(dict);
            Matcher s = SHAPE.matcher(dict);
            if (!d.find() || !s.find() || (f.find() && f.group(1).equals("True"))) {
                throw new UserException(file + ": not a little-endian C-order .npy (header " + dict.trim() + ")");
            }
            String descr = d.group(1);
            if (!descr.endsWith("f4") && !descr.endsWith("f8")) {
                throw new UserException(file + ": dtype " + descr + "; expected float32 or float64");
            }
            String[] dims = s.group(1).split(",");
            long[] shape = java.util.Arrays.stream(dims)
                    .map(String::trim)
                    .filter(x -> !x.isEmpty())
                    .mapToLong(Long::parseLong)
                    .toArray();
            NpyFile npy = new NpyFile(file, ch, shape, descr.endsWith("f8") ? 8 : 4, offset + headerLen);
            ch = null;
            return npy;
        } catch (IOException | NumberFormatException e) {
            throw new UserException(file + ": cannot read as .npy (" + e.getMessage() + ")");
        } finally {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException e) {
                    // already failing
                }
            }
        }
    }

    public long[] shape() {
        return shape.clone();
    }

    /** Number of values. */
    public long size() {
        return size;
    }

    /** Whether the values are float64. */
    public boolean isFloat64() {
        return valueBytes == 8;
    }

    /** Value i in row-major order, widened to double (exact for float32). */
    public double get(long i) {
        ByteBuffer b = chunks[(int) (i >>> CHUNK_BITS)];
        int k = (int) (i & ((1L << CHUNK_BITS) - 1));
        return valueBytes == 8 ? b.getDouble(k * 8) : b.getFloat(k * 4);
    }

    public Path file() {
        return file;
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            // read-only: nothing to lose
        }
    }
}
