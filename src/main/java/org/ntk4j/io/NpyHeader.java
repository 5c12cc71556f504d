package org.ntk4j.io;

import ai.djl.ndarray.types.DataType;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.ntk4j.UserException;
import org.ntk4j.files.IoMessages;

/**
 * The header of a {@code .npy} array (NumPy format 1.0–3.0), checked before anything is allocated: magic, version,
 * header length, dtype, order and shape, and the shape's size against the bytes the file really holds, so that a
 * crafted header (a huge shape over a 16-byte body, a big-endian or complex dtype, Fortran order) is one line naming
 * the entry and what is wrong, never an allocation failure or a silently misread array.
 *
 * @param descr the dtype as numpy writes it, e.g. {@code <f4}
 * @param fortranOrder whether the array is stored column-major
 * @param shape the dimensions
 * @param headerBytes bytes before the data (magic, version, length, header dict)
 */
public record NpyHeader(String descr, boolean fortranOrder, long[] shape, long headerBytes) {
    /** The longest header accepted (numpy pads to 64 bytes; real headers are well under 1 KiB). */
    static final int MAX_HEADER = 1 << 16;

    private static final Pattern DESCR = Pattern.compile("'descr'\\s*:\\s*'([^']*)'");
    private static final Pattern ORDER = Pattern.compile("'fortran_order'\\s*:\\s*(True|False)");
    private static final Pattern SHAPE = Pattern.compile("'shape'\\s*:\\s*\\(([^)]*)\\)");

    /** Bytes per value of {@link #descr}: the digits after its kind letter. */
    public int itemBytes() {
        return Integer.parseInt(descr.substring(2));
    }

    /** The number of values, the product of the shape (checked not to overflow when read). */
    public long count() {
        long c = 1;
        for (long d : shape) {
            c *= d;
        }
        return c;
    }

    /** Bytes of the data: {@link #count()} × {@link #itemBytes()}. */
    public long dataBytes() {
        return count() * itemBytes();
    }

    /** Whether the dtype is a float (numpy kind 'f'): float16, float32 or float64. */
    public boolean isFloat() {
        return descr.charAt(1) == 'f';
    }

    /**
     * Reads and checks the header at the start of {@code in}; {@code what} names the array in messages (e.g.
     * "entry 'w' of weights.npz").
     */
    public static NpyHeader read(InputStream in, String what) {
        try {
            DataInputStream d = new DataInputStream(in);
            byte[] magic = new byte[6];
            d.readFully(magic);
            if (magic[0] != (byte) 0x93
                    || magic[1] != 'N'
                    || magic[2] != 'U'
                    || magic[3] != 'M'
                    || magic[4] != 'P'
                    || magic[5] != 'Y') {
                throw new UserException(what + " is not a .npy array (no NUMPY magic)");
            }
            int major = d.readUnsignedByte();
            d.readUnsignedByte();
            if (major < 1 || major > 3) {
                throw new UserException(what + ": .npy format version " + major + " (1, 2 or 3 expected)");
            }
            byte[] lenBytes = new byte[major == 1 ? 2 : 4];
            d.readFully(lenBytes);
            ByteBuffer lb = ByteBuffer.wrap(lenBytes).order(ByteOrder.LITTLE_ENDIAN);
            long len = major == 1 ? Short.toUnsignedInt(lb.getShort()) : Integer.toUnsignedLong(lb.getInt());
            if (len > MAX_HEADER) {
                throw new UserException(what + ": .npy header of " + len + " bytes (at most " + MAX_HEADER + ")");
            }
            byte[] hb = new byte[(int) len];
            d.readFully(hb);
            String dict = new String(hb, major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
            return parse(dict, what, 6 + 2 + lenBytes.length + len);
        } catch (IOException e) {
            throw new UserException(what + ": truncated .npy header");
        }
    }

    /** Parses and checks a header dictionary ({@code {'descr': '<f4', 'fortran_order': False, 'shape': (3,)}}). */
    static NpyHeader parse(String dict, String what, long headerBytes) {
        Matcher dm = DESCR.matcher(dict);
        Matcher om = ORDER.matcher(dict);
        Matcher sm = SHAPE.matcher(dict);
        if (!dm.find() || !om.find() || !sm.find()) {
            throw new UserException(what + ": unreadable .npy header (" + dict.strip() + ")");
        }
        String descr = dm.group(1);
        if (!descr.matches("[<>|=][a-zA-Z]\\d{1,2}")) {
            throw new UserException(what + " has dtype '" + descr + "', not a numeric array ntk4j reads");
        }
        if (descr.charAt(0) == '>' && !descr.endsWith("1")) {
            throw new UserException(what + " is big-endian ('" + descr + "'); ntk4j reads little-endian arrays: save"
                    + " it with numpy as a.astype('<" + descr.substring(1) + "')");
        }
        if (descr.charAt(0) == '=' && ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new UserException(what + " has native byte order on a big-endian machine ('" + descr + "')");
        }
        String kind = descr.substring(1);
        if (!List.of("f2", "f4", "f8", "i1", "u1", "b1", "i2", "i4", "i8").contains(kind)) {
            throw new UserException(what + " has dtype '" + descr + "'; ntk4j reads float16, float32 and float64"
                    + " arrays (and integer labels)");
        }
        boolean fortran = om.group(1).equals("True");
        List<Long> dims = new ArrayList<>();
        for (String t : sm.group(1).split(",")) {
            if (t.isBlank()) {
                continue;
            }
            long v;
            try {
                v = Long.parseLong(t.strip());
            } catch (NumberFormatException e) {
                throw new UserException(what + ": shape (" + sm.group(1) + ") is not a list of sizes");
            }
            if (v < 0) {
                throw new UserException(what + ": shape (" + sm.group(1) + ") has a negative size");
            }
            dims.add(v);
        }
        long[] shape = dims.stream().mapToLong(Long::longValue).toArray();
        long c = 1;
        try {
            for (long v : shape) {
                c = Math.multiplyExact(c, v);
            }
            Math.multiplyExact(c, Integer.parseInt(kind.substring(1)));
        } catch (ArithmeticException e) {
            throw new UserException(what + ": shape (" + sm.group(1) + ") is larger than any file");
        }
        if (fortran && shape.length > 1) {
            throw new UserException(what + " is in Fortran (column-major) order; ntk4j reads C-ordered arrays: save"
                    + " it with numpy as numpy.ascontiguousarray(a)");
        }
        return new NpyHeader(descr, fortran, shape, headerBytes);
    }

    /**
     * Checks that the data the header promises is what the file holds ({@code available} bytes after the header):
     * a header claiming more (a huge shape over a small body) or less is refused before anything is allocated.
     */
    public void checkSize(long available, String what) {
        if (dataBytes() != available) {
            throw new UserException(what + ": its header promises " + dataBytes() + " bytes of data (shape "
                    + java.util.Arrays.toString(shape) + ", '" + descr + "') but it holds " + available);
        }
    }

    /**
     * Checks every .npy entry of an NPZ file (a zip) before a decoder reads it: its header ({@link #read}) and its
     * size against the zip's record of it. Throws a one-line {@link UserException} naming the file and the entry.
     */
    public static void checkNpz(java.nio.file.Path file) {
        try (ZipFile zip = new ZipFile(file.toFile())) {
            Enumeration<? extends ZipEntry> all = zip.entries();
            while (all.hasMoreElements()) {
                ZipEntry e = all.nextElement();
                if (e.isDirectory()) {
                    continue;
                }
                String name = e.getName().endsWith(".npy")
                        ? e.getName().substring(0, e.getName().length() - 4)
                        : e.getName();
                String what = "entry '" + name + "' of " + file;
                NpyHeader h;
                try (InputStream in = zip.getInputStream(e)) {
                    h = read(in, what);
                }
                if (e.getSize() >= 0) {
                    h.checkSize(e.getSize() - h.headerBytes(), what);
                }
            }
        } catch (java.util.zip.ZipException e) {
            throw new UserException(file + " is not a readable NPZ file (" + IoMessages.words(e.getMessage()) + ")");
        } catch (IOException e) {
            throw new UserException("cannot read " + file + ": " + IoMessages.describe(e));
        }
    }

    /** NPY 1.0 header: magic, version, little-endian header length, dict padded to 64 bytes with '\n'. */
    public static byte[] encode(String descr, long[] shape) {
        StringBuilder s = new StringBuilder("(");
        for (long d : shape) {
            s.append(d).append(", ");
        }
        String shp = shape.length == 1
                ? s.substring(0, s.length() - 1) + ")"
                : shape.length == 0 ? "()" : s.substring(0, s.length() - 2) + ")";
        String dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shp + ", }";
        int total = 10 + dict.length() + 1;
        int pad = (64 - total % 64) % 64;
        String h = dict + " ".repeat(pad) + "\n";
        ByteBuffer b = ByteBuffer.allocate(10 + h.length()).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0x93)
                .put("NUMPY".getBytes(StandardCharsets.US_ASCII))
                .put((byte) 1)
                .put((byte) 0);
        b.putShort((short) h.length());
        b.put(h.getBytes(StandardCharsets.US_ASCII));
        return b.array();
    }

    /** The NPY dtype of an engine data type; other types are refused in one line. */
    public static String descr(DataType t) {
        switch (t) {
            case FLOAT32:
                return "<f4";
            case FLOAT64:
                return "<f8";
            case INT32:
                return "<i4";
            case INT64:
                return "<i8";
            case UINT8:
                return "|u1";
            case INT8:
                return "|i1";
            default:
                throw new UserException("cannot export arrays of type " + t + " to NPZ");
        }
    }
}
