package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;

/**
 * Bytes of kernel that reached host memory from the compute device during one computation, counted where each copy
 * is made: per block placed on the host or on disk, per row slab flushed, or the whole kernel at the end. On the CPU,
 * where device and host are one memory, the same code counts what it would copy (no copy is made there). Each output
 * entry reaches the host once, so the count equals the output's size: the check that no block is copied twice.
 */
public final class HostBytes {
    private long bytes;

    /** Counts {@code a}'s bytes. */
    void add(NDArray a) {
        bytes += a.size() * a.getDataType().getNumOfBytes();
    }

    /** Counts {@code n} bytes. */
    void add(long n) {
        bytes += n;
    }

    /** Bytes counted so far. */
    public long bytes() {
        return bytes;
    }
}
