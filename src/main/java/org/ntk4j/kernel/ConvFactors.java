package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.index.NDIndex;
import java.util.Map;

/**
 * Helpers of the convolutional tangent factors: im2col patches for {@link ConvFactor}, and the
 * per-sample γ/β rows of eval-mode batch-norm. Patches come from padding the input and stacking
 * its k² shifted, strided slices (a one-hot filter-bank convolution gives the same patches at
 * O(C_in²k⁴) more arithmetic), with patch index (c, u, v) ↦ c·k² + u·k + v matching W's flattening.
 */
final class ConvFactors {
    private ConvFactors() {}

    /**
     * im2col by padding plus k² shifted strided slices: (n, C_in, k·k, H', W') with
     * P[i, c, u·k+v, h, w] = a_pad[i, c, s·h + u, s·w + v]; memory moves only, no arithmetic.
     */
    static NDArray im2col(NDArray a, int k, int stride, int pad, long ho, long wo) {
        Shape sh = a.getShape();
        NDArray ap = a;
        if (pad > 0) {
            ap = a.getManager().zeros(new Shape(sh.get(0), sh.get(1), sh.get(2) + 2L * pad, sh.get(3) + 2L * pad),
                    a.getDataType(), a.getDevice());
            ap.set(new NDIndex(":, :, {}:{}, {}:{}", pad, pad + sh.get(2), pad, pad + sh.get(3)), a);
        }
        NDList slices = new NDList();
        for (int u = 0; u < k; u++) {
            for (int v = 0; v < k; v++) {
                slices.add(ap.get(new NDIndex(":, :, {}:{}:{}, {}:{}:{}", u, u + stride * (ho - 1) + 1, stride,
                        v, v + stride * (wo - 1) + 1, stride)));
            }
        }
        return NDArrays.stack(slices, 2);
    }

    /**
     * Eval-mode batch-norm y = γ·x̂ + β from the normalised input x̂ (n, C, H, W): per output o the
     * per-sample rows ∂f_o(x_i)/∂γ_c = Σ_p δ_io[c,p]·x̂_i[c,p] and ∂f_o(x_i)/∂β_c = Σ_p δ_io[c,p],
     * contracted like Jacobian rows.
     */
    static final class BatchNormBuilder extends FactorBuilder {
        private final org.ntk4j.model.BatchNorm2d bn;
        private final NDArray xhat;
        private NDArray gg;
        private NDArray gb;

        BatchNormBuilder(org.ntk4j.model.BatchNorm2d bn, NDArray xhat, int outputs, ai.djl.ndarray.NDManager keep) {
            super(keep, outputs);
            this.bn = bn;
            this.xhat = xhat;
        }

        @Override
        void accept(int o, NDArray g) {
            if (gg == null) {
                gg = buffer(g, g.getShape().get(1));
                gb = buffer(g, g.getShape().get(1));
            }
            put(gg, o, g.mul(xhat).sum(new int[] {2, 3}));
            put(gb, o, g.sum(new int[] {2, 3}));
        }

        @Override
        void finish(Map<String, LayerFactor> out, boolean parts) {
            if (parts) {
                out.put(bn.gamma().name(), new JacobianFactor(gg));
                out.put(bn.beta().name(), new JacobianFactor(gb));
            } else {
                out.put(bn.name(), new JacobianFactor(NDArrays.concat(new NDList(gg, gb), 2)));
                gg.close();
                gb.close();
            }
        }
    }
}
