package org.ntk4j.data;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;
import org.ntk4j.UserException;

/**
 * Reading whole data files into memory, with gzip detected by its magic bytes (0x1f 0x8b) rather
 * than by the file name, and I/O problems turned into one-line {@link UserException}s naming the file.
 */
final class DataFiles {
    private DataFiles() {}

    /** All bytes of {@code file}, gunzipped when the file starts with the gzip magic. */
    static byte[] readMaybeGzip(Path file) {
        byte[] raw = readAll(file);
        return isGzip(raw) ? gunzip(raw, file.toString()) : raw;
    }

    /** All bytes of {@code in} (closed afterwards), gunzipped when they start with the gzip magic. */
    static byte[] readMaybeGzip(InputStream in, String what) {
        byte[] raw;
        try (InputStream s = in) {
            raw = s.readAllBytes();
        } catch (IOException e) {
            throw new UserException(what + ": cannot read (" + e.getMessage() + ")", e);
        }
        return isGzip(raw) ? gunzip(raw, what) : raw;
    }

    static byte[] readAll(Path file) {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file)) {
            long size = ch.size();
            if (size > Integer.MAX_VALUE - 8) {
                throw new UserException(file + ": " + size + " bytes, too large to read into memory");
            }
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate((int) size);
            if (!readFully(ch, b)) {
                return java.util.Arrays.copyOf(b.array(), b.position()); // shrank while read
            }
            return b.array();
        } catch (NoSuchFileException e) {
            throw new UserException(file + ": file not found", e);
        } catch (IOException e) {
            throw new UserException(file + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    /**
     * Fills {@code b} from the channel, 1 MiB at a time; false when the file ends first. (The JDK reads a heap buffer
     * through a temporary direct buffer as large as the read: one whole-file read touched twice the file's memory.)
     */
    static boolean readFully(java.nio.channels.FileChannel ch, java.nio.ByteBuffer b) throws IOException {
        int end = b.limit();
        try {
            while (b.position() < end) {
                b.limit(Math.min(end, b.position() + (1 << 20)));
                if (ch.read(b) < 0) {
                    return false;
                }
            }
            return true;
        } finally {
            b.limit(end);
        }
    }

    /** The parts one after another (the part itself when there is one). */
    static byte[] join(byte[][] parts) {
        if (parts.length == 1) {
            return parts[0];
        }
        long total = 0;
        for (byte[] p : parts) {
            total += p.length;
        }
        byte[] all = new byte[Math.toIntExact(total)];
        int off = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, off, p.length);
            off += p.length;
        }
        return all;
    }

    /** {@code in} itself, or a gunzipping stream over it when it starts with the gzip magic. */
    static InputStream maybeGunzip(InputStream in, String what) throws IOException {
        java.io.BufferedInputStream b = new java.io.BufferedInputStream(in, 1 << 16);
        b.mark(2);
        int b0 = b.read();
        int b1 = b.read();
        b.reset();
        if (b0 == 0x1f && b1 == 0x8b) {
            try {
                return new GZIPInputStream(b, 1 << 16);
            } catch (ZipException e) {
                throw new UserException(what + ": corrupt gzip data (" + e.getMessage() + ")", e);
            }
        }
        return b;
    }

    /** Exactly {@code n} bytes of {@code in}; a one-line error naming {@code what} and the part when it ends first. */
    static byte[] readFully(InputStream in, int n, String what, String part) throws IOException {
        byte[] b = in.readNBytes(n);
        if (b.length < n) {
            throw new UserException(
                    what + ": truncated file: it ends inside " + part + " (" + b.length + " of " + n + " bytes)");
        }
        return b;
    }

    /** Skips exactly {@code n} bytes of {@code in} (seeking where the stream can); an error when it ends first. */
    static void skipFully(InputStream in, long n, String what) throws IOException {
        long left = n;
        while (left > 0) {
            long k = in.skip(left);
            if (k <= 0) {
                if (in.read() < 0) {
                    throw new UserException(
                            what + ": truncated file: it ends " + left + " bytes before the requested rows");
                }
                k = 1;
            }
            left -= k;
        }
    }

    static boolean isGzip(byte[] b) {
        return b.length >= 2 && (b[0] & 0xff) == 0x1f && (b[1] & 0xff) == 0x8b;
    }

    private static byte[] gunzip(byte[] raw, String what) {
        try (GZIPInputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(raw), 1 << 16)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length * 4);
            in.transferTo(out);
            return out.toByteArray();
        } catch (ZipException e) {
            throw new UserException(what + ": corrupt gzip data (" + e.getMessage() + ")", e);
        } catch (java.io.EOFException e) {
            throw new UserException(what + ": truncated gzip data (unexpected end of file)", e);
        } catch (IOException e) {
            throw new UserException(what + ": cannot decompress (" + e.getMessage() + ")", e);
        }
    }
}
