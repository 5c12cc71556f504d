package org.ntk4j.io;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ntk4j.UserException;
import org.ntk4j.files.IoMessages;

/**
 * Weights in the safetensors format (Hugging Face), readable by Python's {@code safetensors}
 * ({@code safetensors.numpy.load_file}, {@code safetensors.torch.load_file}) and by DJL's
 * {@code NDList.decode}:
 * <pre>
 * 8 bytes   N, unsigned little-endian
 * N bytes   JSON header {"__metadata__": {str: str}, name: {"dtype": "F32", "shape": [..],
 *           "data_offsets": [begin, end]}, ...}, padded with spaces so the data starts at a
 *           multiple of 8 bytes
 * rest      the tensors' bytes, little-endian, row-major, contiguous in header order
 * </pre>
 * Written by hand rather than through DJL's {@code NDList.Encoding.SAFETENSORS}, which neither pads
 * the header nor orders its keys, and whose reader leaves the arrays backed by a Java buffer.
 * dtypes: F64, F32, F16, BF16, I64, I32, I8, U8, BOOL (DJL's mapping).
 */
public final class Safetensors {
    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();
    private static final String METADATA = "__metadata__";
    /** Header size limit of the reference implementation (100 MB). */
    private static final long MAX_HEADER = 100_000_000L;

    private Safetensors() {}

    /** Writes named arrays (in map order), without metadata. */
    public static void write(Map<String, NDArray> tensors, Path file) throws IOException {
        write(tensors, Map.of(), file);
    }

    /** Writes named arrays (in map order) with string metadata, atomically (a sibling .tmp file, then a move). */
    public static void write(Map<String, NDArray> tensors, Map<String, String> metadata, Path file) throws IOException {
        JsonObject header = new JsonObject();
        if (!metadata.isEmpty()) {
            JsonObject meta = new JsonObject();
            metadata.forEach(meta::addProperty);
            header.add(METADATA, meta);
        }
        long offset = 0;
        for (Map.Entry<String, NDArray> e : tensors.entrySet()) {
            if (METADATA.equals(e.getKey())) {
                throw new IllegalArgumentException("'" + METADATA + "' is reserved");
            }
            NDArray a = e.getValue();
            JsonObject t = new JsonObject();
            t.addProperty("dtype", a.getDataType().asSafetensors());
            JsonArray shape = new JsonArray();
            for (long d : a.getShape().getShape()) {
                shape.add(d);
            }
            t.add("shape", shape);
            long bytes = a.size() * a.getDataType().getNumOfBytes();
            JsonArray offsets = new JsonArray();
            offsets.add(offset);
            offsets.add(offset + bytes);
            t.add("data_offsets", offsets);
            header.add(e.getKey(), t);
            offset += bytes;
        }
        byte[] json = GSON.toJson(header).getBytes(StandardCharsets.UTF_8);
        int padded = (json.length + 7) / 8 * 8; // 8 + padded is a multiple of 8
        ByteBuffer head = ByteBuffer.allocate(8 + padded).order(ByteOrder.LITTLE_ENDIAN);
        head.putLong(padded).put(json);
        while (head.hasRemaining()) {
            head.put((byte) ' ');
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (OutputStream os = Files.newOutputStream(tmp)) {
            os.write(head.array());
            for (NDArray a : tensors.values()) {
                os.write(littleEndianBytes(a));
            }
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static byte[] littleEndianBytes(NDArray a) {
        byte[] b = a.toByteArray();
        int w = a.getDataType().getNumOfBytes();
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN && w > 1) {
            for (int i = 0; i < b.length; i += w) {
                for (int j = 0; j < w / 2; j++) {
                    byte t = b[i + j];
                    b[i + j] = b[i + w - 1 - j];
                    b[i + w - 1 - j] = t;
                }
            }
        }
        return b;
    }

    /**
     * Reads every tensor, in the order of their data, as arrays on {@code manager} named by their
     * keys (native copies: no Java buffer behind them).
     *
     * @throws UserException if the file is not valid safetensors
     */
    public static Map<String, NDArray> read(Path file, NDManager manager) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            Header h = header(file, ch);
            Map<String, NDArray> out = new LinkedHashMap<>();
            try {
                for (Entry e : h.entries) {
                    long bytes = e.end - e.begin;
                    if (bytes > Integer.MAX_VALUE - 8) {
                        throw new UserException(file + ": tensor '" + e.name + "' is over 2 GB");
                    }
                    ByteBuffer data = ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.LITTLE_ENDIAN);
                    readFully(ch, data, h.dataStart + e.begin, file);
                    data.flip();
                    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
                        throw new UserException("reading safetensors needs a little-endian machine");
                    }
                    // an array created from a Java buffer lives only as long as the buffer (DJL 0.35): clone it
                    try (NDArray view = manager.create(data, e.shape, e.type)) {
                        NDArray a = view.duplicate();
                        a.setName(e.name);
                        out.put(e.name, a);
                    }
                }
            } catch (RuntimeException | IOException ex) {
                out.values().forEach(NDArray::close);
                throw ex;
            }
            return out;
        }
    }

    /** The header's {@code __metadata__} (empty when absent). */
    public static Map<String, String> metadata(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return header(file, ch).metadata;
        }
    }

    private record Entry(String name, DataType type, Shape shape, long begin, long end) {}

    private record Header(List<Entry> entries, Map<String, String> metadata, long dataStart) {}

    private static Header header(Path file, FileChannel ch) throws IOException {
        ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        readFully(ch, len, 0, file);
        long n = len.getLong(0);
        if (n < 2 || n > MAX_HEADER || 8 + n > ch.size()) {
            throw new UserException(file + ": not a safetensors file (header length " + Long.toUnsignedString(n) + ")");
        }
        ByteBuffer hb = ByteBuffer.allocate((int) n);
        readFully(ch, hb, 8, file);
        JsonObject json;
        try {
            json = GSON.fromJson(new String(hb.array(), StandardCharsets.UTF_8), JsonObject.class);
        } catch (JsonParseException ex) {
            throw new UserException(
                    file + ": malformed safetensors header (" + IoMessages.words(ex.getMessage()) + ")");
        }
        if (json == null) {
            throw new UserException(file + ": empty safetensors header");
        }
        Map<String, String> meta = new LinkedHashMap<>();
        List<Entry> entries = new ArrayList<>();
        try {
            for (Map.Entry<String, JsonElement> kv : json.entrySet()) {
                if (METADATA.equals(kv.getKey())) {
                    for (Map.Entry<String, JsonElement> m :
                            kv.getValue().getAsJsonObject().entrySet()) {
                        meta.put(m.getKey(), m.getValue().getAsString());
                    }
                    continue;
                }
                JsonObject t = kv.getValue().getAsJsonObject();
                DataType type = DataType.fromSafetensors(t.get("dtype").getAsString());
                JsonArray s = t.getAsJsonArray("shape");
                long[] dims = new long[s.size()];
                long count = 1;
                for (int i = 0; i < dims.length; i++) {
                    dims[i] = s.get(i).getAsLong();
                    count = Math.multiplyExact(count, dims[i]);
                }
                JsonArray o = t.getAsJsonArray("data_offsets");
                long begin = o.get(0).getAsLong();
                long end = o.get(1).getAsLong();
                if (o.size() != 2 || end - begin != Math.multiplyExact(count, (long) type.getNumOfBytes())) {
                    throw new UserException(file + ": tensor '" + kv.getKey() + "' has offsets " + o + " for " + count
                            + " × " + type.asSafetensors());
                }
                entries.add(new Entry(kv.getKey(), type, new Shape(dims), begin, end));
            }
        } catch (IllegalStateException
                | IllegalArgumentException
                | NullPointerException
                | ClassCastException
                | IndexOutOfBoundsException
                | ArithmeticException ex) {
            throw new UserException(
                    file + ": malformed safetensors header (" + IoMessages.words(ex.getMessage()) + ")");
        }
        entries.sort(Comparator.comparingLong(Entry::begin));
        long at = 0;
        for (Entry e : entries) {
            if (e.begin != at) {
                throw new UserException(file + ": tensor '" + e.name + "' starts at " + e.begin + ", expected " + at
                        + " (data must be contiguous)");
            }
            at = e.end;
        }
        if (8 + n + at != ch.size()) {
            throw new UserException(file + ": " + (ch.size() - 8 - n) + " data bytes, the header describes " + at);
        }
        return new Header(entries, meta, 8 + n);
    }

    private static void readFully(FileChannel ch, ByteBuffer b, long pos, Path file) throws IOException {
        while (b.hasRemaining()) {
            int r = ch.read(b, pos + b.position());
            if (r < 0) {
                throw new EOFException(file + ": truncated");
            }
        }
    }
}
