package org.ntk4j.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import java.util.ArrayList;
import java.util.List;
import org.ntk4j.model.Param;
import org.ntk4j.spec.OptimizerKind;
import org.ntk4j.spec.TrainSpec;

/**
 * SGD (momentum, Nesterov, decoupled-from-nothing L2 weight decay as in torch.optim.SGD) and Adam,
 * applied in place with grad mode off, then the gradients are zeroed (JniUtils.zeroGrad; DJL 0.35's
 * zeroGradients() walks every array under the system manager, leaks two wrappers per array and never clears NaN
 * gradients). Per-parameter learning-rate multipliers give per-layer learning rates.
 *
 * <p>SGD (PyTorch convention): g ← ∇θ + λθ; v ← μv + g; θ ← θ − η·(Nesterov ? g + μv : v).
 * Adam: m ← β1 m + (1−β1) g; v ← β2 v + (1−β2) g²; θ ← θ − η m̂/(√v̂ + ε).
 *
 * <p>SLO, the speed-limited optimisation of "Feature learning as alignment: a structural property of gradient
 * descent in non-linear neural networks" (anonymous, §5.2 and App. I): per layer l (all parameters of one
 * module form one group, see {@link #setGroup}) with gradient G_l (+ λθ with weight decay),
 * θ_l ← θ_l − η·C_l·G_l/(ε + ‖G_l‖_F), C_l the layer's speed (its learning-rate multiplier, TrainSpec.layerLr)
 * and ε = TrainSpec.eps. The paper prints "+" (an ascent step): corrected here to descent (erratum); its
 * experiments use the relaxed ε = 0.1 (ε = 0 is the exact normalised step).
 *
 * <p>{@link #fuse}: SGD and Adam update every parameter as one flat vector, as torch.optim's fused and
 * {@code _foreach} paths do (DJL 0.35 binds neither): the parameters, the momentum and the Adam moments become
 * views of three contiguous buffers, the gradients are concatenated once per step, and each term of the update is
 * one engine call for the whole network instead of one per parameter. Every term is element-wise, so the weights
 * are bit-identical to the per-parameter update's.
 */
public final class UpdateRule {
    private final TrainSpec spec;
    private final List<Param> params;
    private final List<NDArray> state1 = new ArrayList<>();
    private final List<NDArray> state2 = new ArrayList<>();
    private final double[] lrMultiplier;
    private final double[] speed;
    private final int[] group;
    private long steps;
    private final NDManager manager;
    private boolean fuse;
    /** The flat buffers of a fused update (parameters, first and second moments) and the parameter views. */
    private NDArray flatW;

    private NDArray flat1;
    private NDArray flat2;
    private NDArray[] views;
    /** While a step's leaves are lent ({@link #beginStep}): the parameters' own arrays, which the update writes. */
    private NDArray[] owned;

    public UpdateRule(TrainSpec spec, List<Param> params, NDManager m) {
        this.spec = spec;
        this.manager = m;
        this.params = params;
        this.lrMultiplier = new double[params.size()];
        java.util.Arrays.fill(lrMultiplier, 1.0);
        this.speed = new double[params.size()];
        java.util.Arrays.fill(speed, 1.0);
        this.group = new int[params.size()];
        for (int k = 0; k < group.length; k++) {
            group[k] = k;
        }
        for (Param p : params) {
            NDArray z1 = m.zeros(
                    p.value().getShape(), p.value().getDataType(), p.value().getDevice());
            state1.add(z1);
            if (spec.optimizer() == OptimizerKind.ADAM) {
                state2.add(m.zeros(
                        p.value().getShape(), p.value().getDataType(), p.value().getDevice()));
            }
        }
    }

    /** Multiplies the learning rate of parameter k (per-layer learning rates). */
    public void setLrMultiplier(int k, double multiplier) {
        lrMultiplier[k] = multiplier;
    }

    /**
     * Sets the adaptive speed factor of parameter k (SLO only; multiplies its learning-rate multiplier): the
     * per-step C_l of {@link AdaptiveSpeeds}; 1 by default.
     */
    public void setSpeed(int k, double c) {
        speed[k] = c;
    }

    /**
     * Puts parameter k in group {@code g} (SLO normalises each group's gradient as one vector: the trainer
     * puts all parameters of a layer in one group); by default every parameter is its own group.
     */
    public void setGroup(int k, int g) {
        group[k] = g;
    }

    /**
     * Updates all parameters as one flat vector (SGD and Adam with one learning rate for every parameter; otherwise
     * per parameter as before): from the next update on, the parameters' values are views of one buffer of this
     * optimizer, put in with {@link Param#set} (a value set from elsewhere later, e.g. a checkpoint's, is taken into
     * the buffer at the next update). For a trainer that owns its parameters; the weights are bit-identical to the
     * per-parameter update's.
     */
    public UpdateRule fuse(boolean on) {
        this.fuse = on;
        return this;
    }

    /**
     * Whether a trainer fuses the update of these parameters ({@link #fuse}): always on a GPU, where every engine call
     * is a kernel launch; on the CPU only when the arrays are small on average (fewer than {@link #FUSE_CPU_MEAN}
     * elements, e.g. ResNet-20's 65 arrays of 4,200 on average), where the per-call cost dominates. On the CPU the
     * flat update's extra pass over the gradients (the concatenation) costs more than it saves for a few large
     * arrays: the 784-512-512-10 MLP's update and zeroing took 4.0 ms fused against 2.7 ms per parameter
     * (benchmarks/RESULTS.md).
     */
    public static boolean fuseByDefault(List<Param> params) {
        if (params.isEmpty()) {
            return false;
        }
        if (params.get(0).value().getDevice().isGpu()) {
            return true;
        }
        long total = 0;
        for (Param p : params) {
            total += p.value().size();
        }
        return total / params.size() < FUSE_CPU_MEAN;
    }

    /** On the CPU, the mean parameter-array size below which {@link #fuseByDefault} fuses. */
    static final long FUSE_CPU_MEAN = 32_768;

    /** One update with learning rate {@code lr}, then the gradients zeroed ({@link #zeroGradients}). */
    public void step(double lr) {
        update(lr);
        zeroGradients();
    }

    /** Zeroes every parameter's gradient (backward passes add to it); nothing to do while a step's leaves are lent. */
    public void zeroGradients() {
        if (owned != null) {
            return;
        }
        for (Param p : params) {
            JniUtils.zeroGrad((PtNDArray) p.value());
        }
    }

    /**
     * Starts a training step: until {@link #endStep}, every parameter presents a fresh leaf that shares its storage (a
     * detached alias that requires a gradient). The step's backward pass then hands each gradient to its leaf without
     * a copy (PyTorch's AccumulateGrad takes the incoming gradient when the leaf has none), so the step makes no
     * accumulation pass into the parameters' gradients and no zeroing pass after the update: what torch.optim's
     * {@code zero_grad(set_to_none=True)} saves, which DJL 0.35 cannot express (it has no call that drops a gradient).
     * The arithmetic is unchanged (0 + g = g). Call it inside the step's NDScope, which closes the leaves and their
     * gradients; {@link #update} writes the parameters' own arrays.
     */
    public void beginStep() {
        endStep();
        NDArray[] own = new NDArray[params.size()];
        for (int k = 0; k < own.length; k++) {
            Param p = params.get(k);
            NDArray leaf = p.value().stopGradient();
            leaf.setRequiresGradient(true);
            own[k] = p.swap(leaf);
        }
        owned = own;
    }

    /** Ends a step begun by {@link #beginStep}: the parameters present their own arrays again (no-op otherwise). */
    public void endStep() {
        if (owned == null) {
            return;
        }
        for (int k = 0; k < owned.length; k++) {
            params.get(k).swap(owned[k]);
        }
        owned = null;
    }

    /** Parameter k's own array (not a step's leaf), which the update writes. */
    private NDArray weight(int k) {
        return owned != null ? owned[k] : params.get(k).value();
    }

    /** Parameter k's gradient from this step's backward pass (on its leaf while one is lent). */
    private NDArray gradient(int k) {
        return params.get(k).value().getGradient();
    }

    /** One update with learning rate {@code lr} from the parameters' gradients, which it leaves as they are. */
    public void update(double lr) {
        boolean grad = JniUtils.isGradMode();
        JniUtils.setGradMode(false);
        try {
            steps++;
            if (spec.optimizer() == OptimizerKind.SLO) {
                speedLimitedStep(lr);
                return;
            }
            double c1 = 1 - Math.pow(spec.beta1(), steps);
            double c2 = 1 - Math.pow(spec.beta2(), steps);
            if (fusable()) {
                NDArray[] grads = new NDArray[params.size()];
                for (int k = 0; k < grads.length; k++) {
                    grads[k] = gradient(k).reshape(-1);
                }
                NDArray g = ai.djl.ndarray.NDArrays.concat(new NDList(grads));
                flatten(); // after reading the gradients: a value it replaces takes its gradient with it
                update(flatW, g, flat1, flat2, lr * lrMultiplier[0], c1, c2);
                return;
            }
            for (int k = 0; k < params.size(); k++) {
                update(
                        weight(k),
                        gradient(k),
                        state1.get(k),
                        state2.isEmpty() ? null : state2.get(k),
                        lr * lrMultiplier[k],
                        c1,
                        c2);
            }
        } finally {
            closePerStep();
            JniUtils.setGradMode(grad);
        }
    }

    /** One SGD or Adam update of {@code w} (a parameter or the flat vector of all) from its gradient {@code g}. */
    private void update(NDArray w, NDArray g, NDArray m1, NDArray m2, double eta, double c1, double c2) {
        if (spec.weightDecay() > 0) {
            g = g.add(w.mul(constant(spec.weightDecay(), w)));
        }
        if (spec.optimizer() == OptimizerKind.ADAM) {
            m1.muli(constant(spec.beta1(), w)).addi(g.mul(constant(1 - spec.beta1(), w)));
            m2.muli(constant(spec.beta2(), w)).addi(g.mul(g).muli(constant(1 - spec.beta2(), w)));
            NDArray upd =
                    m1.div(perStep(c1, w)).div(m2.div(perStep(c2, w)).sqrt().add(constant(spec.eps(), w)));
            w.subi(upd.muli(perStep(eta, w)));
        } else if (spec.momentum() > 0) {
            NDArray mu = constant(spec.momentum(), w);
            m1.muli(mu).addi(g);
            NDArray dir = spec.nesterov() ? g.add(m1.mul(mu)) : m1;
            w.subi(dir.mul(perStep(eta, w)));
        } else {
            w.subi(g.mul(perStep(eta, w)));
        }
    }

    /**
     * Whether this update can run on the flat vector: {@link #fuse} on, SGD or Adam, one learning rate for all, and
     * parameters of one data type on one device.
     */
    private boolean fusable() {
        if (!fuse || params.size() < 2) {
            return false;
        }
        NDArray w0 = params.get(0).value();
        for (int k = 0; k < params.size(); k++) {
            NDArray w = params.get(k).value();
            if (lrMultiplier[k] != lrMultiplier[0]
                    || w.getDataType() != w0.getDataType()
                    || !w.getDevice().equals(w0.getDevice())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Makes the parameters, the momentum and the Adam moments views of one flat buffer each (values kept), unless
     * they already are: the first fused update, and after a parameter was set from elsewhere (a checkpoint).
     */
    private void flatten() {
        boolean same = views != null;
        for (int k = 0; same && k < params.size(); k++) {
            same = weight(k) == views[k];
        }
        if (same) {
            return;
        }
        NDArray[] lent = null;
        if (owned != null) { // the parameters' own arrays are replaced, the step's leaves (read already) stay lent
            lent = new NDArray[params.size()];
            for (int k = 0; k < lent.length; k++) {
                lent[k] = params.get(k).value();
            }
            endStep();
        }
        List<NDArray> values = new ArrayList<>();
        params.forEach(p -> values.add(p.value()));
        NDArray oldW = flatW;
        flatW = concat(values);
        views = views(flatW, values);
        for (int k = 0; k < params.size(); k++) {
            params.get(k).set(views[k]); // closes the old value (leaves made views of flatW)
        }
        if (oldW != null) {
            oldW.close(); // the handle; its storage lives while views of it do
        }
        if (lent != null) {
            NDArray[] own = new NDArray[lent.length];
            for (int k = 0; k < lent.length; k++) {
                own[k] = params.get(k).swap(lent[k]);
            }
            owned = own;
        }
        if (flat1 == null) { // the moments stay in their buffers once flat (restore writes into the views)
            flat1 = concat(state1);
            replace(state1, views(flat1, state1));
            if (!state2.isEmpty()) {
                flat2 = concat(state2);
                replace(state2, views(flat2, state2));
            }
        }
    }

    /** One contiguous 1-d copy of the arrays, in order, outside any step's scope. */
    private static NDArray concat(List<NDArray> arrays) {
        NDList flat = new NDList();
        for (NDArray a : arrays) {
            flat.add(a.reshape(-1));
        }
        NDArray c = ai.djl.ndarray.NDArrays.concat(flat);
        NDScope.unregister(c);
        flat.forEach(a -> {
            if (a != c) {
                a.close();
            }
        });
        return c;
    }

    /** Views of {@code flat} with the shapes of {@code like}, in order, outside any step's scope. */
    private static NDArray[] views(NDArray flat, List<NDArray> like) {
        NDArray[] v = new NDArray[like.size()];
        long from = 0;
        for (int k = 0; k < v.length; k++) {
            long n = like.get(k).size();
            try (NDArray slice = flat.get(new ai.djl.ndarray.index.NDIndex().addSliceDim(from, from + n))) {
                v[k] = slice.reshape(like.get(k).getShape());
            }
            NDScope.unregister(v[k]);
            from += n;
        }
        return v;
    }

    private static void replace(List<NDArray> list, NDArray[] by) {
        for (int k = 0; k < by.length; k++) {
            list.get(k).close();
            list.set(k, by[k]);
        }
    }

    /*
     * Scalars of the update as native 0-d arrays, made once (the hyper-parameters) or once per update (learning
     * rates, Adam's bias corrections) instead of once per parameter and use: NDArray.mul(Number) wraps every number
     * in a Java direct buffer. The values are those mul(Number) applies: exact for float64 parameters, rounded to
     * float32 otherwise (PyTorch applies a double to a float32 array in float32), so the arithmetic is unchanged.
     */
    private final java.util.Map<String, NDArray> constants = new java.util.HashMap<>();
    private final java.util.Map<String, NDArray> perStep = new java.util.HashMap<>();

    private NDArray constant(double v, NDArray like) {
        return constants.computeIfAbsent(key(v, like), k -> scalar(v, like));
    }

    private NDArray perStep(double v, NDArray like) {
        return perStep.computeIfAbsent(key(v, like), k -> scalar(v, like));
    }

    private void closePerStep() {
        perStep.values().forEach(NDArray::close);
        perStep.clear();
    }

    private static String key(double v, NDArray like) {
        return like.getDataType() + "/" + like.getDevice() + "/" + Double.doubleToRawLongBits(v);
    }

    private NDArray scalar(double v, NDArray like) {
        DataType t = like.getDataType() == DataType.FLOAT64 ? DataType.FLOAT64 : DataType.FLOAT32;
        NDArray s = Arrays2.scalar(manager, v, t, like.getDevice());
        NDScope.unregister(s); // lives as long as the optimizer (or the update), not as the step's scope
        return s;
    }

    /** θ_l ← θ_l − η·C_l·G_l/(ε + ‖G_l‖_F) per group l (see the class comment). */
    private void speedLimitedStep(double lr) {
        int k = params.size();
        NDArray[] g = new NDArray[k];
        java.util.Map<Integer, Double> squares = new java.util.HashMap<>();
        for (int i = 0; i < k; i++) {
            NDArray w = weight(i);
            g[i] = gradient(i);
            if (spec.weightDecay() > 0) {
                g[i] = g[i].add(w.mul(spec.weightDecay()));
            }
            squares.merge(group[i], Arrays2.value(g[i].mul(g[i]).sum()), Double::sum);
        }
        for (int i = 0; i < k; i++) {
            NDArray w = weight(i);
            double scale = lr * lrMultiplier[i] * speed[i] / (spec.eps() + Math.sqrt(squares.get(group[i])));
            if (Double.isFinite(scale)) { // ε = 0 and a zero gradient: no step
                w.subi(g[i].mul(scale));
            }
        }
    }

    public long steps() {
        return steps;
    }

    /** UpdateRule state (momentum / Adam moments) for checkpoints, named opt.k.m1 / opt.k.m2. */
    public NDList state() {
        NDList l = new NDList();
        for (int k = 0; k < state1.size(); k++) {
            state1.get(k).setName("opt." + k + ".m1");
            l.add(state1.get(k));
        }
        for (int k = 0; k < state2.size(); k++) {
            state2.get(k).setName("opt." + k + ".m2");
            l.add(state2.get(k));
        }
        return l;
    }

    /** Restores {@link #state()} from a checkpoint, and the step count. */
    public void restore(NDList saved, long stepCount) {
        for (NDArray a : saved) {
            String[] parts = a.getName().split("\\.");
            int k = Integer.parseInt(parts[1]);
            NDArray target = "m1".equals(parts[2]) ? state1.get(k) : state2.get(k);
            target.subi(target).addi(a.toType(target.getDataType(), false));
        }
        this.steps = stepCount;
    }
}
