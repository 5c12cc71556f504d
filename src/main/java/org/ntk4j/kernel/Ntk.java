package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.ntk4j.UserException;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;

/**
 * The empirical neural tangent kernel Θ[(i,o),(j,p)] = Σ_θ ∂f_o(x_i)/∂θ · ∂f_p(x_j)/∂θ = Σ_l Θ_l
 * (Jacot et al. 2018), computed by tiles over X1 and X2 from per-layer tangent factors.
 *
 * <pre>{@code
 * KernelResult k = Ntk.of(network).mode(Mode.TRACE).perLayer().compute(x1, x2);
 * }</pre>
 * With x2 = null the kernel is X1×X1 and only its upper triangle of tiles is computed. A traced
 * kernel sums over outputs by default (torch.func's convention); {@link #meanNormalised()} averages
 * over the traced outputs instead, like neural-tangents' {@code empirical_ntk_fn(trace_axes=(-1,))}
 * (Novak et al. 2020, Neural Tangents, {@code empirical_ntk_fn(trace_axes=(-1,))}).
 */
public final class Ntk {
    private final Network net;
    private NtkOptions opts;
    private Consumer<Double> progress = p -> {};

    private Ntk(Network net, NtkOptions opts) {
        this.net = net;
        this.opts = opts;
    }

    public static Ntk of(Network net) {
        return new Ntk(net, NtkOptions.defaults());
    }

    /** The kernel of {@code net} with the given options; the fluent setters below still refine them. */
    public static Ntk of(Network net, NtkOptions options) {
        return new Ntk(net, options);
    }

    /**
     * The kernel of {@code net} as a function of its inputs and parameters, returning engine arrays ({@link
     * NtkFunction}).
     */
    public static NtkFunction function(Network net, NtkOptions options) {
        return new NtkFunction(net, options);
    }

    /**
     * The kernel of an initialised DJL block as a function ({@link NtkFunction}); {@code sampleShape} is the shape of
     * ONE sample, without the batch axis that {@code block.initialize} takes (e.g. (1, 28, 28), not (N, 1, 28, 28)).
     * The block keeps its parameters; see {@link Network#ofBlock}.
     */
    public static NtkFunction function(
            ai.djl.nn.Block block, ai.djl.ndarray.types.Shape sampleShape, NtkOptions options) {
        var ps = block.getParameters();
        if (ps.isEmpty() || !ps.valueAt(0).isInitialized()) {
            throw new UserException("DJL block " + block.getClass().getSimpleName() + " is not initialised: call"
                    + " block.initialize(manager, dataType, batchShape) first");
        }
        return new NtkFunction(
                Network.ofBlock(block, sampleShape, ps.valueAt(0).getArray().getManager()), options);
    }

    /** A builder of {@link NtkOptions}, for {@link #of(Network, NtkOptions)}. */
    public static NtkOptions.Builder options() {
        return NtkOptions.builder();
    }

    /** The options set so far. */
    public NtkOptions toOptions() {
        return opts;
    }

    public Ntk mode(Mode m) {
        opts = opts.toBuilder().mode(m).build();
        return this;
    }

    public Ntk method(Method m) {
        opts = opts.toBuilder().method(m).build();
        return this;
    }

    /** Also return Θ_l for each parameterised layer. */
    public Ntk perLayer() {
        opts = opts.toBuilder().perLayer(true).build();
        return this;
    }

    /** Return Θ per parameter (weight and bias parts separately) instead of per layer. */
    public Ntk parameterParts() {
        opts = opts.toBuilder().perLayer(true).parameterParts(true).build();
        return this;
    }

    /** Accumulate in float64: the device computes in the network's data type, the output kernels are float64. */
    public Ntk float64() {
        opts = opts.toBuilder().float64(true).build();
        return this;
    }

    /** Average over the traced output axis (divide a TRACE kernel by O), for neural-tangents parity. */
    public Ntk meanNormalised() {
        opts = opts.toBuilder().meanNormalised(true).build();
        return this;
    }

    /**
     * Fixes the samples per tile (default: the largest that the memory budget allows, from min(N, 4096) down by
     * halves). The tile grid decides how the work is split into matrix products, and so the last bits of every
     * value: kernels computed on the same grid agree bit for bit, whatever their memory budget or extent
     * ({@link #computeBlock}).
     */
    public Ntk tile(int samples) {
        opts = opts.toBuilder().tile(samples).build();
        return this;
    }

    /** Memory budget for the tiles' factors and blocks ({@link #estimate(int, int)} says what a computation holds). */
    public Ntk memory(long bytes) {
        opts = opts.toBuilder().memory(bytes).build();
        return this;
    }

    /**
     * Bytes the compute device may hold: the tiles' factors and blocks and, when they fit, the output kernels
     * (default: the device's free memory less a margin on a GPU; half the physical memory on the CPU). Where the
     * output kernels live follows from it ({@link #estimate(int, int, ai.djl.Device)}, {@link KernelPlacement}).
     */
    public Ntk deviceMemory(long bytes) {
        opts = opts.toBuilder().deviceMemory(bytes).build();
        return this;
    }

    /** Where the output kernels live, instead of planning it from the budgets. */
    public Ntk placement(KernelPlacement p) {
        opts = opts.toBuilder().placement(p).build();
        return this;
    }

    /**
     * Directory for kernels too large for the Java heap: when the kernels of a computation need more
     * than half the maximum heap they are accumulated in float32 files mapped from here (default: the
     * system temporary directory).
     */
    public Ntk spillDir(java.nio.file.Path dir) {
        opts = opts.toBuilder().spillDir(dir).build();
        return this;
    }

    /** Accumulate every kernel in float32 files mapped from {@code dir}, whatever their size. */
    public Ntk onDisk(java.nio.file.Path dir) {
        opts = opts.toBuilder().onDisk(dir).build();
        return this;
    }

    /**
     * Weights η_l per layer name: the total becomes the learning-rate-weighted NTK Σ_l η_l Θ_l, the
     * kernel that governs gradient descent with per-layer learning rates (Atanasov, Bordelon & Pehlevan, Silent Alignment, §2; Xu & Ziyin, When Does Feature Learning Happen?, §2);
     * layers not named keep weight 1. Per-layer kernels are returned unweighted.
     */
    public Ntk layerWeights(Map<String, Double> weights) {
        opts = opts.toBuilder().layerWeights(weights).build();
        return this;
    }

    /**
     * Forces the contraction of structured conv layers: true = position pairs, false = per-sample
     * rows, null (default) = the cheaper by FLOP count ({@link org.ntk4j.kernel.rule.Conv2dRule}).
     */
    public Ntk convPairs(Boolean pairs) {
        opts = opts.toBuilder().convPairs(pairs).build();
        return this;
    }

    /**
     * Also return, for each dense layer (structured path), its forward kernel A1 A2ᵀ and backward
     * kernel Σ_o Δ1_o Δ2_oᵀ (Lou, Mingard & Hayou, Equilibrium Hypothesis, Eq. 7: Θ_l = forward ⊙ backward per output pair).
     */
    public Ntk factorKernels() {
        opts = opts.toBuilder().factorKernels(true).build();
        return this;
    }

    /** Receives the fraction done (0..1) after each tile pair. */
    public Ntk onProgress(Consumer<Double> listener) {
        this.progress = listener;
        return this;
    }

    /**
     * The method per layer, with FLOP and memory estimates ({@link NtkPlan}): each layer's
     * {@link org.ntk4j.kernel.rule.TangentRule} against the generic Jacobian path;
     * {@link NtkPlan#explain()} renders what {@code --explain} prints.
     */
    public NtkPlan plan(int n1, int n2) {
        return NtkPlan.of(net, opts, n1, n2);
    }

    /** The plan, refused where STRUCTURED was asked for and a layer cannot take it. */
    private NtkPlan checked(NtkPlan plan) {
        if (opts.method() == Method.STRUCTURED) {
            plan.requireStructured();
        }
        return plan;
    }

    /** Θ(X1, X1); only the upper triangle of tiles is computed. */
    public KernelResult compute(NDArray x1) {
        return compute(x1, null);
    }

    /** Θ(X1, X2) with X1 (N1, input...) and X2 (N2, input...); x2 null means X2 = X1. */
    public KernelResult compute(NDArray x1, NDArray x2) {
        long start = System.nanoTime(); // the kernel's seconds: its plan and its output's allocation too
        boolean symmetric = x2 == null;
        checkInput(x1, "x1");
        if (!symmetric) {
            checkInput(x2, "x2");
        }
        int n1 = (int) x1.getShape().get(0);
        int n2 = symmetric ? n1 : (int) x2.getShape().get(0);
        NtkPlan plan = checked(plan(n1, n2));
        MemoryEstimate est = estimate(plan, n1, n2, true, x1.getDevice());
        est.check();
        boolean cacheAll = cacheBytes(plan, n2) > 0;
        int tile = symmetric && cacheAll && opts.tile() == null ? symmetricTile(est.tile(), n1) : est.tile();
        Outputs out = outputs(n1, n2, tile, est.placement(), x1.getDevice());
        return new TileLoop(net, opts, plan, progress, start)
                .run(
                        new TileSchedule.Block(0, n1, 0, n2, n1, n2, symmetric),
                        x1,
                        symmetric ? x1 : x2,
                        tile,
                        cacheAll,
                        out,
                        est.outputBytes());
    }

    /**
     * The tile of a symmetric kernel whose factors are all cached: at most the budget's {@code tile}, and at most a
     * quarter of N (a power of two, at least 512). Only pairs on and above the diagonal are computed, so T tiles per
     * side cost (T + 1) / 2T of the whole kernel's products: 3/4 with two tiles, 9/16 with eight; each tile's
     * factors are computed once however many there are. Below 512 samples the products lose more to their size.
     */
    static int symmetricTile(int tile, int n) {
        int quarter = Integer.highestOneBit(Math.max(1, n / 4));
        return Math.min(tile, Math.max(512, quarter));
    }

    private Outputs outputs(int rows, int cols, int tile, KernelPlacement placement, ai.djl.Device device) {
        DataType type = opts.float64() ? DataType.FLOAT64 : DataType.FLOAT32;
        return new Outputs(
                new SinkShape(rows, cols, opts.mode(), net.outputs(), type),
                tile,
                placement,
                device,
                placement == KernelPlacement.DISK ? spillDirOrTemp() : null);
    }

    /**
     * One block of a kernel, rows {@code [rowStart, rowStart + R)} × columns {@code [colStart, colStart + C)} of
     * Θ(X1, X2) (N1 × N2; with {@code symmetric} X2 = X1 and N2 = N1), from the inputs of those rows ({@code rows},
     * (R, input...)) and columns ({@code cols}, (C, input...)) only. The block is computed on the whole kernel's
     * tile grid (tiles of {@link #tile(int)} samples from index 0, which must be fixed), tile pair by tile pair as
     * {@link #compute(NDArray, NDArray)} computes them, so it equals the same block of the whole kernel bit for
     * bit: in a symmetric kernel a tile pair below the diagonal is the transpose of the pair above it, as there.
     * The block must lie on that grid: {@code rowStart} and {@code colStart} multiples of the tile, and each end a
     * multiple of it or N1 (N2).
     *
     * @return the block, (R, C[, O[, O]]) in each kernel of the result ({@link KernelResult#symmetric()} says
     *     whether the kernel it is part of is symmetric)
     */
    public KernelResult computeBlock(
            NDArray rows, NDArray cols, int rowStart, int colStart, int n1, int n2, boolean symmetric) {
        long start = System.nanoTime();
        Integer tile = opts.tile();
        if (tile == null) {
            throw new IllegalArgumentException("computeBlock needs a fixed tile size (Ntk.tile)");
        }
        checkInput(rows, "rows");
        checkInput(cols, "cols");
        int br = (int) rows.getShape().get(0);
        int bc = (int) cols.getShape().get(0);
        if (symmetric && n1 != n2) {
            throw new IllegalArgumentException("a symmetric kernel is square (got " + n1 + "×" + n2 + ")");
        }
        checkOnGrid("rows", rowStart, br, n1, tile);
        checkOnGrid("cols", colStart, bc, n2, tile);
        NtkPlan plan = checked(plan(n1, n2));
        // the block is held in the engine where it is computed and reaches the host once, at the end
        Outputs out = outputs(br, bc, tile, KernelPlacement.DEVICE, rows.getDevice());
        long bytes = KernelMatrix.bytes(br, bc, opts.mode(), net.outputs(), opts.float64()) * (1 + layerKernels())
                + KernelMatrix.bytes(br, bc, Mode.TRACE, net.outputs(), opts.float64()) * denseFactorKernels(plan);
        return new TileLoop(net, opts, plan, progress, start)
                .run(
                        new TileSchedule.Block(rowStart, br, colStart, bc, n1, n2, symmetric),
                        rows,
                        cols,
                        tile,
                        cacheBytes(plan, bc) > 0,
                        out,
                        bytes);
    }

    private static void checkOnGrid(String what, int start, int len, int n, int tile) {
        int end = start + len;
        if (len < 1 || start < 0 || end > n || start % tile != 0 || (end != n && end % tile != 0)) {
            throw new IllegalArgumentException(
                    what + " " + start + ":" + end + " is not on the grid of tiles of " + tile + " samples over " + n);
        }
    }

    private void checkInput(NDArray x, String what) {
        var s = x.getShape();
        var in = net.inputShape();
        if (s.dimension() != in.dimension() + 1 || !s.slice(1).equals(in)) {
            throw new UserException(what + " has shape " + s + "; model "
                    + net.spec().name() + " expects (N, " + in.toString().replaceAll("[()]", "") + ")");
        }
        if (s.get(0) == 0) {
            throw new UserException(what + " has no samples (shape " + s + "); the kernel needs at least one");
        }
    }

    /**
     * What a computation of Θ(X1, X2) holds at its peak, planned before any work: where the output kernels live
     * (total, per layer, factor kernels: {@link KernelPlacement}) and the tiles' working set (factors of two tiles,
     * the probe pass's transient factors, the blocks of a tile pair). The memory budget of {@link #memory(long)}
     * bounds the tiles; the device budget ({@link NtkOptions#deviceMemory()}) bounds what the compute device holds: the
     * tiles and, when they fit, the output kernels. A caller that bounds the whole computation (the kernel job) passes
     * what is left after the output kernels as the tiles' budget.
     *
     * @param outputBytes bytes of all output kernels
     * @param outputsOnDisk whether they are accumulated in float32 files in the spill directory
     * @param workingBytes the tiles' working set at the chosen tile size
     * @param minWorkingBytes the working set with one-sample tiles (the least that works)
     * @param tile samples per tile, 0 when not even one sample's factors fit
     * @param budget the tiles' memory budget
     * @param float64 float64 accumulation (held in memory only)
     * @param placement where the output kernels live; null when no placement fits (see {@code refusal})
     * @param device the compute device
     * @param deviceBudget bytes the compute device may hold
     * @param deviceBytes what the device holds at the peak: the working set and the outputs (or slab) it holds
     * @param refusal why the computation cannot run, naming the smallest budget that works; null when it can
     */
    public record MemoryEstimate(
            long outputBytes,
            boolean outputsOnDisk,
            long workingBytes,
            long minWorkingBytes,
            int tile,
            long budget,
            boolean float64,
            KernelPlacement placement,
            String device,
            long deviceBudget,
            long deviceBytes,
            String refusal) {
        /** Peak bytes: the output kernels held in memory and the tiles' working set. */
        public long peakBytes() {
            return heldOutputBytes() + workingBytes;
        }

        /** Bytes of output kernels held in memory (0 when they go to disk). */
        public long heldOutputBytes() {
            return outputsOnDisk ? 0 : outputBytes;
        }

        /** Throws a one-line {@link UserException} when even one-sample tiles exceed the budget, or nothing fits. */
        public void check() {
            if (tile == 0) {
                boolean device = deviceBudget < budget; // the device budget bounds the tiles
                throw new UserException((device
                                ? "device budget " + bytes(deviceBudget) + " (--device-memory)"
                                : "memory budget " + bytes(budget))
                        + " is too small for the tiles: it needs at least " + bytes(minWorkingBytes)
                        + " (one-sample tiles); raise " + (device ? "--device-memory" : "--memory"));
            }
            if (refusal != null) {
                throw new UserException(refusal);
            }
        }

        /** The {@code --explain} line: where the kernel lives, and what the device holds of its budget. */
        public String explain() {
            String where = placement == null ? "none fits" : placement.label();
            return String.format(
                    java.util.Locale.ROOT,
                    "kernel placement: %s on %s (output kernels %s, tiles of %d samples %s; device holds %s of"
                            + " its %s budget)",
                    where,
                    device,
                    bytes(outputBytes),
                    tile,
                    bytes(workingBytes),
                    bytes(deviceBytes),
                    bytes(deviceBudget));
        }

        /** The sidecar's record of the plan. */
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("placement", placement == null ? null : placement.label());
            m.put("device", device);
            m.put("device_budget_bytes", deviceBudget);
            m.put("device_bytes", deviceBytes);
            m.put("output_bytes", outputBytes);
            m.put("tile", tile);
            m.put("working_bytes", workingBytes);
            m.put("memory_budget_bytes", budget);
            return m;
        }
    }

    /** A size with a sensible unit: 512 B, 3.2 KiB, 14.0 MiB, 9.31 GiB. */
    public static String bytes(long b) {
        return org.ntk4j.util.Numbers.bytes(b);
    }

    /** The memory estimate of Θ(X1, X2) with N1 and N2 samples (N2 = N1 for X1×X1) on the CPU, before any work. */
    public MemoryEstimate estimate(int n1, int n2) {
        return estimate(n1, n2, ai.djl.Device.cpu());
    }

    /** The memory estimate of Θ(X1, X2) computed on {@code device}, before any work. */
    public MemoryEstimate estimate(int n1, int n2, ai.djl.Device device) {
        return estimate(plan(n1, n2), n1, n2, true, device);
    }

    /**
     * The tiles' part of {@link #estimate(int, int)} for Θ(X1, X2), the output kernels left out (held elsewhere, as
     * the shards of a sharded kernel hold theirs): the tile size and working set the budget allows for the whole
     * N1 × N2 kernel, even one far larger than this machine could hold.
     */
    public MemoryEstimate tileEstimate(int n1, int n2) {
        return estimate(plan(n1, n2), n1, n2, false, ai.djl.Device.cpu());
    }

    /** Output kernels besides the total: one per layer (or parameter) when asked for. */
    private int layerKernels() {
        return opts.perLayer()
                ? (opts.parts()
                        ? net.trainableParams().size()
                        : net.parameterLayers().size())
                : 0;
    }

    /** Factor kernels (forward and backward Gram per structured dense layer) when asked for. */
    private int denseFactorKernels(NtkPlan plan) {
        return opts.factorKernels() && !opts.parts()
                ? 2
                        * (int) plan.layers().stream()
                                .filter(l -> l.structured() && "dense".equals(l.ruleName()))
                                .count()
                : 0;
    }

    private MemoryEstimate estimate(NtkPlan plan, int n1, int n2, boolean withOutputs, ai.djl.Device device) {
        Mode mode = opts.mode();
        int o = net.outputs();
        boolean float64 = opts.float64();
        int denseFactors = denseFactorKernels(plan);
        int layerMatrices = layerKernels();
        // bytes of all output kernels with r rows (N1 for the whole kernel, a tile for a device slab)
        java.util.function.IntToLongFunction kernels =
                r -> (1 + layerMatrices) * KernelMatrix.bytes(r, n2, mode, o, float64)
                        + denseFactors * KernelMatrix.bytes(r, n2, Mode.TRACE, o, float64);
        long outputBytes = withOutputs ? kernels.applyAsLong(n1) : 0;
        boolean gpu = !device.equals(ai.djl.Device.cpu());
        long deviceBudget = deviceBudget(device);
        long budget = opts.memoryBytes();
        long tileBudget = Math.min(budget, deviceBudget);
        int n = Math.max(n1, n2);
        long perSample = plan.bytesPerSample();
        long nb = net.dataType().getNumOfBytes();
        // the probe pass: its transient factors, and with the replicated backward pass O copies of the tile's
        // activations and inputs (a measured 13.4 GB peak against 3.6 GB per output at N = 128, ResNet-20)
        boolean replicated = TangentFactors.replicate(o);
        long transientPerSample = replicated
                ? o * (plan.transientBytesPerSample() + net.inputShape().size() * nb)
                : plan.transientBytesPerSample();
        long inner = mode == Mode.TRACE ? 1 : mode == Mode.DIAGONAL ? o : (long) o * o;
        // bytes per kernel entry of a tile pair (t·t·inner), alive while the pair runs: per layer the
        // contraction's intermediates and the running sum in the network's type, the blocks widened for float64
        // output. Counted at 16 per layer: measured peak native memory of tile pairs (mlp-quickstart full, float32,
        // tiles of 31-125 samples) was 140-210 bytes per entry for 3 layers, the engine's intermediates and the
        // blocks glibc keeps after they are freed
        int layers = Math.max(plan.layers().size(), layerMatrices);
        long perEntry = layers * 16L * nb + 2 * nb + denseFactors * 2L * nb;
        // the factors of every column tile when they are cached, else those of two tiles
        long cache = cacheBytes(plan, n2);
        java.util.function.IntToLongFunction need =
                t -> cache + 2 * perSample * t + transientPerSample * t + perEntry * inner * t * (long) t;
        long min = need.applyAsLong(1);
        int t = Math.min(n, 4096);
        while (t > 1 && need.applyAsLong(t) > tileBudget) {
            t /= 2;
        }
        if (opts.tile() != null) {
            t = opts.tile(); // fixed: the budget is then advisory (peakBytes says what it takes)
        } else if (t == 1 && 2 * perSample + transientPerSample > tileBudget) {
            t = 0; // not even one sample's factors fit (one-sample blocks over the budget are let through, as before)
        }
        long work = t == 0 ? min : need.applyAsLong(t);
        // the least working set that works: one-sample tiles, or the fixed tile's
        long least = opts.tile() != null ? work : min;
        Placed where = withOutputs
                ? place(outputBytes, t == 0 ? 0 : kernels.applyAsLong(Math.min(t, n1)), work, least, deviceBudget, gpu)
                : new Placed(KernelPlacement.DEVICE, work, null);
        return new MemoryEstimate(
                outputBytes,
                where.placement() == KernelPlacement.DISK,
                work,
                min,
                t,
                budget,
                float64,
                where.placement(),
                device.toString(),
                deviceBudget,
                where.deviceBytes(),
                where.refusal());
    }

    private record Placed(KernelPlacement placement, long deviceBytes, String refusal) {}

    /**
     * Where the output kernels live: on the device when they fit its budget beside the tiles; on a GPU else a row
     * slab on the device (or nothing) with the kernels on the host when they fit half the host's memory; else on disk
     * (float32). A placement asked for in the options is taken as it is; float64 never goes to disk.
     */
    private Placed place(long outputs, long slab, long work, long minWork, long deviceBudget, boolean gpu) {
        KernelPlacement forced = opts.onDisk() ? KernelPlacement.DISK : opts.placement();
        boolean f64 = opts.float64();
        if (forced == KernelPlacement.DISK && f64) {
            return new Placed(
                    null,
                    work,
                    "float64 kernels are held in memory only, not on disk (" + bytes(outputs)
                            + "): use float32 to accumulate them on disk");
        }
        if (forced != null) {
            return new Placed(forced, work + held(forced, outputs, slab), null);
        }
        if (outputs + work <= deviceBudget) {
            return new Placed(KernelPlacement.DEVICE, outputs + work, null);
        }
        if (gpu && outputs <= hostBudget()) {
            if (slab + work <= deviceBudget) {
                return new Placed(KernelPlacement.DEVICE_SLABS, slab + work, null);
            }
            if (work <= deviceBudget) {
                return new Placed(KernelPlacement.HOST, work, null);
            }
        } else if (!f64 && work <= deviceBudget) {
            return new Placed(KernelPlacement.DISK, work, null);
        }
        long smallest = gpu ? minWork : (f64 ? outputs : 0) + minWork;
        return new Placed(
                null,
                work,
                (f64 ? "the float64 output kernels (" + bytes(outputs) + ", held in memory only) and " : "")
                        + "the tiles need at least " + bytes(smallest) + " of device memory, more than its budget "
                        + bytes(deviceBudget) + ": raise --device-memory to at least " + bytes(smallest)
                        + (f64 ? ", or use float32 (accumulated on disk)" : ""));
    }

    private static long held(KernelPlacement p, long outputs, long slab) {
        return p == KernelPlacement.DEVICE ? outputs : p == KernelPlacement.DEVICE_SLABS ? slab : 0;
    }

    /**
     * The device budget: {@link NtkOptions#deviceMemory()} when given; on a GPU the free memory the engine reports
     * less a margin (a tenth of the total, at least 512 MiB); on the CPU, where the device is the host, half the
     * physical memory.
     */
    private long deviceBudget(ai.djl.Device device) {
        if (opts.deviceMemory() != null) {
            return opts.deviceMemory();
        }
        if (device.isGpu()) {
            try {
                java.lang.management.MemoryUsage u = ai.djl.util.cuda.CudaUtils.getGpuMemory(device);
                long total = u.getMax();
                long margin = Math.max(512L << 20, total / 10);
                return Math.max(1, total - u.getUsed() - margin);
            } catch (RuntimeException | LinkageError e) {
                return hostBudget(); // the engine cannot say: plan as on the host
            }
        }
        return hostBudget();
    }

    /**
     * Half the physical memory (the whole maximum heap when the memory cannot be read), read once: the JVM reads it
     * from /proc and the container's control files at every call, a fixed cost of every kernel.
     */
    private static long hostBudget() {
        return HostMemory.BUDGET;
    }

    private static final class HostMemory {
        static final long BUDGET = java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                        instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getTotalMemorySize() / 2
                : Runtime.getRuntime().maxMemory();
    }

    /** Bytes of the cached factors of all N2 column samples, or 0 when they are not cached (more than half the budget). */
    private long cacheBytes(NtkPlan plan, int n2) {
        long bytes = plan.bytesPerSample() * n2;
        return bytes <= opts.memoryBytes() / 2 ? bytes : 0;
    }

    private static volatile Runnable trim;

    /**
     * Returns the native heap's free pages to the OS (glibc {@code malloc_trim} through the JVM's
     * {@code System.trim_native_heap} diagnostic command, JDK 17.0.9+ on Linux; nothing elsewhere). libtorch frees a
     * tile pair's blocks into glibc's arenas, which keep them for the next pair; the tile loop returns them once,
     * when its last pair is done (trimming after each pair made every pair fault its pages in again).
     */
    static void trimNativeHeap() {
        Runnable r = trim;
        if (r == null) {
            r = () -> {};
            try {
                if (System.getProperty("os.name", "").startsWith("Linux")) {
                    javax.management.MBeanServer server =
                            java.lang.management.ManagementFactory.getPlatformMBeanServer();
                    javax.management.ObjectName name =
                            new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand");
                    boolean has = java.util.Arrays.stream(
                                    server.getMBeanInfo(name).getOperations())
                            .anyMatch(op -> op.getName().equals("systemTrimNativeHeap"));
                    if (has) {
                        r = () -> {
                            try {
                                server.invoke(name, "systemTrimNativeHeap", new Object[] {new String[0]}, new String[] {
                                    String[].class.getName()
                                });
                            } catch (javax.management.JMException e) {
                                // best effort: the memory is still accounted for in the estimate
                            }
                        };
                    }
                }
            } catch (javax.management.JMException | RuntimeException e) {
                // no diagnostic command: leave the native heap as it is
            }
            trim = r;
        }
        r.run();
    }

    private java.nio.file.Path spillDirOrTemp() {
        java.nio.file.Path d = opts.spillDir();
        return d != null ? d : java.nio.file.Path.of(System.getProperty("java.io.tmpdir"));
    }
}
