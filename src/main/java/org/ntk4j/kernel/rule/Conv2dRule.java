package org.ntk4j.kernel.rule;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import org.ntk4j.kernel.factor.FactorBuilder;
import org.ntk4j.model.Conv2d;
import org.ntk4j.model.TangentLayer;

/**
 * A 2-d convolution y = c_w·conv(W, a) + c_b·b (W: C_out × C_in·k², S output positions, U_i the
 * im2col patches of a_i, D_io ∈ R^{C_out×S} the output gradients). Two exact contractions
 * ({@link ConvFactor}), the cheaper by FLOPs unless forced:
 * <pre>ROWS:  Θ_W[(i,o),(j,p)] = c_w² ⟨D_io U_i, D_jp U_j⟩_F
 * PAIRS: Θ_W[(i,o),(j,p)] = c_w² Σ_{s,t} (D_io[:,s]·D_jp[:,t]) (U_i[s]·U_j[t])</pre>
 * plus the bias part c_b² Σ_c (Σ_s D_io[c,s])(Σ_t D_jp[c,t]). These are the "structured derivatives"
 * of a convolution (Novak, Sohl-Dickstein, Schoenholz 2022, "Fast Finite Width Neural Tangent
 * Kernel", §3.3 and Table 1: per-sample Jacobians from patches vs. the spatial pair contraction).
 * Subclasses map another convolution class onto the same geometry ({@link #geometry}).
 *
 * @param <L> the convolution layer type
 */
public abstract class Conv2dRule<L extends TangentLayer> implements TangentRule<L> {
    /** The rule for ntk4j's {@link Conv2d}. */
    public static Conv2dRule<Conv2d> ntk4j() {
        return new Conv2dRule<>() {
            @Override
            ConvGeometry geometry(Conv2d c) {
                return new ConvGeometry(
                        c.name(),
                        c.kernel(),
                        c.stride(),
                        c.padding(),
                        c.outputPositions(),
                        c.weight(),
                        c.bias(),
                        c.weightScale(),
                        c.biasScale());
            }
        };
    }

    static final String PAIRS = "pairs";
    static final String ROWS = "rows";

    /** The layer's kernel size, stride, padding, positions, parameters and scales. */
    abstract ConvGeometry geometry(L layer);

    @Override
    public String name() {
        return "conv2d";
    }

    @Override
    public RuleEstimate estimate(L layer, PlanContext ctx) {
        ConvGeometry g = geometry(layer);
        boolean pairs = ctx.convPairs() != null
                ? ctx.convPairs()
                : ConvFactor.pairsCheaper(g, ctx.outputs(), ctx.n1(), ctx.n2(), ctx.mode());
        long cout = g.weight().value().getShape().get(0);
        return new RuleEstimate(
                pairs ? PAIRS : ROWS,
                ConvFactor.flops(g, ctx.outputs(), ctx.n1(), ctx.n2(), ctx.mode(), pairs),
                ConvFactor.elementsPerSample(g, ctx.outputs(), pairs),
                ConvFactor.transientPerSample(g, pairs) + 3L * cout * g.positions());
    }

    @Override
    public FactorBuilder builder(L layer, RuleEstimate chosen, NDArray a, int outputs, NDManager keep) {
        return new ConvFactor.Builder(geometry(layer), a, PAIRS.equals(chosen.variant()), outputs, keep);
    }

    /** Per-sample conv gradients are what the Jacobian passes produce anyway: a mixed network reads them there. */
    @Override
    public boolean structuredBesideJacobian() {
        return false;
    }
}
