package org.ntk4j.kernel.rule;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;

/**
 * The im2col patches of {@link ConvFactor}. Patches come from padding the input and stacking
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
            ap = a.getManager()
                    .zeros(
                            new Shape(sh.get(0), sh.get(1), sh.get(2) + 2L * pad, sh.get(3) + 2L * pad),
                            a.getDataType(),
                            a.getDevice());
            ap.set(new NDIndex(":, :, {}:{}, {}:{}", pad, pad + sh.get(2), pad, pad + sh.get(3)), a);
        }
        NDList slices = new NDList();
        for (int u = 0; u < k; u++) {
            for (int v = 0; v < k; v++) {
                slices.add(ap.get(new NDIndex(
                        ":, :, {}:{}:{}, {}:{}:{}",
                        u,
                        u + stride * (ho - 1) + 1,
                        stride,
                        v,
                        v + stride * (wo - 1) + 1,
                        stride)));
            }
        }
        return NDArrays.stack(slices, 2);
    }
}
