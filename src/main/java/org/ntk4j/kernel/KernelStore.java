package org.ntk4j.kernel;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Where a kernel's entries live: a Java array (float32 or float64), or, for kernels larger than the
 * heap allows, a float32 file on disk mapped in chunks (the file is deleted when the store is closed
 * or the JVM exits). Indices are longs so a mapped kernel may exceed 2³¹ entries.
 */
abstract class KernelStore implements AutoCloseable {
    abstract long size();

    abstract double get(long i);

    abstract void add(long i, double v);

    abstract boolean isFloat64();

    /**
     * Writes every entry, little-endian, in index order (float64 when {@link #isFloat64()}, else
     * float32): bulk copies through one direct buffer (heap stores) or slices of the mapped file, no
     * per-entry work, so a kernel leaves at the speed of the channel.
     */
    abstract void writeTo(WritableByteChannel out) throws IOException;

    /** Bytes of the staging buffer for heap stores and of the slices written from mapped stores. */
    static final int WRITE_BUFFER = 1 << 22;

    static void writeFully(WritableByteChannel out, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            out.write(b);
        }
    }

    static void requireLittleEndian() {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new IllegalStateException("big-endian hosts are not supported");
        }
    }

    @Override
    public void close() {}

    static KernelStore heap(long size, boolean float64) {
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("heap kernel limited to 2^31 entries");
        }
        return float64 ? new HeapDouble((int) size) : new HeapFloat((int) size);
    }

    static final class HeapFloat extends KernelStore {
        final float[] v;

        HeapFloat(int n) {
            v = new float[n];
        }

        long size() {
            return v.length;
        }

        double get(long i) {
            return v[(int) i];
        }

        void add(long i, double x) {
            v[(int) i] += (float) x;
        }

        boolean isFloat64() {
            return false;
        }

        void writeTo(WritableByteChannel out) throws IOException {
            ByteBuffer buf = ByteBuffer.allocateDirect(WRITE_BUFFER).order(ByteOrder.LITTLE_ENDIAN);
            FloatBuffer fb = buf.asFloatBuffer();
            for (int off = 0; off < v.length; off += fb.capacity()) {
                int len = Math.min(fb.capacity(), v.length - off);
                fb.clear();
                fb.put(v, off, len);
                buf.clear().limit(len * 4);
                writeFully(out, buf);
            }
        }
    }

    static final class HeapDouble extends KernelStore {
        final double[] v;

        HeapDouble(int n) {
            v = new double[n];
        }

        long size() {
            return v.length;
        }

        double get(long i) {
            return v[(int) i];
        }

        void add(long i, double x) {
            v[(int) i] += x;
        }

        boolean isFloat64() {
            return true;
        }

        void writeTo(WritableByteChannel out) throws IOException {
            ByteBuffer buf = ByteBuffer.allocateDirect(WRITE_BUFFER).order(ByteOrder.LITTLE_ENDIAN);
            java.nio.DoubleBuffer db = buf.asDoubleBuffer();
            for (int off = 0; off < v.length; off += db.capacity()) {
                int len = Math.min(db.capacity(), v.length - off);
                db.clear();
                db.put(v, off, len);
                buf.clear().limit(len * 8);
                writeFully(out, buf);
            }
        }
    }

    /** float32 entries in a memory-mapped temporary file, in chunks of 2²⁸ floats (1 GiB). */
    static final class Mapped extends KernelStore {
        static final int CHUNK_BITS = 28;
        static final long CHUNK = 1L << CHUNK_BITS;
        final long size;
        final Path file;
        final FileChannel channel;
        final FloatBuffer[] chunks;
        final MappedByteBuffer[] bytes;

        Mapped(long size, Path dir) {
            this.size = size;
            try {
                Files.createDirectories(dir);
                long free = Files.getFileStore(dir).getUsableSpace();
                if (free < size * 4) {
                    // a mapped file that cannot grow fails later, in the middle of the work, with a memory fault
                    throw new org.ntk4j.UserException("no space left on device for a kernel on disk: it needs "
                            + Ntk.bytes(size * 4) + " in " + dir + ", which has " + Ntk.bytes(free) + " free");
                }
                file = org.ntk4j.files.TempFiles.file(dir.resolve("ntk4j-kernel.f32"));
                channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                int n = (int) ((size + CHUNK - 1) / CHUNK);
                chunks = new FloatBuffer[n];
                bytes = new MappedByteBuffer[n];
                for (int c = 0; c < n; c++) {
                    long len = Math.min(CHUNK, size - c * CHUNK) * 4;
                    MappedByteBuffer mb = channel.map(FileChannel.MapMode.READ_WRITE, c * CHUNK * 4, len);
                    bytes[c] = mb;
                    chunks[c] = mb.order(ByteOrder.nativeOrder()).asFloatBuffer();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create an on-disk kernel in " + dir + ": " + e.getMessage(), e);
            }
        }

        long size() {
            return size;
        }

        double get(long i) {
            return chunks[(int) (i >>> CHUNK_BITS)].get((int) (i & (CHUNK - 1)));
        }

        void add(long i, double x) {
            FloatBuffer b = chunks[(int) (i >>> CHUNK_BITS)];
            int k = (int) (i & (CHUNK - 1));
            b.put(k, b.get(k) + (float) x);
        }

        boolean isFloat64() {
            return false;
        }

        /** Stores the floats of {@code src} (position to limit) from entry {@code i} on, in bulk, across chunks. */
        void put(long i, FloatBuffer src) {
            while (src.hasRemaining()) {
                FloatBuffer b = chunks[(int) (i >>> CHUNK_BITS)];
                int k = (int) (i & (CHUNK - 1));
                int len = Math.min(src.remaining(), b.capacity() - k);
                b.put(k, src, src.position(), len);
                src.position(src.position() + len);
                i += len;
            }
        }

        /** Slices of the mapped file (native order, checked little-endian) go to the channel as they are. */
        void writeTo(WritableByteChannel out) throws IOException {
            requireLittleEndian();
            for (MappedByteBuffer mb : bytes) {
                ByteBuffer all = mb.duplicate();
                for (int off = 0; off < all.capacity(); off += WRITE_BUFFER) {
                    int len = Math.min(WRITE_BUFFER, all.capacity() - off);
                    writeFully(out, all.slice(off, len));
                }
            }
        }

        @Override
        public void close() {
            try {
                channel.close();
                org.ntk4j.files.TempFiles.delete(file);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * Entries held in the engine: an array (any device) owned by {@code owner}, read on the host through direct
     * buffers over slabs of at most {@link #SLAB_BYTES}, made once when the store is made: views of the array itself
     * on the CPU, copies of its slabs elsewhere (the kernel's one trip to the host). The owner's native memory is
     * released by {@link #close()}, or when the store becomes unreachable.
     */
    static final class Engine extends KernelStore {
        /** Bytes per host slab: DJL's buffers are int-indexed (2 GiB) and a slab is one copy from a device. */
        static final long SLAB_BYTES = 1L << 28;

        private static final java.lang.ref.Cleaner CLEANER = java.lang.ref.Cleaner.create();

        final ai.djl.ndarray.NDArray array;
        private final long size;
        private final boolean f64;
        private final long slabEntries;
        private final ByteBuffer[] slabs;
        private final java.lang.ref.Cleaner.Cleanable cleanable;
        private volatile boolean released;

        Engine(ai.djl.ndarray.NDArray array, ai.djl.ndarray.NDManager owner) {
            requireLittleEndian();
            this.array = array;
            this.size = array.size();
            this.f64 = array.getDataType() == ai.djl.ndarray.types.DataType.FLOAT64;
            int width = f64 ? 8 : 4;
            this.slabEntries = SLAB_BYTES / width;
            int n = (int) Math.max(1, (size + slabEntries - 1) / slabEntries);
            this.slabs = new ByteBuffer[n];
            boolean onHost = array.getDevice().equals(ai.djl.Device.cpu());
            try (ai.djl.ndarray.NDArray flat = array.reshape(size)) {
                for (int k = 0; k < n; k++) {
                    long a = k * slabEntries;
                    long b = Math.min(size, a + slabEntries);
                    ai.djl.ndarray.NDArray part = flat.get(new ai.djl.ndarray.index.NDIndex("{}:{}", a, b));
                    ai.djl.ndarray.NDArray hostPart = onHost ? part : part.toDevice(ai.djl.Device.cpu(), false);
                    if (hostPart != part) {
                        part.close();
                    }
                    hostPart.attach(owner);
                    ai.djl.ndarray.NDScope.unregister(hostPart);
                    slabs[k] = hostPart.toByteBuffer(true).order(ByteOrder.nativeOrder());
                }
            }
            ai.djl.ndarray.NDManager o = owner;
            this.cleanable = CLEANER.register(this, o::close);
        }

        long size() {
            return size;
        }

        double get(long i) {
            if (released) {
                throw new IllegalStateException("kernel already released");
            }
            ByteBuffer b = slabs[(int) (i / slabEntries)];
            int k = (int) (i % slabEntries);
            double v = f64 ? b.getDouble(k * 8) : b.getFloat(k * 4);
            java.lang.ref.Reference.reachabilityFence(this);
            return v;
        }

        void add(long i, double x) {
            if (!array.getDevice().equals(ai.djl.Device.cpu())) {
                throw new UnsupportedOperationException("a kernel held on " + array.getDevice() + " is read-only");
            }
            ByteBuffer b = slabs[(int) (i / slabEntries)];
            int k = (int) (i % slabEntries);
            if (f64) {
                b.putDouble(k * 8, b.getDouble(k * 8) + x);
            } else {
                b.putFloat(k * 4, b.getFloat(k * 4) + (float) x);
            }
        }

        boolean isFloat64() {
            return f64;
        }

        /** The host slabs, in order, as they are (native order, checked little-endian). */
        void writeTo(WritableByteChannel out) throws IOException {
            if (released) {
                throw new IllegalStateException("kernel already released");
            }
            for (ByteBuffer b : slabs) {
                writeFully(out, b.duplicate().clear());
            }
            java.lang.ref.Reference.reachabilityFence(this);
        }

        /** Read-only views of the host slabs, in order (valid until the store is closed). */
        ByteBuffer[] slabs() {
            ByteBuffer[] v = new ByteBuffer[slabs.length];
            for (int k = 0; k < v.length; k++) {
                v[k] = slabs[k].asReadOnlyBuffer().order(ByteOrder.nativeOrder());
            }
            return v;
        }

        @Override
        public void close() {
            released = true;
            cleanable.clean();
        }
    }
}
