package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.ntk4j.UserException;
import org.ntk4j.model.Conv2d;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.model.TangentLayer;

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
 * (notes/anchors.md §1.2).
 */
public final class Ntk {
    private final Network net;
    private Mode mode = Mode.TRACE;
    private Method method = Method.AUTO;
    private boolean perLayer;
    private boolean parts;
    private boolean float64;
    private boolean mean;
    private long memoryBytes = 1L << 30;
    private Consumer<Double> progress = p -> { };
    private java.nio.file.Path spillDir;
    private Map<String, Double> layerWeights = Map.of();
    private java.util.Set<Module> pairLayers = java.util.Set.of();
    private Boolean convPairs;
    private boolean factorKernels;
    private boolean forceDisk;

    private Ntk(Network net) {
        this.net = net;
    }

    public static Ntk of(Network net) {
        return new Ntk(net);
    }

    public Ntk mode(Mode m) {
        this.mode = m;
        return this;
    }

    public Ntk method(Method m) {
        this.method = m;
        return this;
    }

    /** Also return Θ_l for each parameterised layer. */
    public Ntk perLayer() {
        this.perLayer = true;
        return this;
    }

    /** Return Θ per parameter (weight and bias parts separately) instead of per layer. */
    public Ntk parameterParts() {
        this.perLayer = true;
        this.parts = true;
        return this;
    }

    /** Accumulate on the host in float64 (the device computes in the network's data type). */
    public Ntk float64() {
        this.float64 = true;
        return this;
    }

    /** Average over the traced output axis (divide a TRACE kernel by O), for neural-tangents parity. */
    public Ntk meanNormalised() {
        this.mean = true;
        return this;
    }

    /** Memory budget for the tiles' factors and blocks. */
    public Ntk memory(long bytes) {
        this.memoryBytes = bytes;
        return this;
    }

    /**
     * Directory for kernels too large for the Java heap: when the kernels of a computation need more
     * than half the maximum heap they are accumulated in float32 files mapped from here (default: the
     * system temporary directory).
     */
    public Ntk spillDir(java.nio.file.Path dir) {
        this.spillDir = dir;
        return this;
    }

    /** Accumulate every kernel in float32 files mapped from {@code dir}, whatever their size. */
    public Ntk onDisk(java.nio.file.Path dir) {
        this.spillDir = dir;
        this.forceDisk = true;
        return this;
    }

    /**
     * Weights η_l per layer name: the total becomes the learning-rate-weighted NTK Σ_l η_l Θ_l, the
     * kernel that governs gradient descent with per-layer learning rates (seed 001 §2, seed 004 §2);
     * layers not named keep weight 1. Per-layer kernels are returned unweighted.
     */
    public Ntk layerWeights(Map<String, Double> weights) {
        this.layerWeights = Map.copyOf(weights);
        return this;
    }

    /**
     * Forces the contraction of structured conv layers: true = position pairs, false = per-sample
     * rows, null (default) = the cheaper by FLOP count ({@link ConvFactor}).
     */
    public Ntk convPairs(Boolean pairs) {
        this.convPairs = pairs;
        return this;
    }

    /**
     * Also return, for each dense layer (structured path), its forward kernel A1 A2ᵀ and backward
     * kernel Σ_o Δ1_o Δ2_oᵀ (seed 000 Eq. 7: Θ_l = forward ⊙ backward per output pair).
     */
    public Ntk factorKernels() {
        this.factorKernels = true;
        return this;
    }

    /** Receives the fraction done (0..1) after each tile pair. */
    public Ntk onProgress(Consumer<Double> listener) {
        this.progress = listener;
        return this;
    }

    /**
     * The method per layer, with FLOP estimates. JACOBIAN: every layer from per-sample backward
     * passes. STRUCTURED: every layer that has tangent factors (dense, conv, eval batch-norm) from
     * one batched probe pass, the rest from per-sample passes. AUTO: when every layer has tangent
     * factors, all structured (the batched pass replaces N·O per-sample backward passes); otherwise
     * the per-sample passes are paid anyway and already yield the rows of conv layers, so convs take
     * them, while dense layers stay structured (their Hadamard factorisation avoids forming rows).
     */
    public Map<String, String> plan(int n1, int n2) {
        Map<String, String> out = new LinkedHashMap<>();
        int o = net.outputs();
        int contracted = mode == Mode.FULL ? o * o : o;
        boolean allTangent = net.parameterLayers().stream().allMatch(l -> l instanceof TangentLayer);
        for (Module l : net.parameterLayers()) {
            long p = l.ownParams().stream().filter(Param::trainable).mapToLong(Param::size).sum();
            double gram = 2.0 * n1 * n2 * p * contracted;
            String line;
            if (!(l instanceof TangentLayer t)) {
                line = String.format("jacobian (%.3g GFLOP; no tangent factors for %s)", gram / 1e9, l.getClass().getSimpleName());
            } else {
                double str;
                String how = "";
                if (l instanceof Conv2d c) {
                    boolean pairs = convPairs != null ? convPairs : ConvFactor.pairsCheaper(c, o, n1, n2, mode);
                    str = ConvFactor.flops(c, o, n1, n2, mode, pairs);
                    how = pairs ? " pairs" : " rows";
                } else if (l instanceof org.ntk4j.model.BatchNorm2d) {
                    str = gram;
                } else {
                    long in = t.weight().value().getShape().get(1);
                    long outW = t.weight().value().getShape().get(0);
                    str = 2.0 * n1 * n2 * (in + (long) contracted * outW);
                }
                boolean structured = method == Method.STRUCTURED
                        || (method == Method.AUTO && (allTangent || !(l instanceof Conv2d)));
                String why = method != Method.AUTO ? "as asked"
                        : allTangent ? "every layer has tangent factors"
                        : structured ? "Hadamard factorisation" : "per-sample passes needed anyway for other layers";
                line = String.format("%s (structured%s %.3g GFLOP, jacobian rows %.3g GFLOP; %s)",
                        structured ? "structured" + how : "jacobian", how, str / 1e9, gram / 1e9, why);
            }
            out.put(l.name(), line);
        }
        return out;
    }

    /** Θ(X1, X1); only the upper triangle of tiles is computed. */
    public KernelResult compute(NDArray x1) {
        return compute(x1, null);
    }

    /** Θ(X1, X2) with X1 (N1, input...) and X2 (N2, input...); x2 null means X2 = X1. */
    public KernelResult compute(NDArray x1, NDArray x2) {
        long start = System.nanoTime();
        boolean symmetric = x2 == null;
        checkInput(x1, "x1");
        if (!symmetric) {
            checkInput(x2, "x2");
        }
        int n1 = (int) x1.getShape().get(0);
        int n2 = symmetric ? n1 : (int) x2.getShape().get(0);
        Map<String, String> methods = plan(n1, n2);
        List<Module> structured = new ArrayList<>();
        List<Module> jacobian = new ArrayList<>();
        java.util.Set<Module> pairLayerSet = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Module l : net.parameterLayers()) {
            (methods.get(l.name()).startsWith("structured") ? structured : jacobian).add(l);
            if (methods.get(l.name()).startsWith("structured pairs")) {
                pairLayerSet.add(l);
            }
        }
        this.pairLayers = pairLayerSet;
        int o = net.outputs();
        int tile = tileSize(Math.max(n1, n2), structured, jacobian);
        int matrices = 1 + (perLayer ? (parts ? net.trainableParams().size() : net.parameterLayers().size()) : 0);
        long hostBytes = matrices * KernelMatrix.bytes(n1, n2, mode, o, float64);
        long entries = KernelMatrix.bytes(n1, n2, mode, o, false) / 4;
        java.nio.file.Path spill = forceDisk || hostBytes > Runtime.getRuntime().maxMemory() / 2 || entries > Integer.MAX_VALUE - 8
                ? (spillDir != null ? spillDir : java.nio.file.Path.of(System.getProperty("java.io.tmpdir"))) : null;
        if (spill != null && float64) {
            throw new UserException("the kernels need " + (hostBytes >> 20) + " MiB, more than half the Java heap ("
                    + (Runtime.getRuntime().maxMemory() >> 20) + " MiB): float64 accumulation is heap-only; use float32"
                    + " (streamed to disk) or raise -Xmx in JAVA_OPTS");
        }
        KernelMatrix total = new KernelMatrix(n1, n2, mode, o, float64, spill);
        Map<String, KernelMatrix> layers = new LinkedHashMap<>();
        Map<String, KernelMatrix> factors = new LinkedHashMap<>();
        double scale = mean && mode == Mode.TRACE ? 1.0 / o : 1.0;

        int t1 = (n1 + tile - 1) / tile;
        int t2 = (n2 + tile - 1) / tile;
        long pairs = symmetric ? (long) t1 * (t1 + 1) / 2 : (long) t1 * t2;
        long done = 0;
        long[] nanos = new long[3]; // factors, contraction, host
        NDArray xb = symmetric ? x1 : x2;
        Map<Integer, NDManager> cacheManagers = new HashMap<>();
        Map<Integer, Map<String, LayerFactor>> cache = new HashMap<>();
        boolean cacheAll = factorBytesPerSample(structured, jacobian) * n2 <= memoryBytes / 2;
        try (NDManager root = x1.getManager().newSubManager()) {
            for (int i = 0; i < t1; i++) {
                int r0 = i * tile;
                int r1 = Math.min(n1, r0 + tile);
                try (NDManager mi = root.newSubManager()) {
                    long tf = System.nanoTime();
                    Map<String, LayerFactor> fi = factors(x1, r0, r1, structured, jacobian, mi);
                    nanos[0] += System.nanoTime() - tf;
                    for (int j = symmetric ? i : 0; j < t2; j++) {
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
                            fj = factors(xb, c0, c1, structured, jacobian, mj);
                            nanos[0] += System.nanoTime() - tj;
                            if (cacheAll) {
                                cache.put(j, fj);
                                cacheManagers.put(j, mj);
                                mj = null;
                            }
                        }
                        try (NDManager bm = root.newSubManager()) {
                            NDArray sum = null;
                            for (Map.Entry<String, LayerFactor> e : fi.entrySet()) {
                                long tc = System.nanoTime();
                                NDArray block = e.getValue().contract(fj.get(e.getKey()), mode);
                                block.attach(bm);
                                nanos[1] += System.nanoTime() - tc;
                                if (perLayer) {
                                    KernelMatrix km = layers.computeIfAbsent(e.getKey(),
                                            k -> new KernelMatrix(n1, n2, mode, o, float64, spill));
                                    long th = System.nanoTime();
                                    addBlock(km, block, r0, c0, r1 - r0, c1 - c0, symmetric && j != i, scale);
                                    nanos[2] += System.nanoTime() - th;
                                }
                                if (factorKernels && !parts && e.getValue() instanceof DenseFactor df) {
                                    DenseFactor dj = (DenseFactor) fj.get(e.getKey());
                                    KernelMatrix fw = factors.computeIfAbsent(e.getKey() + ".forward",
                                            k -> new KernelMatrix(n1, n2, Mode.TRACE, o, float64, spill));
                                    KernelMatrix bw = factors.computeIfAbsent(e.getKey() + ".backward",
                                            k -> new KernelMatrix(n1, n2, Mode.TRACE, o, float64, spill));
                                    NDArray fb = df.forwardGram(dj);
                                    NDArray bb = df.backwardGram(dj);
                                    fb.attach(bm);
                                    bb.attach(bm);
                                    addBlock(fw, fb, r0, c0, r1 - r0, c1 - c0, symmetric && j != i, 1.0);
                                    addBlock(bw, bb, r0, c0, r1 - r0, c1 - c0, symmetric && j != i, 1.0);
                                }
                                double w = layerWeight(e.getKey());
                                NDArray weighted = w == 1.0 ? block : block.mul(w);
                                sum = sum == null ? weighted : sum.add(weighted);
                            }
                            long th = System.nanoTime();
                            addBlock(total, sum, r0, c0, r1 - r0, c1 - c0, symmetric && j != i, scale);
                            nanos[2] += System.nanoTime() - th;
                        } finally {
                            if (mj != null) {
                                mj.close();
                            }
                        }
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
        return new KernelResult(total, ordered, methods, (System.nanoTime() - start) / 1e9, symmetric, timings, factors);
    }

    /** η_l of a layer (or of the layer a parameter belongs to). */
    private double layerWeight(String key) {
        Double w = layerWeights.get(key);
        if (w == null && parts) {
            int dot = key.lastIndexOf('.');
            w = dot > 0 ? layerWeights.get(key.substring(0, dot)) : null;
        }
        return w == null ? 1.0 : w;
    }

    private Map<String, LayerFactor> factors(NDArray x, int r0, int r1, List<Module> structured,
            List<Module> jacobian, NDManager m) {
        NDArray xt = x.get(new NDIndex("{}:{}", r0, r1));
        xt.attach(m);
        if (xt.getDataType() != net.dataType()) {
            xt = xt.toType(net.dataType(), false);
        }
        return TangentFactors.compute(net, xt, structured, jacobian, pairLayers, parts, m);
    }

    private static void addBlock(KernelMatrix km, NDArray block, int r0, int c0, int br, int bc,
            boolean mirror, double scale) {
        NDArray b = (scale == 1.0 ? block : block.mul(scale)).reshape(br, -1);
        // copied in row slices of at most 256 MiB as float64: DJL's toByteBuffer fails beyond 2 GiB
        int rows = (int) Math.max(1, Math.min(br, (256L << 20) / (8L * Math.max(1, b.getShape().get(1)))));
        for (int a0 = 0; a0 < br; a0 += rows) {
            int a1 = Math.min(br, a0 + rows);
            try (NDArray slice = rows == br ? null : b.get(new ai.djl.ndarray.index.NDIndex("{}:{}", a0, a1))) {
                NDArray part = slice == null ? b : slice;
                NDArray d = part.toType(DataType.FLOAT64, false);
                double[] v = d.toDoubleArray();
                if (d != part) {
                    d.close();
                }
                km.addBlock(r0 + a0, c0, a1 - a0, bc, v, false);
                if (mirror) {
                    km.addBlock(r0 + a0, c0, a1 - a0, bc, v, true);
                }
            }
        }
    }

    private void checkInput(NDArray x, String what) {
        var s = x.getShape();
        var in = net.inputShape();
        if (s.dimension() != in.dimension() + 1 || !s.slice(1).equals(in)) {
            throw new UserException(what + " has shape " + s + "; model " + net.spec().name
                    + " expects (N, " + in.toString().replaceAll("[()]", "") + ")");
        }
    }

    /** Bytes per sample of the factors a tile keeps for its contractions. */
    private long factorBytesPerSample(List<Module> structured, List<Module> jacobian) {
        int o = net.outputs();
        long bytes = net.dataType().getNumOfBytes();
        long per = 0;
        for (Module l : structured) {
            if (l instanceof Conv2d c) {
                per += ConvFactor.elementsPerSample(c, o, pairLayers.contains(l));
                continue;
            }
            if (l instanceof org.ntk4j.model.BatchNorm2d bn) {
                per += (long) o * 2 * bn.gamma().size(); // γ and β rows
                continue;
            }
            TangentLayer t = (TangentLayer) l;
            per += t.weight().value().getShape().get(1) + (long) o * t.weight().value().getShape().get(0);
        }
        for (Module l : jacobian) {
            per += (long) o * l.ownParams().stream().filter(Param::trainable).mapToLong(Param::size).sum();
        }
        return per * bytes;
    }

    /**
     * Bytes per sample held only while a tile's probe pass runs: the forward graph's saved
     * activations, the zero leaves and their gradients (about three copies of each tapped layer's
     * output) and the patches of ROWS conv layers.
     */
    private long transientBytesPerSample(List<Module> structured) {
        long per = 0;
        for (Module l : structured) {
            if (l instanceof Conv2d c) {
                per += ConvFactor.transientPerSample(c, pairLayers.contains(l)) + 3L * c.outChannels() * c.outputPositions();
            } else if (l instanceof org.ntk4j.model.BatchNorm2d bn) {
                per += 3L * bn.gamma().size() * bn.positions();
            } else {
                per += 3L * ((TangentLayer) l).weight().value().getShape().get(0);
            }
        }
        return per * net.dataType().getNumOfBytes();
    }

    /** Largest tile whose factors (two tiles) and kernel blocks fit the memory budget. */
    private int tileSize(int n, List<Module> structured, List<Module> jacobian) {
        long perSample = factorBytesPerSample(structured, jacobian);
        long transientPerSample = transientBytesPerSample(structured);
        int o = net.outputs();
        long inner = mode == Mode.TRACE ? 1 : mode == Mode.DIAGONAL ? o : (long) o * o;
        // blocks: one per layer when per-layer, plus the sum and the float64 host copy
        long blocks = (perLayer ? net.parameterLayers().size() : 1) + 3;
        int t = Math.min(n, 4096);
        while (t > 1) {
            long need = 2 * perSample * t + transientPerSample * t + blocks * inner * t * (long) t * 8;
            if (need <= memoryBytes) {
                break;
            }
            t /= 2;
        }
        if (t == 1 && 2 * perSample + transientPerSample > memoryBytes) {
            throw new UserException("memory budget " + (memoryBytes >> 20) + " MiB is too small: one sample's tangent factors need "
                    + (2 * perSample + transientPerSample >> 20) + " MiB; raise --memory");
        }
        return Math.max(1, t);
    }
}
