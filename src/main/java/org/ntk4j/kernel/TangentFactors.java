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
import org.ntk4j.kernel.factor.FactorBuilder;
import org.ntk4j.kernel.factor.JacobianFactor;
import org.ntk4j.kernel.factor.LayerFactor;
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
 * per-sample, per-output backward passes for the Jacobian layers. A chain of dense layers and
 * activations takes one explicit backward of all outputs at once instead ({@link DenseChain}). Keys are layer names, or
 * parameter names when parameter parts are requested.
 */
final class TangentFactors {
    private TangentFactors() {}

    /** Factors of {@code structured} layers by probe mode, then of {@code jacobian} layers by per-sample gradients. */
    static Map<String, LayerFactor> compute(Network net, NDArray x, NtkPlan plan, boolean parts, NDManager m) {
        return compute(net, x, plan, parts, false, m);
    }

    /**
     * As {@link #compute(Network, NDArray, NtkPlan, boolean, NDManager)}; with {@code traced}, factors that are only
     * contracted into a traced kernel (Σ_o over the outputs), which lets a dense chain hand its last hidden layer
     * one row per sample instead of O ({@link DenseChain#factors}).
     */
    static Map<String, LayerFactor> compute(
            Network net, NDArray x, NtkPlan plan, boolean parts, boolean traced, NDManager m) {
        try (org.ntk4j.util.NativeWork.Section nw = org.ntk4j.util.NativeWork.section()) {
            return computeInSection(net, x, plan, parts, traced, m);
        }
    }

    private static Map<String, LayerFactor> computeInSection(
            Network net, NDArray x, NtkPlan plan, boolean parts, boolean traced, NDManager m) {
        Map<String, LayerFactor> out = new LinkedHashMap<>();
        List<LayerPlan> structured = plan.structured();
        List<Module> jacobian = plan.jacobian();
        boolean replicate = replicate(net.outputs());
        DenseChain chain = replicate ? null : DenseChain.of(net, plan);
        if (chain != null) {
            chain.factors(net, x, plan, parts, traced, m, out);
        } else if (!structured.isEmpty()) {
            structuredFactors(net, x, structured, parts, replicate, m, out);
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
        /** Rows of one copy of the tile when the batch is replicated, else 0. */
        final long rows;

        Recorder(NDManager m, long rows) {
            this.m = m;
            this.rows = rows;
        }

        @Override
        public NDArray tap(TangentLayer layer, NDArray input, NDArray output) {
            if (!wanted.containsKey(layer)) {
                return output;
            }
            // In a replicated pass the input is O copies of the tile: every copy is the same, keep the first.
            inputs.put(layer, (rows > 0 ? input.get(new NDIndex("0:{}", rows)) : input).stopGradient());
            NDArray z = m.zeros(output.getShape(), output.getDataType(), output.getDevice());
            z.setRequiresGradient(true);
            leaves.put(layer, z);
            return output.add(z);
        }
    }

    /**
     * The probe pass: one forward that taps every structured layer, then one backward per output
     * o (or one backward over O copies of the tile when {@code replicate}, see {@link #replicate}),
     * after which each layer's {@link FactorBuilder} reduces its δ_o to factor slots. The forward
     * graph, the zero leaves and the im2col patches live in a scratch manager and a scope closed
     * before returning; each output's temporaries in a scope closed after that output.
     */
    private static void structuredFactors(
            Network net,
            NDArray x,
            List<LayerPlan> layers,
            boolean parts,
            boolean replicate,
            NDManager m,
            Map<String, LayerFactor> out) {
        List<Param> params = net.trainableParams();
        int n = (int) x.getShape().get(0);
        int outputs = net.outputs();
        try (NDManager scratch = m.newSubManager()) {
            Recorder rec = new Recorder(scratch, replicate ? n : 0);
            for (LayerPlan l : layers) {
                rec.wanted.put(l.layer(), Boolean.TRUE);
            }
            NDArray xs = x.duplicate();
            xs.attach(scratch);
            if (replicate) {
                long[] reps = new long[x.getShape().dimension()];
                java.util.Arrays.fill(reps, 1);
                reps[0] = outputs;
                xs = xs.tile(reps);
            }
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
                if (replicate) {
                    // one backward pass: copy o of the tile (rows o·n .. o·n+n-1) gets the one-hot cotangent e_o
                    JniUtils.backward((PtNDArray) f, (PtNDArray) eye.repeat(0, n), false, false);
                    for (int o = 0; o < outputs; o++) {
                        try (NDScope scope = new NDScope()) {
                            for (Map.Entry<TangentLayer, NDArray> e : rec.leaves.entrySet()) {
                                NDArray g = e.getValue().getGradient();
                                builders.get(e.getKey())
                                        .accept(o, g.get(new NDIndex("{}:{}", (long) o * n, (long) (o + 1) * n)));
                            }
                        }
                    }
                } else {
                    for (int o = 0; o < outputs; o++) {
                        try (NDScope scope = new NDScope()) {
                            NDArray seed =
                                    eye.get(new NDIndex("{}:{}", o, o + 1)).repeat(0, n);
                            JniUtils.backward((PtNDArray) f, (PtNDArray) seed, o < outputs - 1, false);
                            for (Map.Entry<TangentLayer, NDArray> e : rec.leaves.entrySet()) {
                                builders.get(e.getKey()).accept(o, e.getValue().getGradient());
                                JniUtils.zeroGrad((PtNDArray) e.getValue());
                            }
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

    /**
     * Whether the probe pass runs once over the tile replicated O times, copy o seeded with the
     * one-hot cotangent e_o (one forward and one backward pass), instead of one forward and O
     * backward passes over the tile (the default). Both give the same δ's exactly: the probe forward
     * runs in inference mode, where no layer mixes samples. The replicated pass does O forwards'
     * arithmetic and holds O copies of the activations but launches each op once. On 2 CPU cores
     * it was never faster in steady state (JMH, load ≈ 1-2, benchmarks/RESULTS.md "fewer launches"):
     * FCN 3072-2048×3-8 N = 16 full 49.5-66 ms vs 45-51 ms per-output; MLP 784-512-512-10 N = 256
     * trace 345 vs 156 ms and ResNet-20 N = 64 trace 3.75 vs 1.59 s in an interleaved A/B. It is
     * kept, behind {@code -Dntk4j.backward=replicated}, for launch-bound devices (a GPU), where it
     * is still to be measured; {@code per-output} (or unset) gives the default.
     */
    static boolean replicate(int outputs) {
        if (outputs < 2) {
            return false;
        }
        String p = System.getProperty("ntk4j.backward", "per-output");
        switch (p) {
            case "replicated":
                return true;
            case "per-output":
                return false;
            default:
                throw new IllegalArgumentException("-Dntk4j.backward must be per-output or replicated (got " + p + ")");
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
