package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.ntk4j.UserException;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;

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

    /** Accumulate on the host in float64 (the device computes in the network's data type). */
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

    /** Θ(X1, X1); only the upper triangle of tiles is computed. */
    public KernelResult compute(NDArray x1) {
        return compute(x1, null);
    }

    /** Θ(X1, X2) with X1 (N1, input...) and X2 (N2, input...); x2 null means X2 = X1. */
    public KernelResult compute(NDArray x1, NDArray x2) {
        boolean symmetric = x2 == null;
        checkInput(x1, "x1");
        if (!symmetric) {
            checkInput(x2, "x2");
        }
        int n1 = (int) x1.getShape().get(0);
        int n2 = symmetric ? n1 : (int) x2.getShape().get(0);
        NtkPlan plan = plan(n1, n2);
        MemoryEstimate est = estimate(plan, n1, n2);
        est.check();
        java.nio.file.Path spill = est.outputsOnDisk() ? spillDirOrTemp() : null;
        return tiles(x1, symmetric ? x1 : x2, 0, 0, n1, n2, symmetric, est.tile(), plan, spill);
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
        NtkPlan plan = plan(n1, n2);
        return tiles(rows, cols, rowStart, colStart, n1, n2, symmetric, tile, plan, null);
    }

    private static void checkOnGrid(String what, int start, int len, int n, int tile) {
        int end = start + len;
        if (len < 1 || start < 0 || end > n || start % tile != 0 || (end != n && end % tile != 0)) {
            throw new IllegalArgumentException(
                    what + " " + start + ":" + end + " is not on the grid of tiles of " + tile + " samples over " + n);
        }
    }

    /**
     * The tile loop: rows {@code [rowStart, rowStart + |xr|)} × columns {@code [colStart, colStart + |xc|)} of the
     * N1 × N2 kernel, on the grid of tiles of {@code tile} samples from index 0. Each tile pair (i, j) with i ≤ j of
     * a symmetric kernel is computed once and written where it falls in the block, directly and mirrored; a pair
     * below the diagonal whose mirror image is outside the block is computed from the mirror pair's factors
     * (contract(f_j, f_i), transposed), the same values the whole kernel mirrors there.
     */
    private KernelResult tiles(
            NDArray xr,
            NDArray xc,
            int rowStart,
            int colStart,
            int n1,
            int n2,
            boolean symmetric,
            int tile,
            NtkPlan plan,
            java.nio.file.Path spill) {
        long start = System.nanoTime();
        int br = (int) xr.getShape().get(0);
        int bc = (int) xc.getShape().get(0);
        NtkOptions opts = this.opts;
        Mode mode = opts.mode();
        boolean perLayer = opts.perLayer();
        boolean parts = opts.parts();
        boolean float64 = opts.float64();
        int o = net.outputs();
        KernelMatrix total = new KernelMatrix(br, bc, mode, o, float64, spill);
        Map<String, KernelMatrix> layers = new LinkedHashMap<>();
        Map<String, KernelMatrix> factors = new LinkedHashMap<>();
        double scale = opts.meanNormalised() && mode == Mode.TRACE ? 1.0 / o : 1.0;

        int i0 = rowStart / tile;
        int i1 = (rowStart + br + tile - 1) / tile;
        int j0 = colStart / tile;
        int j1 = (colStart + bc + tile - 1) / tile;
        // in a symmetric kernel: is tile pair (i, j) of the block computed as the mirror of (j, i) instead?
        java.util.function.BiPredicate<Integer, Integer> mirrorInBlock =
                (i, j) -> symmetric && j >= i0 && j < i1 && i >= j0 && i < j1;
        long pairs = 0;
        for (int i = i0; i < i1; i++) {
            for (int j = j0; j < j1; j++) {
                if (!symmetric || i <= j || !mirrorInBlock.test(i, j)) {
                    pairs++;
                }
            }
        }
        long done = 0;
        long[] nanos = new long[3]; // factors, contraction, host
        Map<Integer, NDManager> cacheManagers = new HashMap<>();
        Map<Integer, Map<String, LayerFactor>> cache = new HashMap<>();
        boolean cacheAll = cacheBytes(plan, bc) > 0;
        try (NDManager root = xr.getManager().newSubManager()) {
            for (int i = i0; i < i1; i++) {
                int r0 = i * tile;
                int r1 = Math.min(n1, r0 + tile);
                try (NDManager mi = root.newSubManager()) {
                    long tf = System.nanoTime();
                    Map<String, LayerFactor> fi = factors(xr, r0 - rowStart, r1 - rowStart, plan, mi);
                    nanos[0] += System.nanoTime() - tf;
                    for (int j = j0; j < j1; j++) {
                        boolean below = symmetric && i > j;
                        if (below && mirrorInBlock.test(i, j)) {
                            continue; // written as the mirror image of pair (j, i)
                        }
                        int c0 = j * tile;
                        int c1 = Math.min(n2, c0 + tile);
                        Map<String, LayerFactor> fj;
                        NDManager mj = null;
                        if (symmetric && j == i) {
                            fj = fi;
                        } else if (cache.containsKey(j)) {
                            fj = cache.get(j);
                        } else {
                            mj = root.newSubManager();
                            long tj = System.nanoTime();
                            fj = factors(xc, c0 - colStart, c1 - colStart, plan, mj);
                            nanos[0] += System.nanoTime() - tj;
                            if (cacheAll) {
                                cache.put(j, fj);
                                cacheManagers.put(j, mj);
                                mj = null;
                            }
                        }
                        // the pair computed: (i, j), or below the diagonal (j, i), whose transpose is (i, j)
                        Map<String, LayerFactor> left = below ? fj : fi;
                        Map<String, LayerFactor> right = below ? fi : fj;
                        int lr = below ? c1 - c0 : r1 - r0;
                        int lc = below ? r1 - r0 : c1 - c0;
                        Place at = below
                                ? new Place(false, 0, 0, true, c0 - colStart, r0 - rowStart)
                                : new Place(
                                        true,
                                        r0 - rowStart,
                                        c0 - colStart,
                                        symmetric && j != i && mirrorInBlock.test(i, j),
                                        r0 - colStart,
                                        c0 - rowStart);
                        try (NDManager bm = root.newSubManager();
                                org.ntk4j.util.NativeWork.Section nw = org.ntk4j.util.NativeWork.section()) {
                            NDArray sum = null;
                            for (Map.Entry<String, LayerFactor> e : left.entrySet()) {
                                long tc = System.nanoTime();
                                NDArray block = e.getValue().contract(right.get(e.getKey()), mode);
                                block.attach(bm);
                                nanos[1] += System.nanoTime() - tc;
                                if (perLayer) {
                                    KernelMatrix km = layers.computeIfAbsent(
                                            e.getKey(), k -> new KernelMatrix(br, bc, mode, o, float64, spill));
                                    long th = System.nanoTime();
                                    addBlock(km, block, lr, lc, at, scale);
                                    nanos[2] += System.nanoTime() - th;
                                }
                                if (opts.factorKernels() && !parts && e.getValue() instanceof HadamardFactor df) {
                                    LayerFactor dj = right.get(e.getKey());
                                    KernelMatrix fw = factors.computeIfAbsent(
                                            e.getKey() + ".forward",
                                            k -> new KernelMatrix(br, bc, Mode.TRACE, o, float64, spill));
                                    KernelMatrix bw = factors.computeIfAbsent(
                                            e.getKey() + ".backward",
                                            k -> new KernelMatrix(br, bc, Mode.TRACE, o, float64, spill));
                                    NDArray fb = df.forwardGram(dj);
                                    NDArray bb = df.backwardGram(dj);
                                    fb.attach(bm);
                                    bb.attach(bm);
                                    addBlock(fw, fb, lr, lc, at, 1.0);
                                    addBlock(bw, bb, lr, lc, at, 1.0);
                                }
                                double w = layerWeight(e.getKey());
                                NDArray weighted = w == 1.0 ? block : block.mul(w);
                                sum = sum == null ? weighted : sum.add(weighted);
                            }
                            long th = System.nanoTime();
                            addBlock(total, sum, lr, lc, at, scale);
                            nanos[2] += System.nanoTime() - th;
                        } finally {
                            if (mj != null) {
                                mj.close();
                            }
                        }
                        trimNativeHeap();
                        done++;
                        progress.accept((double) done / pairs);
                    }
                }
            }
        } finally {
            cacheManagers.values().forEach(NDManager::close);
        }
        // keep the forward order of layers even when structured and jacobian layers were mixed
        Map<String, KernelMatrix> ordered = new LinkedHashMap<>();
        for (Module l : net.parameterLayers()) {
            if (parts) {
                for (Param p : l.ownParams()) {
                    if (layers.containsKey(p.name())) {
                        ordered.put(p.name(), layers.get(p.name()));
                    }
                }
            } else if (layers.containsKey(l.name())) {
                ordered.put(l.name(), layers.get(l.name()));
            }
        }
        Map<String, Double> timings = new LinkedHashMap<>();
        timings.put("factors", nanos[0] / 1e9);
        timings.put("contraction", nanos[1] / 1e9);
        timings.put("host", nanos[2] / 1e9);
        return new KernelResult(total, ordered, plan, (System.nanoTime() - start) / 1e9, symmetric, timings, factors);
    }

    /**
     * Where a computed tile pair block B (rows a, columns b) goes in the output: directly, B[a][b] at (dr + a,
     * dc + b); mirrored, B[a][b] at (mc + b, mr + a) (the inner O×O axes transposed too).
     */
    private record Place(boolean direct, int dr, int dc, boolean mirror, int mr, int mc) {}

    /** η_l of a layer (or of the layer a parameter belongs to). */
    private double layerWeight(String key) {
        Map<String, Double> layerWeights = opts.layerWeights();
        Double w = layerWeights.get(key);
        if (w == null && opts.parts()) {
            int dot = key.lastIndexOf('.');
            w = dot > 0 ? layerWeights.get(key.substring(0, dot)) : null;
        }
        return w == null ? 1.0 : w;
    }

    private Map<String, LayerFactor> factors(NDArray x, int r0, int r1, NtkPlan plan, NDManager m) {
        NDArray xt = x.get(new NDIndex("{}:{}", r0, r1));
        xt.attach(m);
        if (xt.getDataType() != net.dataType()) {
            xt = xt.toType(net.dataType(), false);
        }
        return TangentFactors.compute(net, xt, plan, opts.parts(), m);
    }

    private static void addBlock(KernelMatrix km, NDArray block, int br, int bc, Place at, double scale) {
        NDArray scaled = scale == 1.0 ? block : block.mul(scale);
        NDArray b = scaled.reshape(br, -1);
        // read in place through a direct buffer on the native block (no float64 copy, no host array: issue #11),
        // in row slices of at most 256 MiB because DJL's buffers are int-indexed
        long rowBytes = (long) b.getDataType().getNumOfBytes()
                * Math.max(1, b.getShape().get(1));
        int rows = (int) Math.max(1, Math.min(br, (256L << 20) / rowBytes));
        try {
            for (int a0 = 0; a0 < br; a0 += rows) {
                int a1 = Math.min(br, a0 + rows);
                try (NDArray slice = rows == br ? null : b.get(new NDIndex("{}:{}", a0, a1));
                        NDArray host = cpuCopy(slice == null ? b : slice)) {
                    NDArray part = host != null ? host : slice == null ? b : slice;
                    java.nio.ByteBuffer buf = part.toByteBuffer(true);
                    if (part.getDataType() == DataType.FLOAT64) {
                        java.nio.DoubleBuffer v = buf.asDoubleBuffer();
                        if (at.direct()) {
                            km.addBlock(at.dr() + a0, at.dc(), a1 - a0, bc, v::get, false);
                        }
                        if (at.mirror()) {
                            km.addBlock(at.mr() + a0, at.mc(), a1 - a0, bc, v::get, true);
                        }
                    } else if (part.getDataType() == DataType.FLOAT32) {
                        java.nio.FloatBuffer v = buf.asFloatBuffer();
                        if (at.direct()) {
                            km.addBlock(at.dr() + a0, at.dc(), a1 - a0, bc, v::get, false);
                        }
                        if (at.mirror()) {
                            km.addBlock(at.mr() + a0, at.mc(), a1 - a0, bc, v::get, true);
                        }
                    } else {
                        throw new IllegalStateException("kernel block of dtype " + part.getDataType());
                    }
                }
            }
        } finally {
            if (b != scaled && b != block) {
                b.close();
            }
            if (scaled != block) {
                scaled.close();
            }
        }
    }

    /** A contiguous CPU copy of {@code a} when it is on another device (null when it is on the CPU already). */
    private static NDArray cpuCopy(NDArray a) {
        return a.getDevice().equals(ai.djl.Device.cpu()) ? null : a.toDevice(ai.djl.Device.cpu(), true);
    }

    private void checkInput(NDArray x, String what) {
        var s = x.getShape();
        var in = net.inputShape();
        if (s.dimension() != in.dimension() + 1 || !s.slice(1).equals(in)) {
            throw new UserException(what + " has shape " + s + "; model "
                    + net.spec().name() + " expects (N, " + in.toString().replaceAll("[()]", "") + ")");
        }
    }

    /**
     * What a computation of Θ(X1, X2) holds at its peak, estimated before any work: the output kernels
     * (total, per layer, factor kernels) on the heap unless they go to disk, and the tiles' working set
     * (factors of two tiles, the probe pass's transient factors, the native blocks and their float64
     * host copies). The memory budget of {@link #memory(long)} bounds the tiles; a caller that bounds
     * the whole computation (the kernel job) passes what is left after the output kernels.
     *
     * @param outputBytes bytes of all output kernels
     * @param outputsOnDisk whether they are accumulated in float32 files in the spill directory
     * @param workingBytes the tiles' working set at the chosen tile size
     * @param minWorkingBytes the working set with one-sample tiles (the least that works)
     * @param tile samples per tile, 0 when not even one sample's factors fit
     * @param budget the tiles' memory budget
     * @param float64 float64 accumulation (heap only)
     */
    public record MemoryEstimate(
            long outputBytes,
            boolean outputsOnDisk,
            long workingBytes,
            long minWorkingBytes,
            int tile,
            long budget,
            boolean float64) {
        /** Peak bytes: the output kernels held in memory and the tiles' working set. */
        public long peakBytes() {
            return heldOutputBytes() + workingBytes;
        }

        /** Bytes of output kernels held in memory (0 when they go to disk). */
        public long heldOutputBytes() {
            return outputsOnDisk ? 0 : outputBytes;
        }

        /** Throws a one-line {@link UserException} when even one-sample tiles exceed the budget. */
        public void check() {
            if (tile == 0) {
                throw new UserException(
                        "memory budget " + bytes(budget) + " is too small for the tiles: it needs at least "
                                + bytes(minWorkingBytes) + " (one-sample tiles); raise --memory");
            }
        }
    }

    /** A size with a sensible unit: 512 B, 3.2 KiB, 14.0 MiB, 9.31 GiB. */
    public static String bytes(long b) {
        if (b < 1024) {
            return b + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = b;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(
                java.util.Locale.ROOT, v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, units[u]);
    }

    /** The memory estimate of Θ(X1, X2) with N1 and N2 samples (N2 = N1 for X1×X1), before any work. */
    public MemoryEstimate estimate(int n1, int n2) {
        return estimate(plan(n1, n2), n1, n2);
    }

    /**
     * The tiles' part of {@link #estimate(int, int)} for Θ(X1, X2), the output kernels left out (held elsewhere, as
     * the shards of a sharded kernel hold theirs): the tile size and working set the budget allows for the whole
     * N1 × N2 kernel, even one far larger than this machine could hold.
     */
    public MemoryEstimate tileEstimate(int n1, int n2) {
        return estimate(plan(n1, n2), n1, n2, false);
    }

    private MemoryEstimate estimate(NtkPlan plan, int n1, int n2) {
        return estimate(plan, n1, n2, true);
    }

    private MemoryEstimate estimate(NtkPlan plan, int n1, int n2, boolean withOutputs) {
        Mode mode = opts.mode();
        int o = net.outputs();
        boolean float64 = opts.float64();
        int denseFactors = opts.factorKernels() && !opts.parts()
                ? 2
                        * (int) plan.layers().stream()
                                .filter(l -> l.structured() && "dense".equals(l.ruleName()))
                                .count()
                : 0;
        int layerMatrices = opts.perLayer()
                ? (opts.parts()
                        ? net.trainableParams().size()
                        : net.parameterLayers().size())
                : 0;
        long hostBytes = withOutputs
                ? (1 + layerMatrices) * KernelMatrix.bytes(n1, n2, mode, o, float64)
                        + denseFactors * KernelMatrix.bytes(n1, n2, Mode.TRACE, o, float64)
                : 0;
        long entries = withOutputs ? KernelMatrix.bytes(n1, n2, mode, o, false) / 4 : 0;
        boolean onDisk = withOutputs
                && (opts.onDisk()
                        || hostBytes > Runtime.getRuntime().maxMemory() / 2
                        || entries > Integer.MAX_VALUE - 8);
        if (onDisk && float64) {
            throw new UserException("the kernels need " + bytes(hostBytes)
                    + (opts.onDisk()
                            ? ""
                            : ", more than half the Java heap ("
                                    + bytes(Runtime.getRuntime().maxMemory()) + ")")
                    + ": float64 accumulation is heap-only; use float32"
                    + " (streamed to disk) or raise -Xmx in JAVA_OPTS");
        }
        long budget = opts.memoryBytes();
        long tileBudget = budget;
        int n = Math.max(n1, n2);
        long perSample = plan.bytesPerSample();
        long transientPerSample = plan.transientBytesPerSample();
        long inner = mode == Mode.TRACE ? 1 : mode == Mode.DIAGONAL ? o : (long) o * o;
        // bytes per kernel entry of a tile pair (t·t·inner), alive until the pair is added to the host: per layer the
        // contraction's intermediates (output Gram, broadcast input Gram, weight part, bias part, their sum) and the
        // running sum in the network's dtype, and the total's scaled copy; the blocks are read in place (no host copy).
        // Counted at 16 per layer, not 6: measured peak native memory of tile pairs (issue #11, mlp-quickstart full,
        // float32, tiles of 31-125 samples) was 140-210 bytes per entry for 3 layers, the libtorch intermediates and
        // the
        // blocks glibc keeps after they are freed (trimmed after every tile pair, see trimNativeHeap)
        long nb = net.dataType().getNumOfBytes();
        int layers = Math.max(plan.layers().size(), layerMatrices);
        long perEntry = layers * 16L * nb + 2 * nb + denseFactors * 2L * nb;
        // the factors of every column tile when they are cached (compute's cacheAll), else those of two tiles
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
        return new MemoryEstimate(hostBytes, onDisk, t == 0 ? min : need.applyAsLong(t), min, t, budget, float64);
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
     * tile pair's blocks into glibc's arenas, which keep them: without this the resident set grows by the freed
     * blocks of earlier pairs (issue #11, full mode: n 500 at --memory 192m 400 → 374 MiB, n 1000 at 1g 1283 → 1092 MiB).
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
