package org.ntk4j.kernel;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.GradientCollector;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.model.TangentLayer;
import org.ntk4j.model.TangentProbe;

/**
 * Computes the per-layer tangent factors of a network on one tile of inputs (DESIGN.md "Tangent
 * factors"): one forward in probe mode and one backward per output for the structured layers (each
 * reduced by its {@link org.ntk4j.kernel.rule.TangentRule}'s {@link FactorBuilder}), and
 * per-sample, per-output backward passes for the Jacobian layers. Keys are layer names, or
 * parameter names when parameter parts are requested.
 */
final class TangentFactors {
    private TangentFactors() {}

    /** Factors of {@code structured} layers by probe mode, then of {@code jacobian} layers by per-sample gradients. */
    static Map<String, LayerFactor> compute(Network net, NDArray x, NtkPlan plan, boolean parts, NDManager m) {
        Map<String, LayerFactor> out = new LinkedHashMap<>();
        List<LayerPlan> structured = plan.structured();
        List<Module> jacobian = plan.jacobian();
        if (!structured.isEmpty()) {
            structuredFactors(net, x, structured, parts, m, out);
        }
        if (!jacobian.isEmpty()) {
            jacobianFactors(net, x, jacobian, parts, m, out);
        }
        return out;
    }

    /** Probe that keeps each tapped layer's input and a zero leaf on its output. */
    private static final class Recorder implements TangentProbe {
        final Map<TangentLayer, NDArray> inputs = new IdentityHashMap<>();
        final Map<TangentLayer, NDArray> leaves = new IdentityHashMap<>();
        final Map<Object, Boolean> wanted = new IdentityHashMap<>();
        final NDManager m;

        Recorder(NDManager m) {
            this.m = m;
        }

        @Override
        public NDArray tap(TangentLayer layer, NDArray input, NDArray output) {
            if (!wanted.containsKey(layer)) {
                return output;
            }
            inputs.put(layer, input.stopGradient());
            NDArray z = m.zeros(output.getShape(), output.getDataType(), output.getDevice());
            z.setRequiresGradient(true);
            leaves.put(layer, z);
            return output.add(z);
        }
    }

    /**
     * The probe pass: one forward that taps every structured layer, then one backward per output
     * o, after which each layer's {@link FactorBuilder} reduces its δ_o to factor slots. The forward
     * graph, the zero leaves and the im2col patches live in a scratch manager and a scope closed
     * before returning; each output's temporaries in a scope closed after that output.
     */
    private static void structuredFactors(
            Network net, NDArray x, List<LayerPlan> layers, boolean parts, NDManager m, Map<String, LayerFactor> out) {
        List<Param> params = net.trainableParams();
        int n = (int) x.getShape().get(0);
        int outputs = net.outputs();
        try (NDManager scratch = m.newSubManager()) {
            Recorder rec = new Recorder(scratch);
            for (LayerPlan l : layers) {
                rec.wanted.put(l.layer(), Boolean.TRUE);
            }
            NDArray xs = x.duplicate();
            xs.attach(scratch);
            // Parameters need no gradient here: only the zero leaves' gradients are read.
            params.forEach(p -> p.value().setRequiresGradient(false));
            Map<TangentLayer, FactorBuilder> builders = new LinkedHashMap<>();
            // The scope closes every array the pass creates that no factor keeps, including those that ops
            // on parameters attach to the model's manager (a transposed weight, a BN scale): without it
            // each kernel left ~250 handles in the model's manager (ResNet-20). Builders unregister what they keep.
            try (GradientCollector gc = Engine.getInstance().newGradientCollector();
                    NDScope pass = new NDScope()) {
                NDArray f = net.forward(xs, new Forward(scratch, false, rec));
                for (LayerPlan l : layers) {
                    TangentLayer t = (TangentLayer) l.layer();
                    NDArray a = rec.inputs.get(t);
                    if (a == null) {
                        throw new IllegalStateException(l.name() + " (" + l.ruleName() + " rule) was not tapped by the"
                                + " probe pass: its forward must call ctx.probe().tap(this, input, output)");
                    }
                    builders.put(t, l.rule().builder(t, l.estimate(), a, outputs, m));
                }
                NDArray eye = scratch.eye(outputs, outputs, 0, f.getDataType(), f.getDevice());
                for (int o = 0; o < outputs; o++) {
                    try (NDScope scope = new NDScope()) {
                        NDArray seed = eye.get(new NDIndex("{}:{}", o, o + 1)).repeat(0, n);
                        JniUtils.backward((PtNDArray) f, (PtNDArray) seed, o < outputs - 1, false);
                        for (Map.Entry<TangentLayer, NDArray> e : rec.leaves.entrySet()) {
                            builders.get(e.getKey()).accept(o, e.getValue().getGradient());
                            JniUtils.zeroGrad((PtNDArray) e.getValue());
                        }
                    }
                }
            } finally {
                params.forEach(p -> p.value().setRequiresGradient(true));
            }
            for (FactorBuilder b : builders.values()) {
                b.finish(out, parts);
            }
        }
    }

    private static void jacobianFactors(
            Network net, NDArray x, List<Module> layers, boolean parts, NDManager m, Map<String, LayerFactor> out) {
        int n = (int) x.getShape().get(0);
        int outputs = net.outputs();
        // groups: one per layer, or one per parameter
        Map<String, List<Param>> groups = new LinkedHashMap<>();
        for (Module l : layers) {
            for (Param p : l.ownParams()) {
                if (p.trainable()) {
                    groups.computeIfAbsent(parts ? p.name() : l.name(), k -> new ArrayList<>())
                            .add(p);
                }
            }
        }
        List<Param> all = net.trainableParams();
        Map<String, List<NDArray>> rows = new LinkedHashMap<>();
        groups.keySet().forEach(k -> rows.put(k, new ArrayList<>()));
        all.forEach(p -> JniUtils.zeroGrad((PtNDArray) p.value()));
        try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
            for (int i = 0; i < n; i++) {
                // The scope closes the gradient wrappers getGradient() attaches to the model's manager.
                try (NDScope scope = new NDScope();
                        NDManager sm = m.newSubManager()) {
                    NDArray xi = x.get(new NDIndex("{}:{}", i, i + 1));
                    xi.attach(sm);
                    NDArray f = net.forward(xi, new Forward(sm, false, null));
                    NDArray eye = sm.eye(outputs, outputs, 0, f.getDataType(), f.getDevice());
                    for (int o = 0; o < outputs; o++) {
                        NDArray seed = eye.get(new NDIndex("{}:{}", o, o + 1));
                        JniUtils.backward((PtNDArray) f, (PtNDArray) seed, o < outputs - 1, false);
                        for (Map.Entry<String, List<Param>> g : groups.entrySet()) {
                            NDList flat = new NDList();
                            for (Param p : g.getValue()) {
                                flat.add(p.value().getGradient().flatten());
                            }
                            NDArray row = flat.size() == 1 ? flat.head().duplicate() : NDArrays.concat(flat);
                            NDScope.unregister(row);
                            row.attach(m);
                            rows.get(g.getKey()).add(row);
                        }
                        all.forEach(p -> JniUtils.zeroGrad((PtNDArray) p.value()));
                    }
                }
            }
        }
        for (Map.Entry<String, List<NDArray>> e : rows.entrySet()) {
            NDArray j = NDArrays.stack(new NDList(e.getValue()));
            long p = j.getShape().get(1);
            out.put(e.getKey(), new JacobianFactor(j.reshape(new Shape(n, outputs, p))));
            e.getValue().forEach(NDArray::close);
        }
    }
}
