package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.natives.OneDnn;
import org.ntk4j.spec.ModelSpec;

/**
 * The structured kernel of a half-width ResNet-20 (stage widths 8, 16, 32: convolutions narrower than oneDNN's
 * 16-wide vector block) equals the per-sample Jacobian path, in float64 and in float32, on tiles of several samples.
 * Its narrow convolutions run with zero-padded filters ({@link OneDnn}); without them (-Dntk4j.onednn=on), the float32
 * structured kernel of this net was wrong by O(1) or NaN, run to run, because its probe pass backpropagates a tile
 * through the 8-channel convolutions at once (relative errors 0.02 and NaN in two runs of this test).
 *
 * <p>Tolerances: float64, the same sums in another order, 1e-10 as in {@code NtkCorrectnessTest}. float32: both paths
 * round ~10⁴-term sums of products in float32 (relative 1e-7 per operation, growing as √terms in the accumulation),
 * so 1e-4 relative is ample while the defect it guards against was an O(1) relative error.
 */
class ResNetCorrectnessTest {
    @Test
    void structuredEqualsJacobianOnANarrowResNet() {
        ModelSpec spec = ModelSpec.resolve("resnet20").toBuilder()
                .name("resnet20-w8")
                .channels(new int[] {8, 16, 32})
                .input(new int[] {1, 12, 12})
                .outputs(3)
                .build();
        for (DataType type : new DataType[] {DataType.FLOAT64, DataType.FLOAT32}) {
            try (NDManager m = NDManager.newBaseManager();
                    Network net = Network.build(spec, 7, m, type)) {
                assertTrue(!OneDnn.apply().equals("on"), "oneDNN is on with nothing padded: " + OneDnn.apply());
                Random r = new Random(5);
                float[] v = new float[6 * 144];
                for (int i = 0; i < v.length; i++) {
                    v[i] = (float) r.nextGaussian();
                }
                NDArray x =
                        m.create(v, new Shape(6, 1, 12, 12)).toType(type, false).duplicate();
                for (Mode mode : new Mode[] {Mode.FULL, Mode.TRACE}) {
                    Ntk s = Ntk.of(net).mode(mode).method(Method.STRUCTURED).tile(3);
                    Ntk j = Ntk.of(net).mode(mode).method(Method.JACOBIAN);
                    if (type == DataType.FLOAT64) {
                        s = s.float64();
                        j = j.float64();
                    }
                    KernelResult ks = s.compute(x);
                    KernelResult kj = j.compute(x);
                    double err = ks.total().relativeError(kj.total());
                    double tol = type == DataType.FLOAT64 ? 1e-10 : 1e-4;
                    assertTrue(err < tol, type + " " + mode + ": structured vs Jacobian relative error " + err);
                }
            }
        }
    }
}
