package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.ntk4j.kernel.factor.EngineOps;
import org.ntk4j.kernel.factor.HadamardFactor;
import org.ntk4j.kernel.factor.LayerFactor;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.util.NativeWork;

/**
 * Runs a {@link TileSchedule}: per row tile the factors of its samples, per tile pair the contraction (each layer's
 * rule, summed into Θ) and the placement of the blocks into the {@link KernelSink}s of the {@link Outputs}. The
 * factors of every column tile are cached when they fit half the memory budget; in a symmetric kernel a row tile
 * whose samples were a column tile takes those factors (the same inputs, so the same factors bit for bit). Each pair runs in an {@link OpScope}
 * that frees its intermediates and counts its engine operations; the phases are timed by a {@link PhaseClock}.
 */
final class TileLoop {
    private final Network net;
    private final NtkOptions opts;
    private final NtkPlan plan;
    private final Consumer<Double> progress;
    /** Computations shorter than this leave their freed native memory to the allocator (see {@link #run}). */
    static final long TRIM_AFTER_NANOS = 2_000_000_000L;

    private final long[] nanos = new long[3]; // factors, contraction, host
    private long opsMax = -1;
    private long opsSum;
    private long pairsCounted;

    /** When the computation began (System.nanoTime): the kernel's seconds include its plan and its output's allocation. */
    private final long start;

    TileLoop(Network net, NtkOptions opts, NtkPlan plan, Consumer<Double> progress, long start) {
        this.net = net;
        this.opts = opts;
        this.plan = plan;
        this.progress = progress;
        this.start = start;
    }

    /**
     * The block {@code b} of the kernel into {@code out}, from the inputs of its rows {@code xr} and columns {@code
     * xc}, on the grid of tiles of {@code tile} samples; {@code cacheAll}: keep every column tile's factors.
     */
    KernelResult run(
            TileSchedule.Block b, NDArray xr, NDArray xc, int tile, boolean cacheAll, Outputs out, long outputBytes) {
        int rowStart = b.rowStart();
        int colStart = b.colStart();
        int n1 = b.n1();
        boolean symmetric = b.symmetric();
        TileSchedule schedule = TileSchedule.of(b, tile);
        Map<Integer, NDManager> cacheManagers = new HashMap<>();
        Map<Integer, Map<String, LayerFactor>> cache = new HashMap<>();
        boolean done = false;
        long pairsDone = 0;
        try (NDManager root = xr.getManager().newSubManager();
                PhaseClock clock = new PhaseClock(xr.getDevice())) {
            Scalars scalars = new Scalars(root, xr);
            for (int k = 0; k < schedule.rowTiles(); k++) {
                int i = schedule.rowTile(k);
                int r0 = i * tile;
                int r1 = Math.min(n1, r0 + tile);
                try (NDManager mi = root.newSubManager()) {
                    Map<String, LayerFactor> fi;
                    if (symmetric && cache.containsKey(i)) {
                        fi = cache.get(i); // the same samples' factors, computed when they were a column tile
                    } else {
                        long tf = clock.now();
                        fi = factors(xr, r0 - rowStart, r1 - rowStart, mi);
                        nanos[0] += clock.now() - tf;
                    }
                    for (TileSchedule.Pair p : schedule.row(k)) {
                        NDManager mj = null;
                        Map<String, LayerFactor> fj;
                        if (symmetric && p.col() == i) {
                            fj = fi;
                        } else if (cache.containsKey(p.col())) {
                            fj = cache.get(p.col());
                        } else {
                            mj = root.newSubManager();
                            long tj = clock.now();
                            fj = factors(xc, p.c0() - colStart, p.c1() - colStart, mj);
                            nanos[0] += clock.now() - tj;
                            if (cacheAll) {
                                cache.put(p.col(), fj);
                                cacheManagers.put(p.col(), mj);
                                mj = null;
                            }
                        }
                        try (NativeWork.Section nw = NativeWork.section()) {
                            pair(p.below() ? fj : fi, p.below() ? fi : fj, p.at(), out, scalars, clock);
                        } finally {
                            if (mj != null) {
                                mj.close();
                            }
                        }
                        progress.accept((double) ++pairsDone / schedule.pairs());
                    }
                }
                try (NativeWork.Section nw = NativeWork.section()) {
                    out.rowsDone(r0 - rowStart, r1 - rowStart);
                }
            }
            // the freed intermediates go back to the OS once, at the end: each pair reuses what the previous one
            // freed, and trimming after every pair made the next one fault its pages in again. A short computation
            // (a probe, a benchmark's repetition) leaves them to the allocator for the next one: trimming after it
            // made the next fault every page in again (tens of ms on a kernel of 1,000 samples)
            if (System.nanoTime() - start >= TRIM_AFTER_NANOS) {
                Ntk.trimNativeHeap();
            }
            KernelResult r = finish(out, clock, xr, schedule, outputBytes, symmetric);
            done = true;
            return r;
        } finally {
            cacheManagers.values().forEach(NDManager::close);
            if (!done) {
                out.abandon();
            }
        }
    }

    /** The kernels of {@code out} taken from their sinks (the host phase), with the timings and the loop's counters. */
    private KernelResult finish(
            Outputs out, PhaseClock clock, NDArray xr, TileSchedule schedule, long outputBytes, boolean symmetric) {
        long th = clock.now();
        KernelMatrix total = out.finishTotal();
        Map<String, KernelMatrix> layers = ordered(out.finishLayers());
        Map<String, KernelMatrix> factorKernels = out.finishFactors();
        nanos[2] += clock.now() - th;
        Map<String, Double> timings = new LinkedHashMap<>();
        timings.put("factors", nanos[0] / 1e9);
        timings.put("contraction", nanos[1] / 1e9);
        timings.put("host", nanos[2] / 1e9);
        TileStats stats = new TileStats(
                out.placement(),
                xr.getDevice().toString(),
                schedule.tile(),
                schedule.pairs(),
                opsMax,
                pairsCounted == 0 ? 0 : (double) opsSum / pairsCounted,
                out.host().bytes(),
                outputBytes);
        return new KernelResult(
                total, layers, plan, (System.nanoTime() - start) / 1e9, symmetric, timings, factorKernels, stats);
    }

    /**
     * One tile pair: each layer's block contract(left, right), summed (weighted) into Θ's block in place, then every
     * block placed. Per-layer blocks are kept until placed; without them each layer's block is freed once summed.
     */
    private void pair(
            Map<String, LayerFactor> left,
            Map<String, LayerFactor> right,
            Placement at,
            Outputs out,
            Scalars scalars,
            PhaseClock clock) {
        Mode mode = opts.mode();
        boolean perLayer = opts.perLayer();
        boolean factorKernels = opts.factorKernels() && !opts.parts();
        double scale = opts.meanNormalised() && mode == Mode.TRACE ? 1.0 / net.outputs() : 1.0;
        try (OpScope scope = new OpScope()) {
            long tc = clock.now();
            List<Map.Entry<KernelSink, NDArray>> placed = new ArrayList<>();
            NDArray sum = null;
            boolean shared = false; // sum is also placed as a layer's block: never changed in place
            for (Map.Entry<String, LayerFactor> e : left.entrySet()) {
                String key = e.getKey();
                LayerFactor lf = e.getValue();
                NDArray block = lf.contract(right.get(key), mode);
                if (perLayer) {
                    placed.add(Map.entry(out.layer(key), scale == 1.0 ? block : block.mul(scalars.of(scale))));
                }
                if (factorKernels && lf instanceof HadamardFactor hf) {
                    placed.add(Map.entry(out.factor(key + ".forward"), hf.forwardGram(right.get(key))));
                    placed.add(Map.entry(out.factor(key + ".backward"), hf.backwardGram(right.get(key))));
                }
                double w = layerWeight(key);
                NDArray weighted = w == 1.0 ? block : block.mul(scalars.of(w));
                if (sum == null) {
                    sum = weighted;
                    shared = perLayer && scale == 1.0 && weighted == block;
                } else if (shared) {
                    sum = sum.add(weighted);
                    shared = false;
                } else {
                    EngineOps.addInPlace(sum, weighted);
                    if (!perLayer) {
                        block.close(); // summed: freed now rather than when the pair ends
                    }
                }
                if (weighted != block && weighted != sum) {
                    weighted.close();
                }
            }
            if (scale != 1.0 && sum != null) {
                EngineOps.mulInPlace(sum, scalars.of(scale));
            }
            long th = clock.now();
            nanos[1] += th - tc;
            for (Map.Entry<KernelSink, NDArray> e : placed) {
                e.getKey().add(e.getValue(), at);
            }
            if (sum != null) {
                out.total().add(sum, at);
            }
            nanos[2] += clock.now() - th;
            long ops = scope.operations();
            if (ops >= 0) {
                opsMax = Math.max(opsMax, ops);
                opsSum += ops;
                pairsCounted++;
            }
        }
    }

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

    private Map<String, LayerFactor> factors(NDArray x, int r0, int r1, NDManager m) {
        NDArray xt = x.get(new NDIndex("{}:{}", r0, r1));
        xt.attach(m);
        if (xt.getDataType() != net.dataType()) {
            xt = xt.toType(net.dataType(), false);
        }
        return TangentFactors.compute(net, xt, plan, opts.parts(), opts.mode() == Mode.TRACE, m);
    }

    /** The layer kernels in the network's forward order (structured and Jacobian layers may come mixed). */
    private Map<String, KernelMatrix> ordered(Map<String, KernelMatrix> layers) {
        Map<String, KernelMatrix> ordered = new LinkedHashMap<>();
        for (Module l : net.parameterLayers()) {
            if (opts.parts()) {
                for (Param p : l.ownParams()) {
                    if (layers.containsKey(p.name())) {
                        ordered.put(p.name(), layers.get(p.name()));
                    }
                }
            } else if (layers.containsKey(l.name())) {
                ordered.put(l.name(), layers.get(l.name()));
            }
        }
        return ordered;
    }

    /** 0-d scalars in the network's type on the compute device, made once per computation and kept in its manager. */
    private final class Scalars {
        private final NDArray like;
        private final Map<Double, NDArray> made = new HashMap<>();

        Scalars(NDManager root, NDArray x) {
            this.like = EngineOps.keep(root.zeros(new Shape(), net.dataType(), x.getDevice()));
        }

        NDArray of(double v) {
            return made.computeIfAbsent(v, k -> EngineOps.scalar(like, k));
        }
    }
}
