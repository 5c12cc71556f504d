package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.ntk4j.UserException;
import org.ntk4j.kernel.factor.EngineOps;
import org.ntk4j.kernel.factor.JacobianFactor;
import org.ntk4j.kernel.factor.LayerFactor;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.kernel.factor.RankOneRows;
import org.ntk4j.kernel.sketch.LayerProjection;
import org.ntk4j.kernel.sketch.SketchKind;
import org.ntk4j.kernel.sketch.Streams;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.model.TangentLayer;

/**
 * Sketched tangent features: an N × k matrix S whose Gram S Sᵀ is an unbiased estimate of the traced empirical NTK,
 *
 * <pre>K[i, j] = Σ_o Σ_θ ∂f_o(x_i)/∂θ · ∂f_o(x_j)/∂θ = ⟨J_i, J_j⟩,   S[i, :] = vec(J_i)ᵀ P,   E[S Sᵀ] = K,</pre>
 *
 * where J_i (O × P) is sample i's Jacobian and P (O·P × k) a seeded random projection with E[P Pᵀ] = I, one block
 * per layer (Jacot, Gabriel &amp; Hongler 2018, "Neural Tangent Kernel", Eq. 2, traced over the outputs; the
 * projection of per-sample gradients is that of Park et al. 2023, "TRAK: Attributing Model Behavior at Scale",
 * §3.1). The features are the traced kernel's (summed over outputs, as {@link Ntk} with {@link Mode#TRACE}), so the
 * output axis is projected with the parameters: k columns in all, not k per output.
 *
 * <pre>{@code
 * NDArray s = TangentSketch.of(network).features(x, 1024, SketchKind.KHATRI_RAO, seed); // (N, 1024)
 * }</pre>
 *
 * Each tile of samples takes the tangent rules' probe pass ({@link TangentFactors}): a dense layer hands over its
 * inputs A and output gradients D, whose per-sample gradients are rank one and are projected without forming them
 * ({@link LayerProjection#projectRankOne}); a network with any other structured layer (a convolution) takes the
 * per-sample Jacobian path for every layer, its rows projected block by block. Both paths give the same features for
 * the same seed, to rounding. The projection depends on the seed, k, the kind and the layer only; features are
 * computed in the network's data type on its device and reach the caller tile by tile.
 */
public final class TangentSketch {
    /**
     * The most entries of one layer's dense Gaussian projection (R·C·k) that a sketch draws: 2³¹, about 10 s of
     * drawing per tile and 8 GiB in float32 were it kept, and beyond this the Khatri–Rao kind is the one to use.
     */
    static final long GAUSSIAN_DRAWS = 1L << 31;

    private final Network net;
    private NtkOptions opts;

    private TangentSketch(Network net, NtkOptions opts) {
        this.net = net;
        this.opts = opts.toBuilder().mode(Mode.TRACE).build();
    }

    public static TangentSketch of(Network net) {
        return new TangentSketch(net, NtkOptions.defaults());
    }

    /** With the memory budget, tile and method of {@code options} (the mode is always the trace). */
    public static TangentSketch of(Network net, NtkOptions options) {
        return new TangentSketch(net, options);
    }

    /** Samples per tile (default: the most the memory budget allows, at most 1024). */
    public TangentSketch tile(int samples) {
        opts = opts.toBuilder().tile(samples).build();
        return this;
    }

    /** {@link Method#JACOBIAN}: the per-sample gradient path for every layer, the reference of the rank-one one. */
    public TangentSketch method(Method m) {
        opts = opts.toBuilder().method(m).build();
        return this;
    }

    /** Receives each tile of features: rows [rowStart, rowStart + n) of S, closed after the call. */
    @FunctionalInterface
    public interface TileSink {
        void accept(int rowStart, NDArray features);
    }

    /** S (N, k) for the inputs {@code x} (N, input...), in {@code x}'s manager. */
    public NDArray features(NDArray x, int k, SketchKind kind, long seed) {
        NDList tiles = new NDList();
        NDManager into = x.getManager();
        features(x, k, kind, seed, (start, f) -> {
            NDArray kept = f.duplicate();
            kept.attach(into);
            NDScope.unregister(kept);
            tiles.add(kept);
        });
        NDArray s = tiles.size() == 1 ? tiles.get(0) : NDArrays.concat(tiles);
        if (tiles.size() > 1) {
            tiles.close();
        }
        return s;
    }

    /** S tile by tile for the inputs {@code x} (N, input...), each tile handed to {@code sink}. */
    public void features(NDArray x, int k, SketchKind kind, long seed, TileSink sink) {
        if (k < 1) {
            throw new UserException("sketch dimension k must be at least 1 (got " + k + ")");
        }
        Shape in = net.inputShape();
        if (x.getShape().dimension() != in.dimension() + 1
                || !x.getShape().slice(1).equals(in)) {
            throw new UserException("inputs have shape " + x.getShape() + "; the model expects (N, "
                    + in.toString().replaceAll("[()]", "") + ")");
        }
        int n = (int) x.getShape().get(0);
        NtkPlan plan = plan(n);
        int tile = tile(plan, n, k);
        List<Module> layers = net.parameterLayers();
        try (NDManager keep = x.getManager().newSubManager()) {
            Projector projector = new Projector(kind, k, new Streams(seed), keep, layers);
            for (int s = 0; s < n; s += tile) {
                int e = Math.min(n, s + tile);
                try (NDManager m = keep.newSubManager();
                        NDScope scope = new NDScope()) {
                    NDArray xt = x.get(new NDIndex("{}:{}", s, e));
                    Map<String, LayerFactor> factors = TangentFactors.compute(net, xt, plan, false, m);
                    NDArray f = null;
                    for (Map.Entry<String, LayerFactor> fe : factors.entrySet()) {
                        NDArray p = projector.project(fe.getKey(), fe.getValue());
                        f = f == null ? p : f.addi(p);
                    }
                    sink.accept(s, f);
                }
            }
        }
    }

    /** The plan: the rules' unless a structured layer is not dense, or the Jacobian method is asked for. */
    NtkPlan plan(int n) {
        NtkPlan plan = NtkPlan.of(net, opts, n, n);
        boolean rankOne = opts.method() != Method.JACOBIAN
                && plan.structured().stream().allMatch(l -> "dense".equals(l.ruleName()));
        return rankOne
                ? plan
                : NtkPlan.of(net, opts.toBuilder().method(Method.JACOBIAN).build(), n, n);
    }

    /**
     * Samples per tile: the fixed tile, else the most (at most 1024, by halves) whose factors, probe pass and
     * per-sample Jacobian rows fit the memory budget.
     */
    private int tile(NtkPlan plan, int n, int k) {
        if (opts.tile() != null) {
            return Math.min(n, opts.tile());
        }
        long nb = net.dataType().getNumOfBytes();
        long perSample = 2 * plan.bytesPerSample() + plan.transientBytesPerSample() + 4L * k * nb;
        int t = Math.min(n, 1024);
        while (t > 1 && perSample * t > opts.memoryBytes()) {
            t /= 2;
        }
        return t;
    }

    /** The projections of one sketch, drawn on first use per layer and kept for every tile. */
    private final class Projector {
        private final SketchKind kind;
        private final int k;
        private final Streams streams;
        private final NDManager keep;
        private final List<Module> layers;
        private final Map<String, Integer> index = new HashMap<>();
        private final Map<String, LayerProjection> projections = new HashMap<>();

        Projector(SketchKind kind, int k, Streams streams, NDManager keep, List<Module> layers) {
            this.kind = kind;
            this.k = k;
            this.streams = streams;
            this.keep = keep;
            this.layers = layers;
            for (int l = 0; l < layers.size(); l++) {
                index.put(layers.get(l).name(), l);
            }
        }

        /** The features (n, k) of one layer's factor on a tile. */
        NDArray project(String name, LayerFactor factor) {
            Integer l = index.get(name);
            if (l == null) {
                throw new IllegalStateException("no parameter layer named " + name);
            }
            Module layer = layers.get(l);
            if (factor instanceof RankOneRows r && layer instanceof TangentLayer t) {
                NDArray d = r.outputGradients();
                NDArray a = r.inputs();
                long n = d.getShape().get(0);
                NDArray dr = d.reshape(n, d.getShape().get(1) * d.getShape().get(2));
                NDArray aw = a.mul(EngineOps.scalar(a, t.weightScale()));
                if (t.bias() != null) {
                    NDArray cb = a.getManager()
                            .ones(new Shape(n, 1), a.getDataType(), a.getDevice())
                            .muli(EngineOps.scalar(a, t.biasScale()));
                    aw = aw.concat(cb, 1);
                }
                return projection(
                                l, new Shape(dr.getShape().get(1), aw.getShape().get(1)), dr.getDataType())
                        .projectRankOne(dr, aw);
            }
            if (factor instanceof JacobianFactor j) {
                NDArray rows = j.rows();
                NDArray m = denseRows(rows, layer, net.outputs());
                if (m == null) {
                    m = rows; // (n, O, P_l)
                }
                return projection(l, m.getShape().slice(1), m.getDataType()).project(m);
            }
            throw new IllegalStateException(
                    layer.name() + ": a " + factor.getClass().getSimpleName() + " has no per-sample rows to sketch");
        }

        private LayerProjection projection(int l, Shape rc, DataType type) {
            double draws = (double) rc.get(0) * rc.get(1) * k;
            if (kind == SketchKind.GAUSSIAN && draws > GAUSSIAN_DRAWS) {
                throw new UserException(String.format(
                        java.util.Locale.ROOT,
                        "the gaussian sketch of layer %s draws %d×%d×%d = %.2g random numbers per tile, more than"
                                + " %.2g: use the khatri-rao sketch (kr), which draws (%d + %d)×%d once",
                        layers.get(l).name(),
                        rc.get(0),
                        rc.get(1),
                        k,
                        draws,
                        (double) GAUSSIAN_DRAWS,
                        rc.get(0),
                        rc.get(1),
                        k));
            }
            LayerProjection p = projections.computeIfAbsent(
                    layers.get(l).name(), name -> LayerProjection.of(kind, k, streams, l, rc, keep, type));
            if (p.rows() != rc.get(0) || p.cols() != rc.get(1)) {
                throw new IllegalStateException(
                        layers.get(l).name() + ": rows " + rc + " after " + p.rows() + "×" + p.cols());
            }
            return p;
        }
    }

    /**
     * A dense layer's Jacobian rows (n, O, out·in [+ out]) in the rank-one layout (n, O·out, in [+ 1]): row (o, u)
     * holds ∂f_o/∂W[u, :] then ∂f_o/∂b[u], as {@link RankOneRows} factors them; null for any other layer.
     */
    private static NDArray denseRows(NDArray rows, Module layer, int outputs) {
        if (!(layer instanceof TangentLayer t) || t.weight().value().getShape().dimension() != 2) {
            return null;
        }
        long n = rows.getShape().get(0);
        Shape ws = t.weight().value().getShape();
        long out = ws.get(0);
        long in = ws.get(1);
        long offset = 0;
        long wAt = -1;
        long bAt = -1;
        for (Param p : layer.ownParams()) {
            if (!p.trainable()) {
                continue;
            }
            if (p == t.weight()) {
                wAt = offset;
            } else if (p == t.bias()) {
                bAt = offset;
            } else {
                return null;
            }
            offset += p.value().size();
        }
        NDArray w = rows.get(new NDIndex(":, :, {}:{}", wAt, wAt + out * in)).reshape(n, outputs, out, in);
        if (bAt >= 0) {
            NDArray b = rows.get(new NDIndex(":, :, {}:{}", bAt, bAt + out)).reshape(n, outputs, out, 1);
            w = w.concat(b, 3);
        }
        return w.reshape(n, outputs * out, w.getShape().get(3));
    }
}
