package org.ntk4j.report;

import ai.djl.ndarray.NDArray;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import org.ntk4j.UserException;
import org.ntk4j.files.TempFiles;
import org.ntk4j.io.NpyHeader;
import org.ntk4j.kernel.KernelMatrix;

/**
 * NPZ files (a zip of .npy arrays, NPY format 1.0) that {@code numpy.load} and torch read, or a
 * directory of .npy files ({@link Format#NPY}) that {@code numpy.load(f, mmap_mode='r')} maps, for
 * kernels larger than memory. Written atomically.
 *
 * <p>Entries are STORED (ZIP method 0) by default: the bytes go from the kernel's store to the file
 * through direct buffers, with only a CRC-32 on the way (the local header's CRC is patched after the
 * entry), at disk speed; {@link #compress()} deflates them instead (BEST_SPEED, about 25 MB/s).
 * ZIP64 records are written when an entry or offset passes 4 GiB. Written here rather than with
 * DJL's {@code NDList.encode(NPZ)} because that encoder needs every array as an NDArray — a second,
 * native copy of a kernel that may be larger than memory — and cannot write ZIP64-sized entries.
 * The format is checked by {@code NpzTest} against DJL's own NPZ decoder and numpy.
 */
public final class Npz {
    /** One zip of .npy entries, or a directory of .npy files. */
    public enum Format {
        NPZ,
        NPY;

        /** Parses {@code npz} or {@code npy}, as a user option. */
        public static Format parse(String s) {
            return switch (s.toLowerCase(Locale.ROOT)) {
                case "npz" -> NPZ;
                case "npy" -> NPY;
                default -> throw new UserException("--format must be npz or npy (got " + s + ")");
            };
        }
    }

    private interface Body {
        void write(WritableByteChannel out) throws IOException;
    }

    /** An entry; {@code later}, when not null, gives its bytes (uint8) once the writer reaches it. */
    private record Entry(String name, String descr, long[] shape, long bytes, Body body, Future<byte[]> later) {
        Entry(String name, String descr, long[] shape, long bytes, Body body) {
            this(name, descr, shape, bytes, body, null);
        }

        /** This entry, or, for one given later, the entry of its bytes, waiting for them. */
        Entry resolve() throws IOException {
            if (later == null) {
                return this;
            }
            byte[] b;
            try {
                b = later.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for entry " + name);
            } catch (ExecutionException e) {
                throw new IOException("entry " + name + " was not made: " + e.getCause(), e.getCause());
            } catch (java.util.concurrent.CancellationException e) {
                throw new IOException("entry " + name + " was cancelled", e);
            }
            return new Entry(name, "|u1", new long[] {b.length}, b.length, out -> writeFully(out, ByteBuffer.wrap(b)));
        }
    }

    private final List<Entry> entries = new ArrayList<>();
    private boolean compress;
    private Format format = Format.NPZ;

    /** Deflate the entries (smaller files, about 25 MB/s) instead of storing them. */
    public Npz compress() {
        return compress(true);
    }

    public Npz compress(boolean on) {
        this.compress = on;
        return this;
    }

    public Npz format(Format f) {
        this.format = f;
        return this;
    }

    public Npz put(String name, NDArray a) {
        String descr = NpyHeader.descr(a.getDataType());
        long[] shape = a.getShape().getShape();
        ByteBuffer bytes = a.toByteBuffer().order(ByteOrder.nativeOrder());
        byte[] raw = new byte[bytes.remaining()];
        bytes.get(raw);
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new IllegalStateException("big-endian hosts are not supported");
        }
        entries.add(new Entry(name, descr, shape, raw.length, out -> writeFully(out, ByteBuffer.wrap(raw))));
        return this;
    }

    /**
     * An entry of bytes (uint8, shape (length,)) known only later, such as a sidecar that waits for the kernel's
     * metrics. Entries are written in the order they were put: the writer waits for {@code bytes} only when it reaches
     * this entry, so a write started on another thread (put this entry last) sends every entry before it to the disk
     * meanwhile; those must not change until the write ends. A future that fails fails the write, and its temporary
     * is deleted.
     */
    public Npz putLater(String name, Future<byte[]> bytes) {
        entries.add(new Entry(name, "|u1", new long[] {0}, 0, null, bytes));
        return this;
    }

    /** A kernel, streamed from its store in bulk (float32, or float64 when accumulated in float64). */
    public Npz put(String name, KernelMatrix k) {
        boolean f64 = k.isFloat64();
        entries.add(new Entry(name, f64 ? "<f8" : "<f4", k.shape(), k.size() * (f64 ? 8 : 4), k::writeTo));
        return this;
    }

    public Npz put(String name, float[] v, long... shape) {
        entries.add(new Entry(name, "<f4", shape, v.length * 4L, out -> {
            ByteBuffer b = ByteBuffer.allocate(v.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            b.asFloatBuffer().put(v);
            writeFully(out, b);
        }));
        return this;
    }

    public Npz put(String name, int[] v, long... shape) {
        entries.add(new Entry(name, "<i4", shape, v.length * 4L, out -> {
            ByteBuffer b = ByteBuffer.allocate(v.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            b.asIntBuffer().put(v);
            writeFully(out, b);
        }));
        return this;
    }

    /**
     * Writes the file (NPZ) or the directory of {@code <entry>.npy} files (NPY) at {@code target},
     * atomically: into a hidden temporary sibling first, then moved into place.
     */
    public void write(Path target) {
        writeHashed(target);
    }

    /**
     * As {@link #write(Path)}, and returns the SHA-256 (hex) of what was written, by file name: the NPZ file's, or
     * each {@code .npy} file's. The hashes are computed from the bytes on their way to the disk (the entries' CRCs
     * are computed first, so the zip needs no patching afterwards), not by reading the files back; only deflated
     * entries, whose sizes are known only once written, are read back.
     */
    public SortedMap<String, String> writeHashed(Path target) {
        Path dir = target.toAbsolutePath().getParent();
        Path tmp = null;
        SortedMap<String, String> hashes = new TreeMap<>();
        try {
            Files.createDirectories(dir);
            if (format == Format.NPY) {
                tmp = TempFiles.directory(target);
                for (Entry later : entries) {
                    Entry e = later.resolve();
                    MessageDigest sha = sha256();
                    try (FileChannel ch = DirectFileChannel.open(
                            tmp.resolve(e.name() + ".npy"),
                            e.bytes(),
                            StandardOpenOption.CREATE_NEW,
                            StandardOpenOption.WRITE)) {
                        WritableByteChannel out = hashing(ch, sha);
                        writeFully(out, ByteBuffer.wrap(NpyHeader.encode(e.descr(), e.shape())));
                        e.body().write(out);
                    }
                    hashes.put(e.name() + ".npy", hex(sha));
                }
                replaceDirectory(tmp, target);
            } else {
                tmp = TempFiles.file(target);
                long total = entries.stream().mapToLong(Entry::bytes).sum();
                String sha;
                try (FileChannel ch = DirectFileChannel.open(
                        tmp, total, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                    sha = writeZip(ch);
                }
                if (sha == null) {
                    sha = readBackSha256(tmp);
                }
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                hashes.put(target.getFileName().toString(), sha);
            }
            TempFiles.done(tmp);
            tmp = null;
            return hashes;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target + ": " + e.getMessage(), e);
        } finally {
            if (tmp != null) {
                TempFiles.delete(tmp);
            }
        }
    }

    /** Moves a finished directory onto {@code target}, replacing an earlier output that holds only .npy files. */
    private static void replaceDirectory(Path tmp, Path target) throws IOException {
        if (Files.exists(target)) {
            if (!Files.isDirectory(target)) {
                throw new UserException(target + " exists and is not a directory of .npy files");
            }
            try (Stream<Path> s = Files.list(target)) {
                List<Path> old = s.toList();
                for (Path p : old) {
                    if (!p.getFileName().toString().endsWith(".npy") || Files.isDirectory(p)) {
                        throw new UserException(target + " exists and holds more than .npy files; not replacing it");
                    }
                }
                for (Path p : old) {
                    Files.delete(p);
                }
            }
            Files.delete(target);
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
    }

    private static final long MAX32 = 0xFFFFFFFFL;

    private record Written(String name, long offset, long size, long csize, int crc, boolean zip64) {}

    /**
     * The zip: per entry a local header, the data; then the central directory. A stored entry's CRC is computed before
     * its header is written (a pass over its bytes in memory), so the file is written front to back and hashed on the
     * way: returns its SHA-256. A deflated entry's CRC and compressed size are patched after its data: then null.
     */
    private String writeZip(FileChannel ch) throws IOException {
        List<Written> done = new ArrayList<>();
        MessageDigest sha = sha256();
        WritableByteChannel hc = hashing(ch, sha);
        for (Entry later : entries) {
            Entry e = later.resolve();
            byte[] head = NpyHeader.encode(e.descr(), e.shape());
            byte[] name = (e.name() + ".npy").getBytes(StandardCharsets.UTF_8);
            long size = head.length + e.bytes();
            long offset = ch.position();
            // deflate may expand incompressible data slightly: leave room before the 4 GiB limit
            boolean zip64 = size >= MAX32 - (compress ? (size >> 8) + (1 << 20) : 0) || offset >= MAX32;
            ByteBuffer loc =
                    ByteBuffer.allocate(30 + name.length + (zip64 ? 20 : 0)).order(ByteOrder.LITTLE_ENDIAN);
            CRC32 crc = new CRC32();
            if (!compress) {
                crc.update(head);
                e.body().write(crcChannel(crc));
            }
            loc.putInt(0x04034b50)
                    .putShort((short) (zip64 ? 45 : 20))
                    .putShort((short) 0x0800)
                    .putShort((short) (compress ? 8 : 0))
                    .putShort((short) 0)
                    .putShort((short) 0x21) // 1980-01-01 00:00
                    .putInt(compress ? 0 : (int) crc.getValue())
                    .putInt(zip64 ? -1 : compress ? 0 : (int) size)
                    .putInt(zip64 ? -1 : (int) size)
                    .putShort((short) name.length)
                    .putShort((short) (zip64 ? 20 : 0))
                    .put(name);
            if (zip64) {
                loc.putShort((short) 1).putShort((short) 16).putLong(size).putLong(compress ? 0 : size);
            }
            loc.flip();
            writeFully(hc, loc);
            long dataStart = ch.position();
            if (compress) {
                Deflater d = new Deflater(Deflater.BEST_SPEED, true);
                OutputStream raw = Channels.newOutputStream(hc);
                DeflaterOutputStream dos = new DeflaterOutputStream(
                        new java.io.FilterOutputStream(raw) {
                            @Override
                            public void write(byte[] b, int off, int len) throws IOException {
                                out.write(b, off, len);
                            }

                            @Override
                            public void close() throws IOException {
                                flush(); // keep the file channel open
                            }
                        },
                        d,
                        1 << 16);
                WritableByteChannel sink = crcChannel(Channels.newChannel(dos), crc);
                writeFully(sink, ByteBuffer.wrap(head));
                e.body().write(sink);
                dos.finish();
                dos.flush();
                d.end();
            } else {
                writeFully(hc, ByteBuffer.wrap(head));
                e.body().write(hc);
            }
            long end = ch.position();
            long csize = end - dataStart;
            if (!compress && csize != size) {
                throw new IllegalStateException("entry " + e.name() + " wrote " + csize + " bytes, expected " + size);
            }
            if (compress) { // patch the CRC and the compressed size (the file is then hashed by reading it back)
                ByteBuffer patch = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
                patch.putInt((int) crc.getValue())
                        .putInt(zip64 ? -1 : (int) csize)
                        .flip();
                ch.write(patch, offset + 14);
                if (zip64) {
                    ByteBuffer c64 = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
                    c64.putLong(csize).flip();
                    ch.write(c64, offset + 30 + name.length + 12);
                }
                ch.position(end);
            }
            done.add(new Written(e.name() + ".npy", offset, size, csize, (int) crc.getValue(), zip64));
        }
        long cdStart = ch.position();
        for (Written w : done) {
            byte[] name = w.name().getBytes(StandardCharsets.UTF_8);
            boolean z = w.zip64();
            ByteBuffer c = ByteBuffer.allocate(46 + name.length + (z ? 28 : 0)).order(ByteOrder.LITTLE_ENDIAN);
            c.putInt(0x02014b50)
                    .putShort((short) (z ? 45 : 20))
                    .putShort((short) (z ? 45 : 20))
                    .putShort((short) 0x0800)
                    .putShort((short) (compress ? 8 : 0))
                    .putShort((short) 0)
                    .putShort((short) 0x21)
                    .putInt(w.crc())
                    .putInt(z ? -1 : (int) w.csize())
                    .putInt(z ? -1 : (int) w.size())
                    .putShort((short) name.length)
                    .putShort((short) (z ? 28 : 0))
                    .putShort((short) 0)
                    .putShort((short) 0)
                    .putShort((short) 0)
                    .putInt(0)
                    .putInt(z ? -1 : (int) w.offset())
                    .put(name);
            if (z) {
                c.putShort((short) 1)
                        .putShort((short) 24)
                        .putLong(w.size())
                        .putLong(w.csize())
                        .putLong(w.offset());
            }
            c.flip();
            writeFully(hc, c);
        }
        long cdEnd = ch.position();
        long cdSize = cdEnd - cdStart;
        boolean z64 = cdStart >= MAX32 || done.size() >= 0xFFFF || done.stream().anyMatch(Written::zip64);
        ByteBuffer end = ByteBuffer.allocate(22 + (z64 ? 56 + 20 : 0)).order(ByteOrder.LITTLE_ENDIAN);
        if (z64) {
            end.putInt(0x06064b50)
                    .putLong(44)
                    .putShort((short) 45)
                    .putShort((short) 45)
                    .putInt(0)
                    .putInt(0)
                    .putLong(done.size())
                    .putLong(done.size())
                    .putLong(cdSize)
                    .putLong(cdStart);
            end.putInt(0x07064b50).putInt(0).putLong(cdEnd).putInt(1);
        }
        int count = Math.min(done.size(), 0xFFFF);
        end.putInt(0x06054b50)
                .putShort((short) 0)
                .putShort((short) 0)
                .putShort((short) count)
                .putShort((short) count)
                .putInt(z64 ? -1 : (int) cdSize)
                .putInt(z64 ? -1 : (int) cdStart)
                .putShort((short) 0);
        end.flip();
        writeFully(hc, end);
        return compress ? null : hex(sha);
    }

    /** A channel that only updates {@code crc} with the bytes written to it (the CRC pass before a stored entry). */
    private static WritableByteChannel crcChannel(CRC32 crc) {
        return new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) {
                int n = src.remaining();
                crc.update(src);
                return n;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {}
        };
    }

    /** A channel that hashes every byte it passes on to {@code out}, in order. */
    private static WritableByteChannel hashing(WritableByteChannel out, MessageDigest sha) {
        return new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) throws IOException {
                int p = src.position();
                int n = out.write(src);
                sha.update(src.duplicate().position(p).limit(p + n));
                return n;
            }

            @Override
            public boolean isOpen() {
                return out.isOpen();
            }

            @Override
            public void close() {}
        };
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(MessageDigest sha) {
        StringBuilder hex = new StringBuilder();
        for (byte b : sha.digest()) {
            hex.append(String.format("%02x", b));
        }
        return hex.toString();
    }

    /** SHA-256 of a file read back (deflated NPZ only). */
    private static String readBackSha256(Path file) throws IOException {
        MessageDigest sha = sha256();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
            while (ch.read(buf.clear()) > 0) {
                sha.update(buf.flip());
            }
        }
        return hex(sha);
    }

    /** A channel that updates {@code crc} with every byte passed on to {@code out}. */
    private static WritableByteChannel crcChannel(WritableByteChannel out, CRC32 crc) {
        return new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) throws IOException {
                int p = src.position();
                int n = out.write(src);
                crc.update(src.duplicate().position(p).limit(p + n));
                return n;
            }

            @Override
            public boolean isOpen() {
                return out.isOpen();
            }

            @Override
            public void close() {}
        };
    }

    private static void writeFully(WritableByteChannel out, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            out.write(b);
        }
    }
}
