package org.ntk4j.report;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A write-only, append-mostly file channel for large outputs that bypasses the page cache
 * (O_DIRECT): bytes are staged in one aligned buffer and written to the disk in whole aligned
 * blocks; the unaligned tail and the small positional patches (a zip header's CRC) go through an
 * ordinary channel on the same file. Why: on this project's VMs a buffered write of a fresh file
 * runs at the speed at which the kernel can obtain page-cache pages, 46-58 MB/s for 1 GiB under
 * load, while the same write with O_DIRECT ran at 0.8-1.1 GB/s ({@code dd bs=4M count=256} with and
 * without {@code oflag=direct}, benchmarks/RESULTS.md "bytes out"). Where O_DIRECT is refused (tmpfs,
 * some network file systems) {@link #open} returns a plain channel.
 *
 * <p>Two staging buffers take turns: while one is written to the disk on the channel's I/O thread, the next bytes
 * (the next slab of a kernel, with its CRC and hash) are copied into the other, so the copy overlaps the write.
 *
 * <p>Supported: sequential {@link #write(ByteBuffer)}, {@link #position()}, {@link #position(long)}
 * to the current position, and {@link #write(ByteBuffer, long)} inside what was already written.
 */
final class DirectFileChannel extends FileChannel {
    /** Below this many bytes a plain channel is used: the direct path's set-up is not worth it. */
    static final long MIN_BYTES = 64L << 20;

    private static final int STAGE = 8 << 20;

    private final FileChannel direct;
    private final FileChannel plain;
    private final ByteBuffer[] stages = new ByteBuffer[2];
    /** The stage being filled; the other may be on its way to the disk ({@link #pending}). */
    private ByteBuffer stage;

    private final int align;
    /**
     * Bytes handed to the disk through {@link #direct} (a multiple of {@link #align}; the last of them may still be
     * in flight, {@link #pending}); the stage holds [flushed, position).
     */
    private long flushed;

    private final java.util.concurrent.ExecutorService io;
    private java.util.concurrent.Future<?> pending;

    private DirectFileChannel(FileChannel direct, FileChannel plain, int align) {
        this.direct = direct;
        this.plain = plain;
        this.align = align;
        for (int k = 0; k < 2; k++) {
            stages[k] = ByteBuffer.allocateDirect(STAGE + align).alignedSlice(align);
        }
        this.stage = stages[0];
        this.io = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "ntk4j-direct-write");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * A channel writing {@code file} (opened with {@code options}, which must include WRITE): the
     * direct one when {@code expectedBytes} is large, O_DIRECT is available and not switched off with
     * {@code -Dntk4j.io.direct=false}; a plain {@link FileChannel} otherwise.
     */
    static FileChannel open(Path file, long expectedBytes, OpenOption... options) throws IOException {
        FileChannel plain = FileChannel.open(file, options);
        if (expectedBytes < MIN_BYTES || !Boolean.parseBoolean(System.getProperty("ntk4j.io.direct", "true"))) {
            return plain;
        }
        try {
            int align = (int) Math.max(4096, Files.getFileStore(file).getBlockSize());
            if (Integer.bitCount(align) != 1 || align > (1 << 20)) {
                return plain;
            }
            FileChannel direct =
                    FileChannel.open(file, StandardOpenOption.WRITE, com.sun.nio.file.ExtendedOpenOption.DIRECT);
            return new DirectFileChannel(direct, plain, align);
        } catch (IOException | UnsupportedOperationException e) {
            return plain; // no O_DIRECT here: buffered writes
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        int n = 0;
        while (src.hasRemaining()) {
            if (!stage.hasRemaining()) {
                flushStage(false);
            }
            int len = Math.min(src.remaining(), stage.remaining());
            stage.put(stage.position(), src, src.position(), len);
            stage.position(stage.position() + len);
            src.position(src.position() + len);
            n += len;
        }
        return n;
    }

    /**
     * Hands the staged whole blocks to the I/O thread (after the previous stage's write has finished) and continues
     * in the other stage, an unaligned remainder moved to its front; with {@code all}, writes everything now, the
     * unaligned tail through the plain channel.
     */
    private void flushStage(boolean all) throws IOException {
        int filled = stage.position();
        int whole = filled & -align;
        awaitPending();
        if (whole > 0) {
            ByteBuffer out = stage.duplicate().position(0).limit(whole);
            long at = flushed;
            if (all) {
                writeDirect(out, at);
            } else {
                pending = io.submit(() -> {
                    writeDirect(out, at);
                    return null;
                });
            }
            flushed += whole;
        }
        int rest = filled - whole;
        if (all && rest > 0) {
            ByteBuffer out = stage.duplicate().position(whole).limit(filled);
            long at = flushed;
            while (out.hasRemaining()) {
                at += plain.write(out, at);
            }
            flushed += rest;
            stage.clear();
            return;
        }
        ByteBuffer next = stage == stages[0] ? stages[1] : stages[0];
        next.clear();
        next.put(0, stage, whole, rest);
        next.position(rest);
        stage = next;
    }

    private void writeDirect(ByteBuffer out, long at) throws IOException {
        while (out.hasRemaining()) {
            at += direct.write(out, at);
        }
    }

    /** Waits for the stage in flight to reach the disk; its failure surfaces here. */
    private void awaitPending() throws IOException {
        if (pending == null) {
            return;
        }
        try {
            pending.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while writing");
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof IOException io ? io : new IOException(c);
        } finally {
            pending = null;
        }
    }

    @Override
    public long position() {
        return flushed + stage.position();
    }

    @Override
    public FileChannel position(long newPosition) {
        if (newPosition != position()) {
            throw new UnsupportedOperationException("direct channel: seek from " + position() + " to " + newPosition);
        }
        return this;
    }

    @Override
    public int write(ByteBuffer src, long at) throws IOException {
        int len = src.remaining();
        if (at < 0 || at + len > position()) {
            throw new UnsupportedOperationException("direct channel: patch past the written bytes");
        }
        int n = 0;
        if (at < flushed) { // the part already on disk: a buffered write on the same file, once it is there
            awaitPending();
            int k = (int) Math.min(len, flushed - at);
            ByteBuffer head = src.duplicate().limit(src.position() + k);
            long p = at;
            while (head.hasRemaining()) {
                p += plain.write(head, p);
            }
            src.position(src.position() + k);
            n += k;
            at += k;
        }
        if (src.hasRemaining()) { // the part still staged
            int k = src.remaining();
            stage.put((int) (at - flushed), src, src.position(), k);
            src.position(src.position() + k);
            n += k;
        }
        return n;
    }

    @Override
    public long size() {
        return position();
    }

    @Override
    protected void implCloseChannel() throws IOException {
        try {
            flushStage(true);
        } finally {
            try {
                awaitPending();
            } finally {
                io.shutdown();
                try {
                    direct.close();
                } finally {
                    plain.close();
                }
            }
        }
    }

    @Override
    public void force(boolean metaData) throws IOException {
        awaitPending();
        direct.force(metaData);
        plain.force(metaData);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long n = 0;
        for (int i = offset; i < offset + length; i++) {
            n += write(srcs[i]);
        }
        return n;
    }

    @Override
    public int read(ByteBuffer dst) {
        throw new UnsupportedOperationException("write-only");
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) {
        throw new UnsupportedOperationException("write-only");
    }

    @Override
    public int read(ByteBuffer dst, long position) {
        throw new UnsupportedOperationException("write-only");
    }

    @Override
    public FileChannel truncate(long size) {
        throw new UnsupportedOperationException("direct channel: truncate");
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) {
        throw new UnsupportedOperationException("write-only");
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) {
        throw new UnsupportedOperationException("direct channel: transferFrom");
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) {
        throw new UnsupportedOperationException("direct channel: map");
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) {
        throw new UnsupportedOperationException("direct channel: lock");
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) {
        throw new UnsupportedOperationException("direct channel: tryLock");
    }
}
