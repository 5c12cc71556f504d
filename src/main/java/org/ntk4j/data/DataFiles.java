package org.ntk4j.data;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
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
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new UserException(file + ": file not found", e);
        } catch (IOException e) {
            throw new UserException(file + ": cannot read (" + e.getMessage() + ")", e);
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
