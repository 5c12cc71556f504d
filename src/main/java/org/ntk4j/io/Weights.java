package org.ntk4j.io;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.ntk4j.UserException;
import org.ntk4j.files.IoMessages;
import org.ntk4j.files.TempFiles;

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

    /** The entries' time, as numpy.savez writes it: DOS time's first day. */
    private static final java.time.LocalDateTime EPOCH = java.time.LocalDateTime.of(1980, 1, 1, 0, 0);

    /**
     * Writes {@code arrays} as an NPZ of STORED entries {@code <name>.npy} (what {@link #read} and
     * {@code numpy.load} read), atomically: into a hidden temporary sibling, then moved into place. Stored, not
     * deflated as DJL's {@code NDList.encode(NPZ)} does: weights barely compress (a float32 MLP's 2.7 MB by 8 %) and
     * deflating them took 100-170 ms against 7-65 ms stored for mlp-relu's (benchmarks/RESULTS.md, "Memory's first
     * touch"); a checkpoint writes two such files. The same arrays give the same file, byte for byte.
     */
    public static void write(Path file, List<String> names, List<NDArray> arrays) throws IOException {
        if (names.size() != arrays.size()) {
            throw new IllegalArgumentException(names.size() + " names for " + arrays.size() + " arrays");
        }
        Path tmp = TempFiles.file(file);
        try {
            try (OutputStream fo = Files.newOutputStream(tmp);
                    ZipOutputStream z = new ZipOutputStream(new BufferedOutputStream(fo, 1 << 16))) {
                byte[] chunk = new byte[1 << 16];
                for (int k = 0; k < arrays.size(); k++) {
                    NDArray a = arrays.get(k);
                    byte[] head = NpyHeader.encode(
                            NpyHeader.descr(a.getDataType()), a.getShape().getShape());
                    ByteBuffer data = a.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
                        throw new IllegalStateException("big-endian hosts are not supported");
                    }
                    CRC32 crc = new CRC32();
                    crc.update(head);
                    crc.update(data.duplicate());
                    long size = head.length + (long) data.remaining();
                    ZipEntry e = new ZipEntry(names.get(k) + ".npy");
                    e.setMethod(ZipEntry.STORED);
                    e.setSize(size);
                    e.setCompressedSize(size);
                    e.setCrc(crc.getValue());
                    e.setTimeLocal(EPOCH); // the same arrays give the same bytes (numpy.savez does the same)
                    z.putNextEntry(e);
                    z.write(head);
                    while (data.hasRemaining()) {
                        int n = Math.min(chunk.length, data.remaining());
                        data.get(chunk, 0, n);
                        z.write(chunk, 0, n);
                    }
                    z.closeEntry();
                }
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            TempFiles.delete(tmp);
        }
    }
}
