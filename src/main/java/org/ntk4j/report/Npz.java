package org.ntk4j.report;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.ntk4j.UserException;
import org.ntk4j.kernel.KernelMatrix;

/**
 * NPZ files (a zip of .npy arrays, NPY format 1.0) that {@code numpy.load} and torch read; written
 * atomically. Written here rather than with DJL's {@code NDList.encode(NPZ)} because that encoder
 * needs every array as an NDArray — a second, native copy of a kernel that may be larger than memory
 * (kernels spilled to disk are streamed from their file) — and it cannot write ZIP64-sized entries
 * with fast compression. Readers of the files are plain numpy; the format is checked by
 * {@code NpzTest} against DJL's own NPZ decoder.
 */
public final class Npz {
    private interface Body {
        void write(DataOutputStream out) throws IOException;
    }

    private record Entry(String name, String descr, long[] shape, Body body) { }

    private final List<Entry> entries = new ArrayList<>();

    public Npz put(String name, NDArray a) {
        String descr = descr(a.getDataType());
        long[] shape = a.getShape().getShape();
        ByteBuffer bytes = a.toByteBuffer().order(ByteOrder.nativeOrder());
        byte[] raw = new byte[bytes.remaining()];
        bytes.get(raw);
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new IllegalStateException("big-endian hosts are not supported");
        }
        entries.add(new Entry(name, descr, shape, out -> out.write(raw)));
        return this;
    }

    /** A kernel, streamed entry by entry (float32, or float64 when accumulated in float64). */
    public Npz put(String name, KernelMatrix k) {
        boolean f64 = k.isFloat64();
        entries.add(new Entry(name, f64 ? "<f8" : "<f4", k.shape(), out -> {
            ByteBuffer buf = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
            long n = k.size();
            for (long i = 0; i < n; i++) {
                if (f64) {
                    buf.putDouble(k.at(i));
                } else {
                    buf.putFloat((float) k.at(i));
                }
                if (buf.remaining() < 8) {
                    out.write(buf.array(), 0, buf.position());
                    buf.clear();
                }
            }
            out.write(buf.array(), 0, buf.position());
        }));
        return this;
    }

    public Npz put(String name, float[] v, long... shape) {
        entries.add(new Entry(name, "<f4", shape, out -> {
            ByteBuffer b = ByteBuffer.allocate(v.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            b.asFloatBuffer().put(v);
            out.write(b.array());
        }));
        return this;
    }

    public Npz put(String name, int[] v, long... shape) {
        entries.add(new Entry(name, "<i4", shape, out -> {
            ByteBuffer b = ByteBuffer.allocate(v.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            b.asIntBuffer().put(v);
            out.write(b.array());
        }));
        return this;
    }

    public void write(Path file) {
        Files2.writeAtomically(file, os -> {
            ZipOutputStream zos = new ZipOutputStream(new BufferedOutputStream(os, 1 << 16));
            zos.setLevel(Deflater.BEST_SPEED);
            DataOutputStream out = new DataOutputStream(zos);
            for (Entry e : entries) {
                zos.putNextEntry(new ZipEntry(e.name() + ".npy"));
                out.write(header(e.descr(), e.shape()));
                e.body().write(out);
                out.flush();
                zos.closeEntry();
            }
            zos.finish();
            zos.flush();
        });
    }

    /** NPY 1.0 header: magic, version, little-endian header length, dict padded to 64 bytes with '\n'. */
    static byte[] header(String descr, long[] shape) {
        StringBuilder s = new StringBuilder("(");
        for (long d : shape) {
            s.append(d).append(", ");
        }
        String shp = shape.length == 1 ? s.substring(0, s.length() - 1) + ")" : shape.length == 0 ? "()" : s.substring(0, s.length() - 2) + ")";
        String dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shp + ", }";
        int total = 10 + dict.length() + 1;
        int pad = (64 - total % 64) % 64;
        String h = dict + " ".repeat(pad) + "\n";
        ByteBuffer b = ByteBuffer.allocate(10 + h.length()).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0x93).put("NUMPY".getBytes(StandardCharsets.US_ASCII)).put((byte) 1).put((byte) 0);
        b.putShort((short) h.length());
        b.put(h.getBytes(StandardCharsets.US_ASCII));
        return b.array();
    }

    static String descr(DataType t) {
        switch (t) {
            case FLOAT32: return "<f4";
            case FLOAT64: return "<f8";
            case INT32: return "<i4";
            case INT64: return "<i8";
            case UINT8: return "|u1";
            case INT8: return "|i1";
            default: throw new UserException("cannot export arrays of type " + t + " to NPZ");
        }
    }

}
