package org.ntk4j.kernel.rule;

import ai.djl.ndarray.NDArray;
import org.ntk4j.kernel.FactorBuilder;
import org.ntk4j.kernel.Grams;
import org.ntk4j.kernel.HadamardFactor;
import org.ntk4j.kernel.LayerFactor;
import org.ntk4j.kernel.Mode;

/**
 * Tangent factors of a dense layer y = c_w·W a + c_b·b on a tile: the inputs A (n × in) and the
 * output gradients D (n × O × out), D[i,o,:] = ∂f_o(x_i)/∂y. Then (Lou, Mingard &amp; Hayou, Equilibrium Hypothesis,
 * Eq. 7, the forward∘backward factorisation; Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit, Eq. (19))
 * <pre>Θ_W[(i,o),(j,p)] = c_w² (a_i·a_j)(δ_io·δ_jp),   Θ_b[(i,o),(j,p)] = c_b² (δ_io·δ_jp),</pre>
 * at cost N1·N2·(in + O²·out) and no per-sample gradient ever formed.
 */
final class DenseFactor implements HadamardFactor {
    /** Which parameters of the layer the factor stands for. */
    enum Part {
        ALL,
        WEIGHT,
        BIAS
    }

    private final NDArray a;
    private final NDArray d;
    private final double cw2;
    private final double cb2;
    private final Part part;

    DenseFactor(NDArray a, NDArray d, double cw, double cb, Part part) {
        this.a = a;
        this.d = d;
        this.cw2 = cw * cw;
        this.cb2 = cb * cb;
        this.part = part;
    }

    @Override
    public NDArray contract(LayerFactor other, Mode mode) {
        DenseFactor o = (DenseFactor) other;
        NDArray gd = Grams.outputGram(d, o.d, mode);
        NDArray ga = a.matMul(o.a.transpose());
        NDArray weightPart = Grams.broadcastPairs(ga.mul(cw2), mode).mul(gd);
        switch (part) {
            case WEIGHT:
                return weightPart;
            case BIAS:
                return gd.mul(cb2);
            default:
                return cb2 == 0 ? weightPart : weightPart.add(gd.mul(cb2));
        }
    }

    /** Keeps the layer input A and collects D[:, o, :] = δ_o output by output. */
    static final class Builder extends FactorBuilder {
        private final org.ntk4j.model.TangentLayer layer;
        private final String name;
        private final NDArray a;
        private NDArray d;

        Builder(
                org.ntk4j.model.TangentLayer layer,
                String name,
                NDArray a,
                int outputs,
                ai.djl.ndarray.NDManager keep) {
            super(keep, outputs);
            this.layer = layer;
            this.name = name;
            this.a = a;
            a.attach(keep);
            ai.djl.ndarray.NDScope.unregister(a); // made in the probe pass's scope, kept by the factor
        }

        @Override
        public void accept(int o, NDArray g) {
            if (d == null) {
                d = buffer(g, g.getShape().get(1));
            }
            put(d, o, g);
        }

        @Override
        public void finish(java.util.Map<String, LayerFactor> out, boolean parts) {
            double cw = layer.weightScale();
            double cb = layer.biasScale();
            if (!parts) {
                out.put(name, new DenseFactor(a, d, cw, cb, Part.ALL));
                return;
            }
            out.put(layer.weight().name(), new DenseFactor(a, d, cw, cb, Part.WEIGHT));
            if (layer.bias() != null) {
                out.put(layer.bias().name(), new DenseFactor(a, d, cw, cb, Part.BIAS));
            }
        }
    }

    /** The forward (activation) Gram A1 A2ᵀ of Lou, Mingard &amp; Hayou, Equilibrium Hypothesis, Eq. 7. */
    @Override
    public NDArray forwardGram(LayerFactor other) {
        return a.matMul(((DenseFactor) other).a.transpose());
    }

    /** The backward Gram Σ_o δ_io·δ_jo of Lou, Mingard &amp; Hayou, Equilibrium Hypothesis, Eq. 7. */
    @Override
    public NDArray backwardGram(LayerFactor other) {
        return Grams.outputGram(d, ((DenseFactor) other).d, Mode.TRACE);
    }
}
