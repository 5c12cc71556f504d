package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.ntk4j.kernel.factor.FactorBuilder;
import org.ntk4j.kernel.factor.JacobianFactor;
import org.ntk4j.kernel.factor.LayerFactor;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.kernel.rule.PlanContext;
import org.ntk4j.kernel.rule.RuleEstimate;
import org.ntk4j.kernel.rule.TangentRule;
import org.ntk4j.kernel.rule.TangentRules;
import org.ntk4j.model.Activation;
import org.ntk4j.model.Dense;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.model.Sequential;
import org.ntk4j.model.TangentLayer;
import org.ntk4j.model.WeightInit;
import org.ntk4j.spec.ActivationKind;
import org.ntk4j.spec.Parameterization;

/**
 * The rule registry from a user's side: a layer implementing {@link TangentLayer} with no rule takes
 * the Jacobian path under every method (it crashed before), and once the user registers a rule for it
 * from outside the kernel package, the structured path equals the Jacobian one (float64, 1e-10).
 */
class TangentRulesTest {
    /** y = w ⊙ x: a user's layer, tappable, unknown to ntk4j. */
    static final class Scale extends Module implements TangentLayer {
        private final Param w = param("w", Param.Role.WEIGHT);

        Scale(String name) {
            super(name);
        }

        @Override
        public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
            double[] v = new double[(int) in.get(0)];
            for (int i = 0; i < v.length; i++) {
                v[i] = 1 + 0.5 * rng.nextGaussian();
            }
            w.set(create64(m, v, in));
            return in;
        }

        @Override
        public NDArray forward(NDArray x, Forward ctx) {
            NDArray y = x.mul(w.value());
            return ctx.probe() == null ? y : ctx.probe().tap(this, x, y);
        }

        @Override
        public double weightScale() {
            return 1;
        }

        @Override
        public double biasScale() {
            return 0;
        }

        @Override
        public Param weight() {
            return w;
        }

        @Override
        public Param bias() {
            return null;
        }
    }

    /** The user's rule: ∂f_o(x_i)/∂w_d = δ_io[d]·x_i[d], per-sample rows. */
    static final class ScaleRule implements TangentRule<Scale> {
        @Override
        public String name() {
            return "scale";
        }

        @Override
        public RuleEstimate estimate(Scale s, PlanContext ctx) {
            long d = s.weight().size();
            return RuleEstimate.of(ctx.rowGramFlops(d), ctx.outputs() * d, 3 * d);
        }

        @Override
        public FactorBuilder builder(Scale s, RuleEstimate chosen, NDArray x, int outputs, NDManager keep) {
            return new FactorBuilder(keep, outputs) {
                NDArray rows;

                @Override
                public void accept(int o, NDArray g) {
                    if (rows == null) {
                        rows = buffer(g, g.getShape().get(1));
                    }
                    put(rows, o, g.mul(x));
                }

                @Override
                public void finish(Map<String, LayerFactor> out, boolean parts) {
                    out.put(parts ? s.weight().name() : s.name(), new JacobianFactor(rows));
                }
            };
        }
    }

    static Network net(NDManager m) {
        Sequential root = new Sequential("scaled")
                .add(new Dense("dense1", 5, true, Parameterization.STANDARD, WeightInit.LECUN, 1, 0.2))
                .add(new Scale("scale"))
                .add(new Activation("act", ActivationKind.TANH))
                .add(new Dense("dense2", 2, true, Parameterization.STANDARD, WeightInit.LECUN, 1, 0.2));
        return Network.of("scaled", root, new Shape(4), 1, m, DataType.FLOAT64);
    }

    @Test
    void unknownTangentLayerFallsBackToJacobianThenUsesARegisteredRule() {
        try (NDManager m = NDManager.newBaseManager();
                Network net = net(m)) {
            double[] v = new double[6 * 4];
            Random r = new Random(2);
            for (int i = 0; i < v.length; i++) {
                v[i] = r.nextGaussian();
            }
            NDArray x = m.create(v, new Shape(6, 4)).duplicate();
            assertNull(TangentRules.find(net.parameterLayers().get(1)));
            KernelResult jac = Ntk.of(net)
                    .mode(Mode.FULL)
                    .method(Method.JACOBIAN)
                    .perLayer()
                    .float64()
                    .compute(x);
            // forced STRUCTURED is refused in one sentence naming the layer; AUTO and JACOBIAN fall back
            org.ntk4j.UserException forced = org.junit.jupiter.api.Assertions.assertThrows(
                    org.ntk4j.UserException.class,
                    () -> Ntk.of(net).method(Method.STRUCTURED).float64().compute(x));
            assertTrue(
                    forced.getMessage().contains("layer scale cannot take it (no tangent rule for Scale)"),
                    forced.getMessage());
            for (Method method : List.of(Method.AUTO, Method.JACOBIAN)) {
                KernelResult k = Ntk.of(net)
                        .mode(Mode.FULL)
                        .method(method)
                        .perLayer()
                        .float64()
                        .compute(x);
                LayerPlan p = k.plan().layer("scale");
                assertEquals(Method.JACOBIAN, p.method(), method.toString());
                assertEquals("jacobian", p.ruleName());
                assertTrue(
                        k.methods().get("scale").startsWith("jacobian (")
                                && p.reason().equals("no tangent rule for Scale"),
                        k.plan().explain());
                assertTrue(k.total().relativeError(jac.total()) < 1e-10, method.toString());
            }

            TangentRules.register(Scale.class, new ScaleRule());
            KernelResult s = Ntk.of(net)
                    .mode(Mode.FULL)
                    .method(Method.AUTO)
                    .perLayer()
                    .float64()
                    .compute(x);
            assertTrue(
                    s.plan().layers().stream().allMatch(LayerPlan::structured),
                    s.plan().explain());
            assertEquals("scale", s.plan().layer("scale").ruleName());
            assertTrue(
                    s.total().relativeError(jac.total()) < 1e-10,
                    "total " + s.total().relativeError(jac.total()));
            for (String key : jac.layers().keySet()) {
                assertTrue(s.layers().get(key).relativeError(jac.layers().get(key)) < 1e-10, key);
            }
        }
    }

    @Test
    void optionsRecordDrivesTheSameKernelAsTheFluentApi() {
        try (NDManager m = NDManager.newBaseManager();
                Network net = net(m)) {
            NDArray x = m.randomNormal(new Shape(3, 4), DataType.FLOAT64);
            NtkOptions o = Ntk.options()
                    .mode(Mode.DIAGONAL)
                    .method(Method.AUTO)
                    .perLayer(true)
                    .float64(true)
                    .build();
            KernelResult a = Ntk.of(net, o).compute(x);
            KernelResult b = Ntk.of(net)
                    .mode(Mode.DIAGONAL)
                    .method(Method.AUTO)
                    .perLayer()
                    .float64()
                    .compute(x);
            assertEquals(
                    o,
                    Ntk.of(net)
                            .mode(Mode.DIAGONAL)
                            .method(Method.AUTO)
                            .perLayer()
                            .float64()
                            .toOptions());
            assertEquals(0.0, a.total().relativeError(b.total()));
            assertEquals(b.layers().keySet(), a.layers().keySet());
            assertEquals(b.methods(), a.methods());
        }
    }

    /** --explain states the backward passes each method pays, not only the contractions (issue: an incomplete cost). */
    @Test
    void explainStatesTheBackwardPassesOfBothMethods() {
        try (NDManager m = NDManager.newBaseManager();
                Network net = net(m)) {
            String auto = Ntk.of(net).plan(7, 7).explain();
            int o = net.outputs();
            assertTrue(auto.contains("structured " + o + " batched passes per tile"), auto);
            assertTrue(auto.contains("(" + 7 * o + " for X1 alone"), auto);
            // "scale" has no rule, so AUTO pays the per-sample passes and keeps the dense layers structured
            assertTrue(auto.contains("this plan pays both"), auto);
            String jac = Ntk.of(net).method(Method.JACOBIAN).plan(7, 7).explain();
            assertTrue(jac.contains("this plan pays the jacobian passes only"), jac);
        }
    }
}
