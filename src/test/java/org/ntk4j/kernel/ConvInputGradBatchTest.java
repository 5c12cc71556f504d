package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.GradientCollector;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * The input gradient of a 3×3, stride-1, padding-1 float32 convolution on a batch of 4 equals the per-sample input
 * gradients and the float64 one. Fails with libtorch 2.7.1 (DJL 0.35, CPU) for 8 channels at 28×28 in about two runs
 * of three (max error 1.5-2.6 on gradients of size 3.3; 16 ch 14×14 and 32 ch 7×7 agree to 2e-6): the cause of the
 * wrong, run-dependent and sometimes NaN structured kernels of the half-width ResNet-20 on MNIST, whose probe pass
 * backpropagates through such convolutions on a tile of samples while the Jacobian path runs one sample at a time.
 */
@Disabled("libtorch 2.7.1 CPU: the batched float32 conv input gradient (8 ch, 28x28) is wrong; see the class comment")
class ConvInputGradBatchTest {
    @Test
    void batchedInputGradientMatchesPerSample() {
        for (long[] cfg : new long[][] {{8, 28}, {16, 14}, {32, 7}}) {
            try (NDManager m = NDManager.newBaseManager()) {
                long c = cfg[0];
                long h = cfg[1];
                int n = 4;
                Engine.getInstance().setRandomSeed(1);
                NDArray x = m.randomNormal(new Shape(n, c, h, h));
                NDArray w = m.randomNormal(new Shape(c, c, 3, 3)).mul(m.full(new Shape(), 0.1f));
                NDArray seed = m.randomNormal(new Shape(n, c, h, h));
                NDArray gBatch;
                NDArray g64;
                NDArray[] gOne = new NDArray[n];
                try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                    NDArray z = m.zeros(x.getShape(), DataType.FLOAT32);
                    z.setRequiresGradient(true);
                    NDArray y = conv(x.add(z), w);
                    JniUtils.backward((PtNDArray) y, (PtNDArray) seed, false, false);
                    gBatch = z.getGradient().duplicate();
                    NDArray z64 = m.zeros(x.getShape(), DataType.FLOAT64);
                    z64.setRequiresGradient(true);
                    NDArray y64 = conv(x.toType(DataType.FLOAT64, true).add(z64), w.toType(DataType.FLOAT64, true));
                    JniUtils.backward((PtNDArray) y64, (PtNDArray) seed.toType(DataType.FLOAT64, true), false, false);
                    g64 = z64.getGradient().toType(DataType.FLOAT32, true);
                    for (int i = 0; i < n; i++) {
                        NDArray zi = m.zeros(new Shape(1, c, h, h), DataType.FLOAT32);
                        zi.setRequiresGradient(true);
                        NDArray yi = conv(x.get(new NDIndex("{}:{}", i, i + 1)).add(zi), w);
                        JniUtils.backward(
                                (PtNDArray) yi, (PtNDArray) seed.get(new NDIndex("{}:{}", i, i + 1)), false, false);
                        gOne[i] = zi.getGradient().duplicate();
                    }
                }
                NDArray ref = ai.djl.ndarray.NDArrays.concat(new ai.djl.ndarray.NDList(gOne));
                float diff = gBatch.sub(ref).abs().max().getFloat();
                float scale = ref.abs().max().getFloat();
                float err64 = gBatch.sub(g64).abs().max().getFloat();
                // float32 rounding of a 72-term sum of O(1) products: 1e-4 of the gradients' scale is ample
                assertTrue(
                        err64 <= 1e-4f * scale,
                        "c=" + c + " h=" + h + ": batched vs float64 input gradient differ by " + err64);
                System.out.println("CONVGRAD c=" + c + " h=" + h + " max|batch-perSample|=" + diff + " scale=" + scale
                        + " nan=" + gBatch.isNaN().sum().getLong() + " |batch-f64|="
                        + gBatch.sub(g64).abs().max().getFloat()
                        + " |perSample-f64|=" + ref.sub(g64).abs().max().getFloat());
            }
        }
    }

    private static NDArray conv(NDArray x, NDArray w) {
        return JniUtils.convolution(
                (PtNDArray) x, (PtNDArray) w, null, new Shape(1, 1), new Shape(1, 1), new Shape(1, 1), 1);
    }
}
