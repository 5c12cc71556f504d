package org.ntk4j.kernel;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.ntk4j.kernel.rule.JacobianRule;
import org.ntk4j.kernel.rule.PlanContext;
import org.ntk4j.kernel.rule.RuleEstimate;
import org.ntk4j.kernel.rule.TangentRule;
import org.ntk4j.kernel.rule.TangentRules;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.model.TangentLayer;

/**
 * The method per parameterised layer for one kernel, in forward order, with FLOP and memory
 * estimates. JACOBIAN: every layer from per-sample backward passes. STRUCTURED: every layer by its
 * tangent rule from one batched probe pass; a kernel is refused when a layer has no rule that applies
 * ({@link #requireStructured()}), rather than computed on the general path unasked. AUTO: when
 * every layer has such a rule, all structured (the batched pass replaces N·O per-sample backward
 * passes); otherwise the per-sample passes are paid anyway and already yield per-sample gradients,
 * so rules whose factors are such gradients (convolutions) read them there, while the others (dense:
 * the Hadamard factorisation avoids forming rows) stay structured.
 */
public final class NtkPlan {
    private final List<LayerPlan> layers;
    private final int n1;
    private final int n2;
    private final int outputs;

    private NtkPlan(List<LayerPlan> layers, int n1, int n2, int outputs) {
        this.layers = Collections.unmodifiableList(layers);
        this.n1 = n1;
        this.n2 = n2;
        this.outputs = outputs;
    }

    /** Plans {@code net}'s layers for an N1×N2 kernel under {@code options}. */
    public static NtkPlan of(Network net, NtkOptions options, int n1, int n2) {
        PlanContext ctx = new PlanContext(net.outputs(), n1, n2, options.mode(), options.convPairs());
        long bytes = net.dataType().getNumOfBytes();
        Method method = options.method();
        List<Module> params = net.parameterLayers();
        Map<Module, TangentRule<TangentLayer>> rules = new LinkedHashMap<>();
        Map<Module, String> whyNot = new LinkedHashMap<>();
        for (Module l : params) {
            TangentRule<TangentLayer> r = TangentRules.find(l);
            String not = r == null ? "no tangent rule for " + l.typeName() : r.inapplicable((TangentLayer) l);
            if (r != null && not != null) {
                not = r.name() + " rule does not apply: " + not;
                r = null;
            }
            rules.put(l, r);
            whyNot.put(l, not);
        }
        boolean allRules = rules.values().stream().allMatch(r -> r != null);
        List<LayerPlan> out = new ArrayList<>();
        for (Module l : params) {
            RuleEstimate jac = JacobianRule.estimate(l, ctx);
            TangentRule<TangentLayer> r = rules.get(l);
            if (r == null) {
                out.add(new LayerPlan(
                        l.name(),
                        l,
                        null,
                        Method.JACOBIAN,
                        null,
                        Double.NaN,
                        jac.flops(),
                        jac.keptPerSample() * bytes,
                        0,
                        whyNot.get(l)));
                continue;
            }
            RuleEstimate est = r.estimate((TangentLayer) l, ctx);
            boolean structured = method == Method.STRUCTURED
                    || (method == Method.AUTO && (allRules || r.structuredBesideJacobian()));
            String why = method != Method.AUTO
                    ? "as asked"
                    : allRules
                            ? "every layer has tangent factors"
                            : structured
                                    ? "Hadamard factorisation"
                                    : "per-sample passes needed anyway for other layers";
            out.add(new LayerPlan(
                    l.name(),
                    l,
                    r,
                    structured ? Method.STRUCTURED : Method.JACOBIAN,
                    est,
                    est.flops(),
                    jac.flops(),
                    (structured ? est.keptPerSample() : jac.keptPerSample()) * bytes,
                    structured ? est.transientPerSample() * bytes : 0,
                    why));
        }
        return new NtkPlan(out, n1, n2, net.outputs());
    }

    /**
     * Refuses, in one sentence naming the first such layer as its user knows it (its name and type, a DJL block by its
     * class) and why, a plan in which a layer is not STRUCTURED; called when {@link Method#STRUCTURED} was asked for.
     */
    public void requireStructured() {
        for (LayerPlan l : layers) {
            if (l.method() != Method.STRUCTURED) {
                throw new org.ntk4j.UserException("method STRUCTURED was asked for, but layer " + l.name()
                        + " cannot take it (" + l.reason() + "); use AUTO or JACOBIAN");
            }
        }
    }

    /** Every parameterised layer's plan, in forward order. */
    public List<LayerPlan> layers() {
        return layers;
    }

    /** The plan of the layer named {@code name}, or null. */
    public LayerPlan layer(String name) {
        return layers.stream().filter(l -> l.name().equals(name)).findFirst().orElse(null);
    }

    /** The layers computed by the probe pass. */
    public List<LayerPlan> structured() {
        return layers.stream().filter(LayerPlan::structured).toList();
    }

    /** The layers computed by per-sample Jacobian passes. */
    public List<Module> jacobian() {
        return layers.stream()
                .filter(l -> !l.structured())
                .map(LayerPlan::layer)
                .toList();
    }

    /** Bytes per sample of the factors a tile keeps for its contractions. */
    public long bytesPerSample() {
        return layers.stream().mapToLong(LayerPlan::bytesPerSample).sum();
    }

    /** Bytes per sample held only while a tile's probe pass runs. */
    public long transientBytesPerSample() {
        return layers.stream().mapToLong(LayerPlan::transientBytesPerSample).sum();
    }

    /** Layer name → its {@code --explain} line, in forward order. */
    public Map<String, String> lines() {
        Map<String, String> m = new LinkedHashMap<>();
        layers.forEach(l -> m.put(l.name(), l.explain()));
        return Collections.unmodifiableMap(m);
    }

    /** Calls {@code action} with each layer's name and {@code --explain} line, in forward order. */
    public void forEach(BiConsumer<String, String> action) {
        lines().forEach(action);
    }

    /**
     * What {@code --explain} prints: one "name: line" per layer, then the backward passes each method
     * pays besides its contractions. The per-layer FLOPs count only the contractions (the Gram of
     * per-sample rows, or the structured factors' contraction); the passes that produce the factors are
     * a cost of the whole network, not of one layer, so they are stated once: the structured path runs O
     * batched backward passes per tile, the Jacobian path one backward pass per sample and output.
     */
    public String explain() {
        StringBuilder sb = new StringBuilder();
        forEach((k, v) -> sb.append(k).append(": ").append(v).append('\n'));
        sb.append(passes()).append('\n');
        return sb.toString();
    }

    /** The backward passes behind the factors, by method (see {@link #explain()}). */
    public String passes() {
        String s = String.format(
                "backward passes (besides the contractions above): structured %d batched passes per tile"
                        + " of samples; jacobian one per-sample pass per sample and output (%d for X1 alone, N1 = %d, N2 = %d)",
                outputs, (long) n1 * outputs, n1, n2);
        boolean anyStructured = layers.stream().anyMatch(LayerPlan::structured);
        boolean anyJacobian = layers.stream().anyMatch(l -> !l.structured());
        String chosen = anyStructured && anyJacobian
                ? "this plan pays both"
                : anyStructured
                        ? "this plan pays the structured passes only"
                        : "this plan pays the jacobian passes only";
        return s + "; " + chosen;
    }

    @Override
    public String toString() {
        return lines().toString();
    }
}
