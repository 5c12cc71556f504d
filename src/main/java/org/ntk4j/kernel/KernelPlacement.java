package org.ntk4j.kernel;

import java.util.Locale;

/**
 * Where a computation's output kernels live while their tile pairs are computed, planned before any work from the
 * device and host budgets ({@link Ntk.MemoryEstimate}).
 */
public enum KernelPlacement {
    /** Whole in the engine on the compute device; copied to the host once, at the end, in slabs. */
    DEVICE,
    /**
     * A slab of one row of tiles on the device, copied to the host as the row completes (mirror images go to the
     * host as they are computed); the whole kernel in the engine on the host.
     */
    DEVICE_SLABS,
    /** Whole in the engine on the host; each block copied there as it is computed. */
    HOST,
    /** A float32 file on disk, mapped; each block copied there as it is computed. */
    DISK;

    /** The lower-case name used by {@code --explain} and the sidecar: device, device-slabs, host, disk. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Parses a {@link #label()} (or the enum name). */
    public static KernelPlacement parse(String s) {
        for (KernelPlacement p : values()) {
            if (p.label().equalsIgnoreCase(s) || p.name().equalsIgnoreCase(s)) {
                return p;
            }
        }
        throw new IllegalArgumentException("placement must be device, device-slabs, host or disk (got " + s + ")");
    }
}
