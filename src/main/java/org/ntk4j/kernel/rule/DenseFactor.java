package org.ntk4j.kernel.rule;

import ai.djl.ndarray.NDArray;
import org.ntk4j.kernel.factor.EngineOps;
import org.ntk4j.kernel.factor.FactorBuilder;
import org.ntk4j.kernel.factor.HadamardFactor;
import org.ntk4j.kernel.factor.LayerFactor;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.kernel.factor.RankOneRows;
import org.ntk4j.kernel.factor.RowViews;

/**
 * Tangent factors of a dense layer y = c_w·W a + c_b·b on a tile: the inputs A (n × in) and the
 * output gradients D (n × O × out), D[i,o,:] = ∂f_o(x_i)/∂y. Then (Lou, Mingard &amp; Hayou, Equilibrium Hypothesis,
 * Eq. 7, the forward∘backward factorisation; Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit, Eq. (19))
 * <pre>Θ_W[(i,o),(j,p)] = c_w² (a_i·a_j)(δ_io·δ_jp),   Θ_b[(i,o),(j,p)] = c_b² (δ_io·δ_jp),</pre>
 * at cost N1·N2·(in + O²·out) and no per-sample gradient ever formed.
 */
final class DenseFactor implements HadamardFactor, RankOneRows {
    /** Which parameters of the layer the factor stands for. */
    enum Part {
        ALL,
        WEIGHT,
        BIAS
    }

    /** The layer input A (n × in), for the forward Gram. */
    private final NDArray a;
    /** c_w·A, the weight scale folded in once per tile (A itself when c_w = 1). */
    private final NDArray aw;

    private final RowViews d;
    private final double cb2;
    private final Part part;
    private NDArray awT;
    private NDArray cb2Scalar;

    DenseFactor(NDArray a, NDArray aw, RowViews d, double cb, Part part) {
        this.a = a;
        this.aw = aw;
        this.d = d;
        this.cb2 = cb * cb;
        this.part = part;
    }

    /**
     * Θ_l block (n1, n2[, O[, O]]) in four engine calls: G_A = (c_w A1)(c_w A2)ᵀ, G_A += c_b² in place, G_Δ = Δ1 Δ2ᵀ
     * per mode, G_Δ ⊙= G_A in place (broadcast over the output axes): the weight and bias parts fused,
     * (c_w² a_i·a_j + c_b²)(δ_io·δ_jp).
     */
    @Override
    public NDArray contract(LayerFactor other, Mode mode) {
        DenseFactor o = (DenseFactor) other;
        NDArray gd = d.gram(o.d, mode);
        if (part == Part.BIAS) {
            return cb2 == 1 ? gd : EngineOps.mulInPlace(gd, cb2());
        }
        NDArray ga = aw.matMul(o.awT());
        if (part == Part.ALL && cb2 != 0) {
            EngineOps.addInPlace(ga, cb2());
        }
        if (mode == Mode.TRACE) {
            EngineOps.mulInPlace(gd, ga);
        } else {
            try (NDArray b = mode == Mode.DIAGONAL
                    ? ga.reshape(ga.getShape().get(0), ga.getShape().get(1), 1)
                    : ga.reshape(ga.getShape().get(0), ga.getShape().get(1), 1, 1)) {
                EngineOps.mulInPlace(gd, b);
            }
        }
        ga.close();
        return gd;
    }

    private NDArray awT() {
        if (awT == null) {
            awT = EngineOps.keep(aw.transpose());
        }
        return awT;
    }

    private NDArray cb2() {
        if (cb2Scalar == null) {
            cb2Scalar = EngineOps.scalar(aw, cb2);
        }
        return cb2Scalar;
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

        /** Keeps all outputs' gradients (n, O, out) as they are: they are the factor D, no copy. */
        @Override
        public void acceptAll(NDArray all) {
            all.attach(keep);
            ai.djl.ndarray.NDScope.unregister(all);
            d = all;
        }

        @Override
        public void finish(java.util.Map<String, LayerFactor> out, boolean parts) {
            double cw = layer.weightScale();
            double cb = layer.biasScale();
            NDArray aw = a;
            if (cw != 1) {
                try (NDArray s = EngineOps.scalar(a, cw)) {
                    aw = a.mul(s);
                }
                EngineOps.keep(aw);
            }
            RowViews dv = new RowViews(d);
            if (!parts) {
                out.put(name, new DenseFactor(a, aw, dv, cb, Part.ALL));
                return;
            }
            out.put(layer.weight().name(), new DenseFactor(a, aw, dv, cb, Part.WEIGHT));
            if (layer.bias() != null) {
                out.put(layer.bias().name(), new DenseFactor(a, aw, dv, cb, Part.BIAS));
            }
        }
    }

    @Override
    public NDArray inputs() {
        return a;
    }

    @Override
    public NDArray outputGradients() {
        return d.rows();
    }

    /** The forward (activation) Gram A1 A2ᵀ of Lou, Mingard &amp; Hayou, Equilibrium Hypothesis, Eq. 7. */
    @Override
    public NDArray forwardGram(LayerFactor other) {
        return a.matMul(((DenseFactor) other).a.transpose());
    }

    /** The backward Gram Σ_o δ_io·δ_jo of Lou, Mingard &amp; Hayou, Equilibrium Hypothesis, Eq. 7. */
    @Override
    public NDArray backwardGram(LayerFactor other) {
        return d.gram(((DenseFactor) other).d, Mode.TRACE);
    }
}
