package org.ntk4j.shard;

import java.util.Collections;
import java.util.Map;
import org.ntk4j.kernel.KernelMatrix;

/**
 * One computed shard: its range and its arrays (the kernel block and, as planned, the per-layer and factor-kernel
 * blocks), each (rows, cols[, O[, O]]) in the plan's dtype, held on the heap until written by {@link ShardStore}.
 *
 * @param range the block
 * @param arrays the blocks by array name ({@link ShardPlan#arrays(String)}), in the plan's order
 * @param seconds wall time of the computation
 * @param timings seconds per phase: factors, contraction, host ({@link org.ntk4j.kernel.KernelResult#timings()})
 */
public record ShardData(
        TileRange range, Map<String, KernelMatrix> arrays, double seconds, Map<String, Double> timings) {
    public ShardData {
        arrays = Collections.unmodifiableMap(arrays);
        timings = Collections.unmodifiableMap(timings);
    }

    /** Releases the arrays' storage (on-disk blocks; heap blocks are left to the garbage collector). */
    public void release() {
        arrays.values().forEach(KernelMatrix::release);
    }
}
