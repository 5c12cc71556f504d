package org.ntk4j.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.ntk4j.spec.Parameterization;

/**
 * The training step's fused dense layer (one addmm, {@link Forward#trainStep}) against the unfused matmul + add of
 * every other pass: the same outputs and the same gradients of W and b, in float64 to 1e-13 relative (the two
 * differ only in summation order), with and without a bias; the NTK parameterisation is not fused.
 */
class DenseFusedTest {
    @Test
    void fusedLinearMatchesMatmulPlusAddInValueAndGradient() {
        for (boolean bias : new boolean[] {true, false}) {
            try (NDManager m = NDManager.newBaseManager()) {
                Dense d = new Dense("d", 6, bias, Parameterization.STANDARD, WeightInit.TORCH_DEFAULT, 1, 0);
                d.initialize(m, DataType.FLOAT64, new Shape(9), new Random(3));
                Random r = new Random(4);
                double[] xs = new double[5 * 9];
                for (int i = 0; i < xs.length; i++) {
                    xs[i] = r.nextGaussian();
                }
                NDArray x = m.create(xs, new Shape(5, 9)).duplicate();
                double[][] plain = run(d, x, Forward.train(m), bias);
                double[][] fused = run(d, x, Forward.trainStep(m), bias);
                for (int k = 0; k < plain.length; k++) {
                    assertClose(plain[k], fused[k], "bias " + bias + ", array " + k);
                }
            }
        }
    }

    @Test
    void ntkParameterisationIsNotFused() {
        try (NDManager m = NDManager.newBaseManager()) {
            Dense d = new Dense("d", 4, true, Parameterization.NTK, WeightInit.LECUN, 1.5, 0.1);
            d.initialize(m, DataType.FLOAT64, new Shape(3), new Random(5));
            NDArray x = m.randomNormal(new Shape(2, 3), DataType.FLOAT64);
            double[] a = d.forward(x, Forward.train(m)).toDoubleArray();
            double[] b = d.forward(x, Forward.trainStep(m)).toDoubleArray();
            assertArrayEquals(a, b, 0.0); // the same operations, bit for bit
        }
    }

    /** [output, dL/dW, dL/db] for L = Σ y² / 2. */
    private static double[][] run(Dense d, NDArray x, Forward ctx, boolean bias) {
        NDArray w = d.weight().value();
        for (Param p : bias ? new Param[] {d.weight(), d.bias()} : new Param[] {d.weight()}) {
            NDArray v = p.value();
            if (v.hasGradient()) {
                NDArray g = v.getGradient();
                g.subi(g); // the previous pass's gradient
            } else {
                v.setRequiresGradient(true);
            }
        }
        try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
            NDArray y = d.forward(x, ctx);
            gc.backward(y.mul(y).sum().div(ctx.scalar(2, y)));
            double[] out = y.toDoubleArray();
            double[] gw = w.getGradient().toDoubleArray();
            double[] gb = bias ? d.bias().value().getGradient().toDoubleArray() : new double[0];
            return new double[][] {out, gw, gb};
        }
    }

    private static void assertClose(double[] a, double[] b, String what) {
        double scale = 0;
        for (double v : a) {
            scale = Math.max(scale, Math.abs(v));
        }
        for (int i = 0; i < a.length; i++) {
            assertTrue(Math.abs(a[i] - b[i]) <= 1e-13 * scale, what + " element " + i + ": " + a[i] + " vs " + b[i]);
        }
    }
}
