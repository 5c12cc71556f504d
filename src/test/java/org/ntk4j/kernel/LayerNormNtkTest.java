package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Activation;
import org.ntk4j.model.Dense;
import org.ntk4j.model.Flatten;
import org.ntk4j.model.LayerNorm;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.model.Sequential;
import org.ntk4j.model.WeightInit;
import org.ntk4j.spec.ActivationKind;
import org.ntk4j.spec.Parameterization;
import org.ntk4j.testing.FiniteDifferences;

/**
 * The layer-norm rule (kernel.rule.LayerNormRule), added as one layer, one rule and one registry line,
 * against the Jacobian path, and the Jacobian path against central finite differences, in float64, on
 * input (2, 3) → LayerNorm over 3 (two positions per sample) → flatten → dense 7 → LayerNorm over 7
 * → tanh → dense 3, with γ and β drawn at random so no factor hides behind γ = 1, β = 0.
 *
 * <p>Tolerances as in {@link NtkCorrectnessTest}: rule vs Jacobian are the same sums in another order
 * (1e-10 relative); finite differences with h = 1e-5 on a smooth net, 1e-7 relative.
 */
class LayerNormNtkTest {
    static NDManager manager;

    @BeforeAll
    static void setUp() {
        manager = NDManager.newBaseManager();
    }

    @AfterAll
    static void tearDown() {
        manager.close();
    }

    static Network net() {
        Sequential root = new Sequential("ln-mlp")
                .add(new LayerNorm("ln0"))
                .add(new Flatten("flatten"))
                .add(new Dense("dense1", 7, true, Parameterization.NTK, WeightInit.GAUSSIAN, 1.3, 0.4))
                .add(new LayerNorm("ln1"))
                .add(new Activation("act1", ActivationKind.TANH))
                .add(new Dense("dense2", 3, true, Parameterization.STANDARD, WeightInit.GAUSSIAN, 1.0, 0.3));
        Network n = Network.of("ln-mlp", root, new Shape(2, 3), 7, manager, DataType.FLOAT64);
        Random r = new Random(3);
        for (Module l : n.parameterLayers()) {
            if (l instanceof LayerNorm ln) {
                ln.gamma()
                        .set(Module.create64(manager, gaussian(r, ln.features(), 1.0, 0.5), new Shape(ln.features())));
                ln.beta().set(Module.create64(manager, gaussian(r, ln.features(), 0.0, 0.5), new Shape(ln.features())));
            }
        }
        return n;
    }

    static double[] gaussian(Random r, long n, double mean, double std) {
        double[] v = new double[(int) n];
        for (int i = 0; i < v.length; i++) {
            v[i] = mean + std * r.nextGaussian();
        }
        return v;
    }

    static NDArray inputs(int n, long seed) {
        return manager.create(gaussian(new Random(seed), n * 6L, 0, 1), new Shape(n, 2, 3))
                .duplicate();
    }

    @Test
    void planUsesTheLayerNormRule() {
        try (Network net = net()) {
            NtkPlan plan = Ntk.of(net).plan(4, 3);
            assertEquals(
                    List.of("ln0", "dense1", "ln1", "dense2"),
                    plan.layers().stream().map(LayerPlan::name).toList());
            for (String ln : List.of("ln0", "ln1")) {
                assertEquals("layernorm", plan.layer(ln).ruleName());
                assertEquals(Method.STRUCTURED, plan.layer(ln).method(), plan.explain());
            }
            assertTrue(plan.explain().contains("ln1: structured (structured "), plan.explain());
        }
    }

    @Test
    void ruleMatchesJacobianInEveryModePerLayerAndPerParameter() {
        try (Network net = net()) {
            NDArray x1 = inputs(5, 1);
            NDArray x2 = inputs(4, 2);
            double worst = 0;
            for (Mode mode : Mode.values()) {
                for (boolean symmetric : new boolean[] {true, false}) {
                    for (boolean parts : new boolean[] {false, true}) {
                        NDArray b = symmetric ? null : x2;
                        Ntk s = Ntk.of(net)
                                .mode(mode)
                                .method(Method.STRUCTURED)
                                .perLayer()
                                .float64()
                                .memory(6000);
                        Ntk j = Ntk.of(net)
                                .mode(mode)
                                .method(Method.JACOBIAN)
                                .perLayer()
                                .float64();
                        if (parts) {
                            s.parameterParts();
                            j.parameterParts();
                        }
                        KernelResult ks = s.compute(x1, b);
                        KernelResult kj = j.compute(x1, b);
                        String what = mode + (symmetric ? " X1=X1" : " X1≠X2") + (parts ? " parts" : " layers");
                        worst = Math.max(worst, ks.total().relativeError(kj.total()));
                        assertTrue(
                                kj.total().relativeError(ks.total()) < 1e-10,
                                what + ": total rel err " + ks.total().relativeError(kj.total()));
                        assertEquals(kj.layers().keySet(), ks.layers().keySet(), what);
                        assertEquals(parts ? 8 : 4, ks.layers().size(), what);
                        for (String key : kj.layers().keySet()) {
                            double err = ks.layers()
                                    .get(key)
                                    .relativeError(kj.layers().get(key));
                            worst = Math.max(worst, err);
                            assertTrue(err < 1e-10, what + " " + key + ": rel err " + err);
                        }
                    }
                }
            }
            System.out.printf("layer-norm rule vs jacobian: worst relative error %.2e%n", worst);
        }
    }

    @Test
    void jacobianMatchesFiniteDifferences() {
        try (Network net = net()) {
            NDArray x1 = inputs(3, 4);
            NDArray x2 = inputs(2, 5);
            KernelResult k = Ntk.of(net)
                    .mode(Mode.FULL)
                    .method(Method.JACOBIAN)
                    .float64()
                    .compute(x1, x2);
            double[][][][] fd = FiniteDifferences.ntk(net, x1, x2, 1e-5, manager);
            FiniteDifferences.Gap gap = FiniteDifferences.gap(k.total(), fd);
            double maxDiff = gap.maxDiff();
            double maxRef = gap.maxRef();
            System.out.printf(
                    "layer-norm net, jacobian vs finite differences: relative error %.2e%n", maxDiff / maxRef);
            assertTrue(maxRef > 0.1, "kernel should be non-trivial");
            assertTrue(maxDiff / maxRef < 1e-7, "jacobian vs finite differences: relative error " + maxDiff / maxRef);
        }
    }
}
