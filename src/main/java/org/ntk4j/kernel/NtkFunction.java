package org.ntk4j.kernel;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.GradientCollector;
import ai.djl.training.dataset.Batch;
import ai.djl.training.dataset.Dataset;
import ai.djl.translate.TranslateException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.ntk4j.UserException;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;

/**
 * The empirical NTK of a network as a function of its inputs (and, optionally, its parameters), returning engine
 * arrays on the compute device, the way neural-tangents' {@code empirical_ntk_fn} and torch.func users hold it:
 *
 * <pre>{@code
 * NtkFunction f = Ntk.function(block, new Shape(1, 28, 28), Ntk.options().float64(true).build());
 * NDArray k = f.apply(x1, x2);            // Θ(x1, x2), (N1, N2)
 * NDArray kv = f.ntkVp(x1, x2, v);        // Θ(x1, x2) v without forming Θ
 * NDArray y = f.linearize().forward(x, theta);   // f(x; θ0) + J(x)(θ − θ0)
 * }</pre>
 *
 * Θ[(i,o),(j,p)] = Σ_θ ∂f_o(x_i)/∂θ · ∂f_p(x_j)/∂θ (Jacot, Gabriel &amp; Hongler 2018, Neural Tangent Kernel, Eq. 2,
 * empirical form). The kernel's shape follows {@link NtkOptions#mode()}: (N1, N2) for TRACE, (N1, N2, O) for DIAGONAL,
 * (N1, N2, O, O) for FULL. Normalisation: a TRACE kernel is the SUM over the O outputs, Σ_o Θ[(i,o),(j,o)]
 * (torch.func's convention); with {@link NtkOptions#meanNormalised()} it is divided by O, the average
 * neural-tangents' {@code empirical_ntk_fn(trace_axes=(-1,))} returns (Novak et al. 2020, Neural Tangents).
 *
 * <p>Parameters are the network's trainable parameters in forward order ({@link #parameters()}). The passes that need
 * gradients zero the parameters' gradients before and after; run them where no training step is between its backward
 * pass and its update. BatchNorm layers run in inference mode.
 */
public final class NtkFunction {
    private final Network net;
    private final NtkOptions opts;

    NtkFunction(Network net, NtkOptions opts) {
        this.net = net;
        this.opts = opts;
    }

    /** The network this function measures. */
    public Network network() {
        return net;
    }

    /** The options of every kernel this function computes. */
    public NtkOptions options() {
        return opts;
    }

    /** O, the network's outputs per sample. */
    public int outputs() {
        return net.outputs();
    }

    /** Θ(x1, x1), see {@link #apply(NDArray, NDArray)}. */
    public NDArray apply(NDArray x1) {
        return apply(x1, null);
    }

    /**
     * Θ(x1, x2) at the network's current parameters, with x1 (N1, sample...) and x2 (N2, sample...); x2 null means
     * x2 = x1 (only the upper triangle of tiles is computed). The result is on x1's device, attached to x1's manager:
     * (N1, N2) TRACE (summed over outputs unless mean-normalised), (N1, N2, O) DIAGONAL, (N1, N2, O, O) FULL; float64
     * when {@link NtkOptions#float64()} is set, else float32.
     */
    public NDArray apply(NDArray x1, NDArray x2) {
        checkSamples(x1, "x1");
        if (x2 != null) {
            checkSamples(x2, "x2");
        }
        checkStructured(
                (int) x1.getShape().get(0),
                x2 == null ? (int) x1.getShape().get(0) : (int) x2.getShape().get(0));
        KernelResult r = Ntk.of(net, opts).compute(x1, x2);
        try {
            return toEngine(r.total(), x1.getManager(), x1.getDevice());
        } finally {
            r.release();
        }
    }

    /**
     * Θ(x1, x2) at the parameter values {@code params} (one array per {@link #parameters()} entry, same order and
     * shapes): they are written into the network, the kernel computed, and the network's own values restored (also
     * when the computation fails).
     */
    public NDArray apply(NDArray x1, NDArray x2, NDList params) {
        return withParameters(params, () -> apply(x1, x2));
    }

    /**
     * Θ(x1, x2)·v without forming Θ: u = J(x2)ᵀ v by one backward pass, then J(x1) u by a second backward pass through
     * the first (the double-backward trick: J(x1) u is the gradient with respect to w of ⟨J(x1)ᵀ w, u⟩). v and the
     * result by mode: TRACE v (N2) → (N1) = Σ_j Θ_tr[i,j] v_j (one pair of passes per output; divided by O when
     * mean-normalised); DIAGONAL v (N2, O) → (N1, O) = Σ_j Θ[i,j,o] v[j,o] (one pair per output); FULL v (N2, O) →
     * (N1, O) = Σ_{j,p} Θ[i,j,o,p] v[j,p] (one pair). With layer weights η_l set it falls back to forming Θ. Each pair leaves some native memory behind (see {@link Linearized}).
     */
    public NDArray ntkVp(NDArray x1, NDArray x2, NDArray v) {
        checkSamples(x1, "x1");
        NDArray xs2 = x2 == null ? x1 : x2;
        if (x2 != null) {
            checkSamples(x2, "x2");
        }
        long n2 = xs2.getShape().get(0);
        int o = net.outputs();
        Mode mode = opts.mode();
        Shape want = mode == Mode.TRACE ? new Shape(n2) : new Shape(n2, o);
        if (!v.getShape().equals(want)) {
            throw new UserException("v has shape " + v.getShape() + "; Θ·v in " + mode + " mode expects " + want);
        }
        if (!opts.layerWeights().isEmpty()) {
            return viaKernel(x1, x2, v);
        }
        NDManager out = x1.getManager();
        DataType type = net.dataType();
        NDArray vt = v.toType(type, false).toDevice(x1.getDevice(), false);
        if (mode == Mode.FULL) {
            NDList u = vjp(xs2, vt);
            NDArray r = jvp(x1, u).toType(resultType(), false);
            u.close();
            r.attach(out);
            return r;
        }
        NDArray result = null;
        try (NDManager m = x1.getManager().newSubManager()) {
            List<NDArray> cols = new ArrayList<>();
            for (int k = 0; k < o; k++) {
                NDArray seed = m.zeros(new Shape(n2, o), type, x1.getDevice());
                NDArray vk = mode == Mode.TRACE ? vt : vt.get(new NDIndex(":, {}", k));
                seed.set(new NDIndex(":, {}", k), vk);
                NDList u = vjp(xs2, seed);
                NDArray jk = jvp(x1, u);
                u.close();
                jk.attach(m);
                cols.add(jk.get(new NDIndex(":, {}", k)));
            }
            NDArray stacked = ai.djl.ndarray.NDArrays.stack(new NDList(cols));
            result = mode == Mode.TRACE ? stacked.sum(new int[] {0}) : stacked.transpose();
            if (mode == Mode.TRACE && opts.meanNormalised()) {
                result = result.div(m.full(new Shape(), (float) o, result.getDataType(), result.getDevice()));
            }
            result = result.toType(resultType(), true);
            result.attach(out);
        }
        return result;
    }

    /**
     * The linearised network at the current parameters θ0 (copied now), f_lin(x; θ) = f(x; θ0) + J(x)(θ − θ0) (Lee et
     * al. 2019, Wide Neural Networks of Any Depth Evolve as Linear Models Under Gradient Descent, Eq. 3).
     */
    public Linearized linearize() {
        return new Linearized(this, parameters());
    }

    /** Copies of the trainable parameters' current values, in the order {@link #apply(NDArray, NDArray, NDList)} takes. */
    public NDList parameters() {
        NDList out = new NDList();
        for (Param p : net.trainableParams()) {
            NDArray c = p.value().duplicate();
            c.setName(p.name());
            out.add(c);
        }
        return out;
    }

    /** The names of the trainable parameters, in {@link #parameters()} order. */
    public List<String> parameterNames() {
        return net.trainableParams().stream().map(Param::name).toList();
    }

    /**
     * Every sample of a DJL {@link Dataset} as one array (N, sample...), in the dataset's order, on {@code manager}:
     * the first array of each batch, concatenated.
     */
    public static NDArray batch(Dataset data, NDManager manager) {
        List<NDArray> parts = new ArrayList<>();
        try {
            for (Batch b : data.getData(manager)) {
                NDArray x = b.getData().head().duplicate();
                x.attach(manager);
                parts.add(x);
                b.close();
            }
        } catch (IOException | TranslateException e) {
            throw new UserException("cannot read the dataset: " + e.getMessage(), e);
        }
        if (parts.isEmpty()) {
            throw new UserException("the dataset has no samples; the kernel needs at least one");
        }
        return parts.size() == 1 ? parts.get(0) : ai.djl.ndarray.NDArrays.concat(new NDList(parts));
    }

    /** f(x) at the current parameters, detached, on x's manager. */
    NDArray value(NDArray x) {
        checkSamples(x, "x");
        try (NDManager m = x.getManager().newSubManager()) {
            NDArray f = net.forward(x, Forward.eval(m)).stopGradient().duplicate();
            f.attach(x.getManager());
            return f;
        }
    }

    /** Runs {@code body} with the parameters set to {@code params}, then restores the network's own values. */
    <T> T withParameters(NDList params, Supplier<T> body) {
        List<Param> ps = net.trainableParams();
        if (params.size() != ps.size()) {
            throw new UserException("params has " + params.size() + " arrays; the network has " + ps.size()
                    + " trainable parameters (" + String.join(", ", parameterNames()) + ")");
        }
        for (int k = 0; k < ps.size(); k++) {
            Shape want = ps.get(k).value().getShape();
            if (!params.get(k).getShape().equals(want)) {
                throw new UserException("params[" + k + "] (" + ps.get(k).name() + ") has shape "
                        + params.get(k).getShape() + "; expected " + want);
            }
        }
        NDList saved = new NDList();
        for (Param p : ps) {
            saved.add(p.value().duplicate());
        }
        try {
            write(ps, params);
            return body.get();
        } finally {
            write(ps, saved);
            saved.close();
        }
    }

    /** Copies {@code values} into the parameters' own arrays, in the engine, with autograd off (they are leaves). */
    private static void write(List<Param> ps, NDList values) {
        boolean grad = JniUtils.isGradMode();
        JniUtils.setGradMode(false);
        try {
            for (int k = 0; k < ps.size(); k++) {
                NDArray dst = ps.get(k).value();
                NDArray src = values.get(k);
                dst.set(new NDIndex("..."), src.toType(dst.getDataType(), false).toDevice(dst.getDevice(), false));
            }
        } finally {
            JniUtils.setGradMode(grad);
        }
    }

    /**
     * J(x)ᵀ seed: the gradient of Σ_{i,o} seed[i,o] f_o(x_i) with respect to each trainable parameter, one backward
     * pass; detached copies in {@link #parameters()} order.
     */
    NDList vjp(NDArray x, NDArray seed) {
        List<Param> ps = trainable();
        NDList out = new NDList();
        try (NDManager m = x.getManager().newSubManager()) {
            zeroGradients(ps);
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                NDArray f = net.forward(x, Forward.eval(m));
                NDArray s = f.mul(seed).sum();
                JniUtils.backward((PtNDArray) s, (PtNDArray) m.ones(s.getShape(), s.getDataType()), false, false);
            }
            for (Param p : ps) {
                NDArray g = p.value().getGradient().duplicate();
                g.attach(x.getManager());
                out.add(g);
            }
            zeroGradients(ps);
        }
        return out;
    }

    /**
     * J(x) u, (N, O), for a tangent u in {@link #parameters()} order, by double backward on a line through θ0: the
     * parameters become θ(t) = θ0 + t u with a scalar leaf t = 0, and with a zero leaf w (N, O) the derivative g(w) =
     * ∂⟨f(x; θ(t)), w⟩/∂t = ⟨J(x)ᵀ w, u⟩ is recorded with create_graph; its gradient with respect to w is J(x) u (exact:
     * g is linear in w). The parameters' own leaves take no gradient (a create_graph gradient on a parameter would hold
     * the parameter and the graph in a reference cycle that DJL cannot break); they are restored afterwards, bit for
     * bit. Attached to x's manager.
     */
    NDArray jvp(NDArray x, NDList u) {
        List<Param> ps = trainable();
        List<NDArray> saved = new ArrayList<>();
        // the scope closes what the pass attaches elsewhere (ops on parameters attach to the block's manager)
        try (NDManager m = x.getManager().newSubManager();
                NDScope scope = new NDScope()) {
            NDArray t = m.zeros(new Shape(), net.dataType(), x.getDevice());
            t.setRequiresGradient(true);
            NDArray w;
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                for (int k = 0; k < ps.size(); k++) {
                    NDArray p = ps.get(k).value();
                    NDArray keep = detachedCopy(p);
                    keep.attach(m);
                    saved.add(keep);
                    NDArray line = keep.add(t.mul(u.get(k).toType(p.getDataType(), false)));
                    ((PtNDArray) p).intern(line); // the block's array now holds θ0 + t u
                }
                NDArray f = net.forward(x, Forward.eval(m));
                w = m.zeros(f.getShape(), f.getDataType(), f.getDevice());
                w.setRequiresGradient(true);
                NDArray s = f.mul(w).sum();
                JniUtils.backward((PtNDArray) s, (PtNDArray) m.ones(s.getShape(), s.getDataType()), true, true);
                JniUtils.zeroGrad((PtNDArray) w); // w's gradient is now f(x); J(x) u is to land on zero
                NDArray g = t.getGradient();
                JniUtils.backward((PtNDArray) g, (PtNDArray) m.ones(g.getShape(), g.getDataType()), false, false);
            } finally {
                for (int k = 0; k < saved.size(); k++) {
                    NDArray p = ps.get(k).value();
                    ((PtNDArray) p).intern(detachedCopy(saved.get(k)));
                    p.setRequiresGradient(true);
                }
            }
            NDArray r = w.getGradient().duplicate();
            r.attach(x.getManager());
            NDScope.unregister(r);
            return r;
        }
    }

    /** A copy of {@code a} made with autograd off: a leaf with no gradient. */
    private static NDArray detachedCopy(NDArray a) {
        boolean grad = JniUtils.isGradMode();
        JniUtils.setGradMode(false);
        try {
            return a.duplicate();
        } finally {
            JniUtils.setGradMode(grad);
        }
    }

    private List<Param> trainable() {
        List<Param> ps = net.trainableParams();
        if (ps.isEmpty()) {
            throw new UserException("network " + net.spec().name() + " has no trainable parameters; its NTK is zero");
        }
        // the structured kernel path turns parameter gradients off; these passes read them
        for (Param p : ps) {
            if (!p.value().hasGradient()) {
                p.value().setRequiresGradient(true);
            }
        }
        return ps;
    }

    private static void zeroGradients(List<Param> ps) {
        for (Param p : ps) {
            if (p.value().hasGradient()) {
                JniUtils.zeroGrad((PtNDArray) p.value());
            }
        }
    }

    private NDArray viaKernel(NDArray x1, NDArray x2, NDArray v) {
        try (NDManager m = x1.getManager().newSubManager()) {
            NDArray k = apply(x1, x2);
            k.attach(m);
            NDArray vt = v.toType(k.getDataType(), false).toDevice(k.getDevice(), false);
            long n1 = k.getShape().get(0);
            long n2 = k.getShape().get(1);
            int o = net.outputs();
            NDArray r;
            switch (opts.mode()) {
                case TRACE:
                    r = k.matMul(vt.reshape(n2, 1)).reshape(n1);
                    break;
                case DIAGONAL:
                    r = k.mul(vt.expandDims(0)).sum(new int[] {1});
                    break;
                default:
                    r = k.transpose(0, 2, 1, 3)
                            .reshape(n1 * o, n2 * o)
                            .matMul(vt.reshape(n2 * o, 1))
                            .reshape(n1, o);
            }
            r.attach(x1.getManager());
            return r;
        }
    }

    private DataType resultType() {
        return opts.float64() ? DataType.FLOAT64 : DataType.FLOAT32;
    }

    /** The kernel as an engine array on {@code device}, owned by {@code manager} (a copy; the matrix is released). */
    private NDArray toEngine(KernelMatrix k, NDManager manager, ai.djl.Device device) {
        NDArray a = k.array();
        NDArray out;
        if (a != null) {
            out = a.toDevice(device, true);
            if (out == a) {
                out = a.duplicate();
            }
        } else {
            Shape s = new Shape(k.shape());
            out = k.isFloat64()
                    ? manager.create(k.toDoubleArray(), s).toDevice(device, true)
                    : manager.create(k.toFloatArray(), s).toDevice(device, true);
            out = out.duplicate(); // arrays made from Java arrays live in a Java buffer
        }
        out.attach(manager);
        return out;
    }

    /** One sentence when x has no samples or the wrong per-sample shape. */
    void checkSamples(NDArray x, String what) {
        Shape s = x.getShape();
        Shape in = net.inputShape();
        String expected = "(N, " + in.toString().replaceAll("[()]", "") + ")";
        if (s.dimension() != in.dimension() + 1 || !s.slice(1).equals(in)) {
            throw new UserException(what + " has shape " + s + "; " + net.spec().name() + " expects " + expected
                    + ": a batch of samples of shape " + in);
        }
        if (s.get(0) == 0) {
            throw new UserException(what + " has no samples (shape " + s + "); the kernel needs at least one");
        }
    }

    /** With STRUCTURED forced, every parameterised layer must have a tangent rule; else one sentence naming it. */
    private void checkStructured(int n1, int n2) {
        if (opts.method() != Method.STRUCTURED) {
            return;
        }
        NtkPlan.of(net, opts, n1, n2).requireStructured();
    }
}
