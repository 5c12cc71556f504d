package org.ntk4j.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.GradientCollector;
import org.junit.jupiter.api.Test;
import org.ntk4j.natives.OneDnn;

/**
 * The batched float32 convolution of ntk4j's layers has the per-sample (libtorch's own kernel) and float64 input and
 * weight gradients, at output channel counts that are and are not multiples of oneDNN's vector block, with oneDNN on
 * as libtorch has it. Without the zero filters of {@link PaddedConv}, libtorch 2.7.1's oneDNN fails this for 3×3
 * convolutions with 3, 4, 6, 8 or 12 output channels on an AVX-512 machine (errors 0.4-1.0 of the gradients' scale, or
 * NaN, run-dependent; 8→16, 16→32 and 1×1 layers were right): the cause of the wrong, sometimes NaN structured kernels of
 * the half-width ResNet-20, whose probe pass backpropagates through 8-channel convolutions on a tile of samples.
 *
 * <p>Tolerance: float32 rounding of a 9·C_in-term sum of O(1) products, 1e-5 of the gradients' scale (measured ≤ 1e-6).
 */
class PaddedConvTest {
    @Test
    void batchedGradientsEqualPerSampleOnes() {
        assumeTrue(System.getenv("NTK4J_ONEDNN") == null && System.getProperty(OneDnn.PROPERTY) == null);
        assertEquals(OneDnn.AUTO, OneDnn.apply());
        // {C_in, C_out, kernel, stride, size}
        int[][] configs = {
            {8, 8, 3, 1, 28},
            {4, 4, 3, 1, 28},
            {12, 12, 3, 1, 20},
            {3, 3, 3, 1, 32},
            {16, 8, 3, 1, 14},
            {8, 16, 3, 2, 28},
            {16, 16, 3, 1, 14},
            {32, 32, 3, 1, 7},
            {24, 12, 1, 1, 8}
        };
        for (int[] c : configs) {
            try (NDManager m = NDManager.newBaseManager()) {
                Engine.getInstance().setRandomSeed(1);
                int n = 4;
                int k = c[2];
                int pad = PaddedConv.padChannels(k, k, c[1]);
                NDArray x = m.randomNormal(new Shape(n, c[0], c[4], c[4]));
                NDArray w0 = m.randomNormal(new Shape(c[1], c[0], k, k)).mul(m.full(new Shape(), 0.1f));
                long out = (c[4] + 2L * (k / 2) - k) / c[3] + 1;
                NDArray seed = m.randomNormal(new Shape(n, c[1], out, out));
                Grads batch = grads(m, x, w0, seed, c[3], k / 2, pad);
                Grads f64 = grads(
                        m,
                        x.toType(DataType.FLOAT64, true),
                        w0.toType(DataType.FLOAT64, true),
                        seed.toType(DataType.FLOAT64, true),
                        c[3],
                        k / 2,
                        pad);
                NDArray[] dx = new NDArray[n];
                NDArray dw = null;
                for (int i = 0; i < n; i++) {
                    NDIndex one = new NDIndex("{}:{}", i, i + 1);
                    Grads g = grads(m, x.get(one), w0, seed.get(one), c[3], k / 2, pad);
                    dx[i] = g.dx();
                    dw = dw == null ? g.dw() : dw.add(g.dw());
                }
                String what = c[0] + "->" + c[1] + " " + k + "x" + k + " stride " + c[3];
                close(what + " dx vs per-sample", batch.dx(), NDArrays.concat(new NDList(dx)));
                close(what + " dx vs float64", batch.dx(), f64.dx().toType(DataType.FLOAT32, true));
                close(what + " dW vs per-sample", batch.dw(), dw);
                close(what + " dW vs float64", batch.dw(), f64.dw().toType(DataType.FLOAT32, true));
            }
        }
    }

    private record Grads(NDArray dx, NDArray dw) {}

    private static Grads grads(NDManager m, NDArray x, NDArray w0, NDArray seed, int stride, int padding, int pad) {
        try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
            NDArray z = m.zeros(x.getShape(), x.getDataType());
            z.setRequiresGradient(true);
            NDArray w = w0.duplicate();
            w.setRequiresGradient(true);
            NDArray y = PaddedConv.convolve(x.add(z), w, null, stride, padding, pad, Forward.eval(m));
            JniUtils.backward((PtNDArray) y, (PtNDArray) seed, false, false);
            return new Grads(z.getGradient().duplicate(), w.getGradient().duplicate());
        }
    }

    private static void close(String what, NDArray a, NDArray ref) {
        float scale = ref.abs().max().getFloat();
        float diff = a.sub(ref).abs().max().getFloat();
        assertTrue(diff <= 1e-5f * scale, what + ": max difference " + diff + " at scale " + scale);
    }
}
