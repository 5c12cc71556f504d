package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.ntk4j.kernel.factor.EngineOps;
import org.ntk4j.kernel.factor.FactorBuilder;
import org.ntk4j.kernel.factor.LayerFactor;
import org.ntk4j.model.Activation;
import org.ntk4j.model.Dense;
import org.ntk4j.model.Flatten;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.model.Sequential;
import org.ntk4j.model.TangentLayer;
import org.ntk4j.model.TangentProbe;
import org.ntk4j.spec.ActivationKind;

/**
 * The probe pass of a chain of dense layers and pointwise activations (the {@code mlp} architecture: flatten,
 * then dense layers with an activation between each two) by explicit backpropagation of all O cotangents at once,
 * instead of O backward passes through the autograd graph. With y_l = c_w W_l a_l + c_b b_l the output of dense
 * layer l, a_{l+1} = φ(y_l) and δ_l[i, o] = ∂f_o(x_i)/∂y_l:
 *
 * <pre>δ_L = I_O (every sample),   δ_{l-1} = (c_w δ_l W_l) ⊙ φ'(y_{l-1}),</pre>
 *
 * one batched product (n·O × out_l)·(out_l × in_l) per layer, each δ_l (n, O, out_l) handed whole to the layer's
 * factor builder ({@link FactorBuilder#acceptAll}). The same factors as the autograd pass, which differentiates the
 * same forward: φ' of ReLU is the sign of its output, of tanh 1 − tanh², of erf 2/√π·e^{−y²}, of the square 2y.
 * This is the "explicit backprop of the O one-hot cotangents for the whole batch" of the factorised PyTorch peer
 * (benchmarks/peer/ntk_peer.py); every other network, and {@code -Dntk4j.backward=replicated}, takes the generic
 * autograd pass of {@link TangentFactors}.
 */
final class DenseChain {
    private final List<Dense> dense;
    /** The activation after dense layer l (null: none, a linear chain); none after the last. */
    private final List<ActivationKind> after;

    private DenseChain(List<Dense> dense, List<ActivationKind> after) {
        this.dense = dense;
        this.after = after;
    }

    /** The chain of {@code net} when it is one and every layer takes the dense rule in {@code plan}; else null. */
    static DenseChain of(Network net, NtkPlan plan) {
        if (!(net.root() instanceof Sequential seq)) {
            return null;
        }
        List<Dense> dense = new ArrayList<>();
        List<ActivationKind> after = new ArrayList<>();
        List<Module> mods = seq.children();
        for (int k = 0; k < mods.size(); k++) {
            Module m = mods.get(k);
            if (m instanceof Flatten && k == 0) {
                continue;
            }
            if (m instanceof Dense d) {
                dense.add(d);
                after.add(null);
            } else if (m instanceof Activation a && !dense.isEmpty() && after.get(after.size() - 1) == null) {
                if (a.kind() == ActivationKind.LINEAR) {
                    continue; // the identity
                }
                after.set(after.size() - 1, a.kind());
            } else {
                return null;
            }
        }
        if (dense.isEmpty()
                || after.get(after.size() - 1) != null
                || !plan.jacobian().isEmpty()) {
            return null;
        }
        if (plan.structured().size() != dense.size()
                || plan.structured().stream().anyMatch(l -> !"dense".equals(l.ruleName()))) {
            return null;
        }
        return new DenseChain(dense, after);
    }

    /**
     * The factors of every dense layer on the tile {@code x}, as {@link TangentFactors#compute} returns them. With
     * {@code traced} (factors contracted into a traced kernel only), the last hidden layer's output gradients are
     * handed over as one row per sample ({@link #tracedRows}) instead of O: the same traced Gram Σ_o δ_io·δ_jo, with
     * O times fewer products.
     */
    void factors(
            Network net,
            NDArray x,
            NtkPlan plan,
            boolean parts,
            boolean traced,
            NDManager m,
            Map<String, LayerFactor> out) {
        int outputs = net.outputs();
        long n = x.getShape().get(0);
        Map<TangentLayer, NDArray[]> io = new IdentityHashMap<>();
        TangentProbe record = (layer, input, output) -> {
            io.put(layer, new NDArray[] {input, output});
            return output;
        };
        List<Param> params = net.trainableParams();
        try (NDManager scratch = m.newSubManager();
                NDScope pass = new NDScope()) {
            // no graph: the parameters need no gradient here, and nothing below is differentiated
            params.forEach(p -> p.value().setRequiresGradient(false));
            try {
                net.forward(x, new Forward(scratch, false, record));
            } finally {
                params.forEach(p -> p.value().setRequiresGradient(true));
            }
            NDArray eye = scratch.eye(outputs, outputs, 0, net.dataType(), x.getDevice());
            NDArray delta =
                    eye.expandDims(0).broadcast(new Shape(n, outputs, outputs)).duplicate();
            for (int l = dense.size() - 1; l >= 0; l--) {
                Dense layer = dense.get(l);
                NDArray[] aio = io.get(layer);
                LayerPlan lp = plan.layer(layer.name());
                FactorBuilder b = lp.rule().builder(layer, lp.estimate(), aio[0], outputs, m);
                NDArray given = delta;
                if (traced && l == dense.size() - 2) {
                    Dense output = dense.get(l + 1);
                    given = tracedRows(output, io.get(output)[0], aio[1], after.get(l));
                }
                // the next layer's δ before the builder takes this one's
                NDArray next =
                        l > 0 ? backprop(delta, layer, aio[0], io.get(dense.get(l - 1))[1], after.get(l - 1)) : null;
                b.acceptAll(given);
                b.finish(out, parts);
                delta = next;
            }
        }
    }

    /**
     * δ_{l-1} = (c_w δ_l W_l) ⊙ φ'(y_{l-1}): δ_l (n, O, out_l) through layer l's weight (out_l × in_l) and the
     * derivative of the activation between the layers, from its output a_l = φ(y_{l-1}) (layer l's input: ReLU and
     * tanh, as autograd differentiates them) or its input y_{l-1} (erf, the square).
     */
    private static NDArray backprop(NDArray delta, Dense layer, NDArray a, NDArray y, ActivationKind act) {
        NDArray g = delta.matMul(layer.weight().value());
        double cw = layer.weightScale();
        if (cw != 1) {
            EngineOps.mulInPlace(g, EngineOps.scalar(g, cw));
        }
        if (act == null) {
            return g;
        }
        return EngineOps.mulInPlace(g, derivative(a, y, act).expandDims(1));
    }

    /**
     * The last hidden layer's output gradients, traced, as one row per sample. Below a linear output layer L,
     * δ_{L-1}[i, o, k] = c_w W_L[o, k] φ'(y_i)[k], so
     * <pre>Σ_o δ_io·δ_jo = Σ_k φ'(y_i)[k] φ'(y_j)[k] c_w² Σ_o W_L[o, k]² = r_i·r_j,   r_i = φ'(y_i) ⊙ s,
     * s_k = |c_w| ‖W_L[:, k]‖,</pre>
     * the rows r (n, 1, k) (s alone, broadcast, when no activation lies between): the traced Gram of this layer with
     * n·k·n products instead of n·O·k·n. {@code a} is layer L's input φ(y), {@code y} the hidden layer's output.
     */
    private static NDArray tracedRows(Dense output, NDArray a, NDArray y, ActivationKind act) {
        NDArray w = output.weight().value(); // (O, k)
        NDArray s = w.mul(w).sum(new int[] {0}).sqrt();
        double cw = Math.abs(output.weightScale());
        if (cw != 1) {
            EngineOps.mulInPlace(s, EngineOps.scalar(s, cw));
        }
        long n = a.getShape().get(0);
        NDArray r = act == null
                ? s.expandDims(0).broadcast(new Shape(n, s.getShape().get(0))).duplicate()
                : EngineOps.mulInPlace(derivative(a, y, act), s);
        return r.expandDims(1);
    }

    /** φ' of the activation between two dense layers, from its output {@code a} or its input {@code y} (n, k). */
    private static NDArray derivative(NDArray a, NDArray y, ActivationKind act) {
        NDArray d;
        switch (act) {
            case RELU:
                d = a.sign(); // 1 where y > 0, else 0
                break;
            case TANH:
                d = EngineOps.scalar(a, 1).sub(a.mul(a));
                break;
            case ERF:
                d = y.mul(y).neg().exp().mul(EngineOps.scalar(y, 2 / Math.sqrt(Math.PI)));
                break;
            case QUADRATIC:
                d = y.mul(EngineOps.scalar(y, 2));
                break;
            default:
                throw new IllegalStateException(act.toString());
        }
        return d;
    }
}
