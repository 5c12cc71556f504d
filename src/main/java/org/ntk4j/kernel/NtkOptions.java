package org.ntk4j.kernel;

import java.nio.file.Path;
import java.util.Map;
import org.ntk4j.kernel.factor.Mode;

/**
 * What to compute and how, for {@link Ntk#of(org.ntk4j.model.Network, NtkOptions)}: immutable; build
 * with {@link #builder()} (defaults: TRACE, AUTO, sum normalisation, float32 host accumulation, 1 GiB).
 *
 * @param mode output axes kept (FULL, TRACE, DIAGONAL)
 * @param method AUTO, STRUCTURED or JACOBIAN for every layer (see {@link NtkPlan})
 * @param perLayer also return Θ_l per layer
 * @param parts return Θ per parameter (weight and bias apart) instead of per layer; implies perLayer
 * @param float64 accumulate in float64 (the device computes in the network's type, the output kernels are float64)
 * @param meanNormalised divide a TRACE kernel by O (neural-tangents' convention) instead of summing
 * @param memoryBytes memory budget for the tiles' factors and blocks
 * @param spillDir directory for kernels too large for the heap (null: the system temporary directory)
 * @param onDisk accumulate every kernel in float32 files under {@code spillDir}, whatever the size
 * @param layerWeights η_l per layer name (total = Σ_l η_l Θ_l); absent layers weigh 1
 * @param convPairs force conv contractions: true pairs, false rows, null the cheaper
 * @param factorKernels also return dense layers' forward and backward Grams (Lou, Mingard &amp; Hayou, Equilibrium
 *     Hypothesis, Eq. 7)
 * @param tile samples per tile, fixed; null = the largest power-of-two fraction of min(N, 4096) the memory budget
 *     allows. Fixing it makes the tile grid, and so every value bit for bit, independent of N and of the budget:
 *     a shard computed on the same grid ({@link Ntk#computeBlock}) equals the same block of the whole kernel.
 * @param deviceMemory bytes the compute device may hold (factors, blocks and whatever of the output lives there);
 *     null = the device's free memory less a margin on a GPU, half the physical memory on the CPU
 * @param placement where the output kernels live ({@link KernelPlacement}); null = planned from the budgets
 */
public record NtkOptions(
        Mode mode,
        Method method,
        boolean perLayer,
        boolean parts,
        boolean float64,
        boolean meanNormalised,
        long memoryBytes,
        Path spillDir,
        boolean onDisk,
        Map<String, Double> layerWeights,
        Boolean convPairs,
        boolean factorKernels,
        Integer tile,
        Long deviceMemory,
        KernelPlacement placement) {
    public NtkOptions {
        if (tile != null && tile < 1) {
            throw new IllegalArgumentException("tile must be >= 1 (got " + tile + ")");
        }
        if (mode == null || method == null) {
            throw new IllegalArgumentException("mode and method are required");
        }
        if (memoryBytes <= 0) {
            throw new IllegalArgumentException("memory budget must be positive (got " + memoryBytes + ")");
        }
        if (deviceMemory != null && deviceMemory <= 0) {
            throw new IllegalArgumentException("device memory must be positive (got " + deviceMemory + ")");
        }
        if (onDisk && spillDir == null) {
            throw new IllegalArgumentException("onDisk needs a spill directory");
        }
        layerWeights = layerWeights == null ? Map.of() : Map.copyOf(layerWeights);
        perLayer = perLayer || parts;
    }

    /** The defaults. */
    public static NtkOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.mode = mode;
        b.method = method;
        b.perLayer = perLayer;
        b.parts = parts;
        b.float64 = float64;
        b.mean = meanNormalised;
        b.memoryBytes = memoryBytes;
        b.spillDir = spillDir;
        b.onDisk = onDisk;
        b.layerWeights = layerWeights;
        b.convPairs = convPairs;
        b.factorKernels = factorKernels;
        b.tile = tile;
        b.deviceMemory = deviceMemory;
        b.placement = placement;
        return b;
    }

    /** Builder with the defaults of the fluent {@link Ntk} API. */
    public static final class Builder {
        private Mode mode = Mode.TRACE;
        private Method method = Method.AUTO;
        private boolean perLayer;
        private boolean parts;
        private boolean float64;
        private boolean mean;
        private long memoryBytes = 1L << 30;
        private Path spillDir;
        private boolean onDisk;
        private Map<String, Double> layerWeights = Map.of();
        private Boolean convPairs;
        private boolean factorKernels;
        private Integer tile;
        private Long deviceMemory;
        private KernelPlacement placement;

        private Builder() {}

        public Builder mode(Mode m) {
            this.mode = m;
            return this;
        }

        public Builder method(Method m) {
            this.method = m;
            return this;
        }

        public Builder perLayer(boolean b) {
            this.perLayer = b;
            return this;
        }

        public Builder parameterParts(boolean b) {
            this.parts = b;
            return this;
        }

        public Builder float64(boolean b) {
            this.float64 = b;
            return this;
        }

        public Builder meanNormalised(boolean b) {
            this.mean = b;
            return this;
        }

        public Builder memory(long bytes) {
            this.memoryBytes = bytes;
            return this;
        }

        public Builder spillDir(Path dir) {
            this.spillDir = dir;
            return this;
        }

        /** Accumulates every kernel on disk under {@code dir}. */
        public Builder onDisk(Path dir) {
            this.spillDir = dir;
            this.onDisk = true;
            return this;
        }

        public Builder layerWeights(Map<String, Double> weights) {
            this.layerWeights = weights;
            return this;
        }

        public Builder convPairs(Boolean pairs) {
            this.convPairs = pairs;
            return this;
        }

        public Builder factorKernels(boolean b) {
            this.factorKernels = b;
            return this;
        }

        /** Fixes the samples per tile (null: chosen from the memory budget). */
        public Builder tile(Integer samples) {
            this.tile = samples;
            return this;
        }

        /** Bytes the compute device may hold (null: its free memory less a margin; on the CPU half the memory). */
        public Builder deviceMemory(Long bytes) {
            this.deviceMemory = bytes;
            return this;
        }

        /** Where the output kernels live (null: planned from the budgets). */
        public Builder placement(KernelPlacement p) {
            this.placement = p;
            return this;
        }

        public NtkOptions build() {
            return new NtkOptions(
                    mode,
                    method,
                    perLayer,
                    parts,
                    float64,
                    mean,
                    memoryBytes,
                    spillDir,
                    onDisk,
                    layerWeights,
                    convPairs,
                    factorKernels,
                    tile,
                    deviceMemory,
                    placement);
        }
    }
}
