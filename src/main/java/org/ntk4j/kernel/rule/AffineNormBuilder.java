package org.ntk4j.kernel.rule;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.ntk4j.kernel.factor.FactorBuilder;
import org.ntk4j.kernel.factor.JacobianFactor;
import org.ntk4j.kernel.factor.LayerFactor;
import org.ntk4j.model.TangentLayer;

/**
 * Per-sample rows of an affine normalisation y = γ ⊙ x̂ + β (batch-norm in eval mode, layer-norm),
 * from the normalised input x̂ the layer hands its probe: per output o,
 * ∂f_o(x_i)/∂γ_c = Σ_p δ_io[c,p]·x̂_i[c,p] and ∂f_o(x_i)/∂β_c = Σ_p δ_io[c,p], p over the positions
 * that share γ_c. These rows are the layer's Jacobian (P_l = 2C is small), contracted as
 * {@link JacobianFactor}s.
 */
final class AffineNormBuilder extends FactorBuilder {
    private final TangentLayer layer;
    private final NDArray xhat;
    private final UnaryOperator<NDArray> layout;
    private final int[] positionAxes;
    private NDArray gg;
    private NDArray gb;

    /**
     * @param layout reshapes δ and x̂ so that γ's index is one axis (identity for (n, C, H, W))
     * @param positionAxes the axes (after {@code layout}) summed over: those sharing one γ_c
     */
    AffineNormBuilder(
            TangentLayer layer,
            NDArray xhat,
            int outputs,
            NDManager keep,
            UnaryOperator<NDArray> layout,
            int[] positionAxes) {
        super(keep, outputs);
        this.layer = layer;
        this.xhat = layout.apply(xhat);
        this.layout = layout;
        this.positionAxes = positionAxes;
    }

    @Override
    public void accept(int o, NDArray g) {
        NDArray gl = layout.apply(g);
        long c = layer.weight().value().size();
        if (gg == null) {
            gg = buffer(g, c);
            gb = buffer(g, c);
        }
        put(gg, o, gl.mul(xhat).sum(positionAxes));
        put(gb, o, gl.sum(positionAxes));
    }

    @Override
    public void finish(Map<String, LayerFactor> out, boolean parts) {
        if (parts) {
            out.put(layer.weight().name(), new JacobianFactor(gg));
            out.put(layer.bias().name(), new JacobianFactor(gb));
        } else {
            out.put(layer.name(), new JacobianFactor(NDArrays.concat(new NDList(gg, gb), 2)));
            gg.close();
            gb.close();
        }
    }
}
