package org.ntk4j.metrics;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.GradientCollector;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.model.TangentLayer;
import org.ntk4j.model.TangentProbe;

/**
 * The PTK feature covariance of Feature Learning as Alignment (anon.), §2.2 for dense layers, summed over the
 * network's outputs (§1.3):
 * <pre>K_l = (1/n) Σ_α Σ_o δ_{α,o} δ_{α,o}ᵀ,   δ_{α,o} = ∂f_o(x_α)/∂h_l   (out_l × out_l),</pre>
 * with h_l the layer's pre-activation output and f the network output (output scale κ included).
 * The 1/n (left implicit in the paper) is the one its Prop. 2 needs: AGOP_l = W_lᵀ K_l W_l exactly.
 *
 * <p>One probe pass for all layers (as {@code kernel.TangentFactors} does for the NTK): one forward in
 * probe mode that adds a zero leaf to every dense output, then one backward per output o with seed
 * e_o on every row, after which each leaf's gradient holds δ_{·,o} for all samples at once (samples are
 * independent: no batch coupling in eval mode). Runs in the network's data type.
 */
final class PtkCovariance {
    private PtkCovariance() {}

    /** Probe that puts a zero leaf on the output of each wanted dense layer. */
    private static final class Leaves implements TangentProbe {
        final Map<TangentLayer, NDArray> leaves = new IdentityHashMap<>();
        final NDManager m;

        Leaves(List<? extends TangentLayer> layers, NDManager m) {
            this.m = m;
            layers.forEach(l -> leaves.put(l, null));
        }

        @Override
        public NDArray tap(TangentLayer layer, NDArray input, NDArray output) {
            if (!leaves.containsKey(layer)) {
                return output;
            }
            NDArray z = m.zeros(output.getShape(), output.getDataType(), output.getDevice());
            z.setRequiresGradient(true);
            leaves.put(layer, z);
            return output.add(z);
        }
    }

    /**
     * K_l for each layer of {@code layers}, in that order, as arrays of the network's data type owned
     * by {@code m}. {@code x} must already have the network's data type and input shape.
     */
    static Map<TangentLayer, NDArray> compute(
            Network net, NDArray x, List<? extends TangentLayer> layers, NDManager m) {
        int n = (int) x.getShape().get(0);
        Map<TangentLayer, NDArray> k = new LinkedHashMap<>();
        for (TangentLayer l : layers) {
            long units = l.weight().value().getShape().get(0);
            k.put(l, m.zeros(new Shape(units, units), x.getDataType(), x.getDevice()));
        }
        backPropagateEachOutput(
                net, x, layers, m, (l, delta) -> k.get(l).addi(delta.transpose().matMul(delta)));
        NDArray invN = new Forward(m, false, null).scalar(1.0 / n, x);
        for (NDArray a : k.values()) {
            a.muli(invN);
        }
        invN.close();
        return k;
    }

    /**
     * The per-row pre-activation gradients J_l of each layer, scaled so that K_l = J_lᵀJ_l: rows are
     * δ_{α,o,p}/√(n·P) for sample α, output o and output position p (P = 1 for a dense layer, H·W for
     * a conv layer, whose K is averaged over positions as for the conv AGOP of Feature Learning as
     * Alignment (anon.), §2.1), columns the layer's out units/channels. Arrays of the network's data
     * type owned by {@code m}; {@code x} must have the network's data type and input shape.
     */
    static Map<TangentLayer, NDArray> jacobians(
            Network net, NDArray x, List<? extends TangentLayer> layers, NDManager m) {
        Map<TangentLayer, java.util.List<NDArray>> parts = new LinkedHashMap<>();
        layers.forEach(l -> parts.put(l, new java.util.ArrayList<>()));
        backPropagateEachOutput(net, x, layers, m, (l, g) -> {
            Shape s = g.getShape();
            NDArray rows = s.dimension() == 4
                    ? g.transpose(0, 2, 3, 1).reshape(-1, s.get(1))
                    : g.reshape(-1, s.get(s.dimension() - 1));
            double norm = 1.0 / Math.sqrt((double) rows.getShape().get(0));
            NDArray kept = rows.mul(new Forward(m, false, null).scalar(norm, rows));
            kept.attach(m);
            NDScope.unregister(kept);
            parts.get(l).add(kept);
        });
        Map<TangentLayer, NDArray> out = new LinkedHashMap<>();
        for (Map.Entry<TangentLayer, java.util.List<NDArray>> e : parts.entrySet()) {
            java.util.List<NDArray> ps = e.getValue();
            NDArray j = ps.size() == 1 ? ps.get(0) : NDArrays.concat(new ai.djl.ndarray.NDList(ps), 0);
            out.put(e.getKey(), j);
        }
        return out;
    }

    /**
     * One backward pass per output o, seeded with e_o for every sample: hands each layer's pre-activation gradient
     * δ (n × units, or n × C × H × W) to {@code perLayer} inside the pass's scope, then zeroes it. Only the leaves'
     * gradients are read; the parameters need none.
     */
    private static void backPropagateEachOutput(
            Network net,
            NDArray x,
            List<? extends TangentLayer> layers,
            NDManager m,
            BiConsumer<TangentLayer, NDArray> perLayer) {
        int n = (int) x.getShape().get(0);
        int outputs = net.outputs();
        List<Param> params = net.trainableParams();
        try (NDManager scratch = m.newSubManager()) {
            Leaves probe = new Leaves(layers, scratch);
            NDArray xs = x.duplicate();
            xs.attach(scratch);
            params.forEach(p -> p.value().setRequiresGradient(false));
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                NDArray f = net.forward(xs, new Forward(scratch, false, probe));
                NDArray eye = scratch.eye(outputs, outputs, 0, f.getDataType(), f.getDevice());
                for (int o = 0; o < outputs; o++) {
                    try (NDScope scope = new NDScope()) {
                        NDArray seed = eye.get(new NDIndex("{}:{}", o, o + 1)).repeat(0, n);
                        JniUtils.backward((PtNDArray) f, (PtNDArray) seed, o < outputs - 1, false);
                        for (TangentLayer l : layers) {
                            NDArray z = probe.leaves.get(l);
                            if (z == null) {
                                throw new IllegalStateException(l.name() + " was not reached by the forward pass");
                            }
                            perLayer.accept(l, z.getGradient());
                            JniUtils.zeroGrad((PtNDArray) z);
                        }
                    }
                }
                f.close(); // frees the graph before the scratch goes
            } finally {
                params.forEach(p -> p.value().setRequiresGradient(true));
            }
        }
    }
}
