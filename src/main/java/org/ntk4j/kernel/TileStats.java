package org.ntk4j.kernel;

/**
 * What the tile loop did: where the output lived, how the work was split, the engine operations per tile pair (each
 * a kernel launch on a GPU, a pass over memory or a call into the engine on the CPU) and the bytes of kernel that
 * reached the host while computing (which equal the output's size: each entry crosses once).
 *
 * @param placement where the output kernels lived
 * @param device the compute device
 * @param tile samples per tile
 * @param pairs tile pairs computed
 * @param opsPerPairMax the most engine operations one tile pair issued (contraction and placement; -1 when they
 *     could not be counted)
 * @param opsPerPairMean engine operations per tile pair on average
 * @param hostBytes bytes of kernel copied (or, on the CPU, handed) to the host while computing
 * @param outputBytes bytes of all output kernels
 */
public record TileStats(
        KernelPlacement placement,
        String device,
        int tile,
        long pairs,
        long opsPerPairMax,
        double opsPerPairMean,
        long hostBytes,
        long outputBytes) {
    /** One line for {@code --explain}. */
    public String explain() {
        return String.format(
                java.util.Locale.ROOT,
                "tile loop: %d tile pairs of %d samples on %s, %s engine operations per pair (mean %.1f),"
                        + " %s of kernel to the host (output %s), kernel placement %s",
                pairs,
                tile,
                device,
                opsPerPairMax < 0 ? "uncounted" : "at most " + opsPerPairMax,
                opsPerPairMean,
                Ntk.bytes(hostBytes),
                Ntk.bytes(outputBytes),
                placement.label());
    }

    /** The sidecar's record of it. */
    public java.util.Map<String, Object> toMap() {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("placement", placement.label());
        m.put("device", device);
        m.put("tile", tile);
        m.put("tile_pairs", pairs);
        m.put("engine_ops_per_tile_pair_max", opsPerPairMax);
        m.put("engine_ops_per_tile_pair_mean", Math.round(opsPerPairMean * 10) / 10.0);
        m.put("host_bytes", hostBytes);
        m.put("output_bytes", outputBytes);
        return m;
    }
}
