package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;

/**
 * Where one output kernel (the total Θ, a layer's Θ_l, a factor kernel) lands while its tile pairs are computed.
 * Blocks arrive in the engine, in the order of the {@link TileSchedule}, and are placed by tensor operations (a slice
 * assignment; the mirror image as a transposed view): no Java code touches single entries. Each output entry is
 * written exactly once, so a sink places (copies) blocks and never adds them. What reaches the host is counted in
 * {@link HostBytes}: every entry once, so the count equals the output's size whichever sink holds it.
 *
 * <p>Implementations: the whole kernel in the engine on the compute device or on the host ({@link EngineSink}), a row
 * slab on the device flushed to the host as each row of tiles completes ({@link SlabSink}), a float32 file mapped
 * from disk ({@link MappedSink}). A shard is a block-sized kernel in the engine on the host: an {@link EngineSink}
 * whose placements are relative to the block.
 */
public interface KernelSink {
    /** Places {@code block} (its rows × cols[, O[, O]], any device, the network's or a wider type) as {@code at} says. */
    void add(NDArray block, Placement at);

    /**
     * Output rows {@code [r0, r1)} are complete: no later block is placed there (called after each row of tiles).
     */
    default void rowsDone(int r0, int r1) {}

    /** The finished kernel; the sink is not used afterwards. */
    KernelMatrix finish();

    /** Releases what the sink holds when the computation fails before {@link #finish()}. */
    void abandon();
}
