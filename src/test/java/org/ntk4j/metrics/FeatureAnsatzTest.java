package org.ntk4j.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.BaseNDManager;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.SequentialBlock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.ntk4j.UserException;
import org.ntk4j.model.Dense;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.testing.FiniteDifferences;
import org.ntk4j.theory.NfcPredictor;

/**
 * The feature ansatz of Feature Learning as Alignment (anon.) (§2–3) against its definitions and closed forms, in
 * float64.
 *
 * <p>Tolerances. Finite differences (step 1e-5) on smooth nets: truncation ~h²|f'''| ≈ 1e-10 and
 * rounding ~1e-16/h ≈ 1e-11 per derivative, so 1e-7 relative is safe while any wrong factor (c_w, κ,
 * 1/n, a missing output) is an O(1) error. Exact identities computed two ways in float64: 1e-12.
 */
class FeatureAnsatzTest {
    static NDManager manager;

    @BeforeAll
    static void setUp() {
        manager = NDManager.newBaseManager();
    }

    @AfterAll
    static void tearDown() {
        manager.close();
    }

    static Network mlp(String json, DataType type) {
        return Network.build(ModelSpec.parse(json, "test"), 42, manager, type);
    }

    /** Input [2,3] → widths [5,4] → 3 outputs, output scale κ = 0.7. */
    static Network deep(String activation, String param, boolean bias) {
        return mlp(
                "{\"arch\":\"mlp\",\"input\":[2,3],\"widths\":[5,4],\"outputs\":3,\"activation\":\"" + activation
                        + "\",\"parameterization\":\"" + param + "\",\"sigmaW\":1.3,\"sigmaB\":0.4,\"bias\":" + bias
                        + ",\"outputScale\":0.7}",
                DataType.FLOAT64);
    }

    static NDArray gaussian(long seed, long... shape) {
        Random r = new Random(seed);
        Shape s = new Shape(shape);
        double[] v = new double[(int) s.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = r.nextGaussian();
        }
        return Module.create64(manager, v, s);
    }

    static double relativeError(DMatrixRMaj got, DMatrixRMaj want) {
        DMatrixRMaj d = got.copy();
        CommonOps_DDRM.subtractEquals(d, want);
        return CommonOps_DDRM.elementMaxAbs(d) / CommonOps_DDRM.elementMaxAbs(want);
    }

    /** (1/n) Σ_α Σ_o g[α][o] g[α][o]ᵀ. */
    static DMatrixRMaj outerProductMean(double[][][] g) {
        int n = g.length;
        int d = g[0][0].length;
        DMatrixRMaj m = new DMatrixRMaj(d, d);
        for (double[][] sample : g) {
            for (double[] row : sample) {
                for (int i = 0; i < d; i++) {
                    for (int j = 0; j < d; j++) {
                        m.add(i, j, row[i] * row[j] / n);
                    }
                }
            }
        }
        return m;
    }

    static int childIndex(Network net, String name) {
        List<Module> c = net.root().children();
        for (int i = 0; i < c.size(); i++) {
            if (c.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new AssertionError(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"tanh:ntk:true", "quadratic:standard:false", "erf:ntk:false"})
    void agopAndPtkCovarianceMatchFiniteDifferencesOfTheOutput(String config) {
        String[] c = config.split(":");
        try (Network net = deep(c[0], c[1], Boolean.parseBoolean(c[2]))) {
            NDArray x = gaussian(1, 4, 2, 3);
            List<FeatureAnsatz.Layer> layers = FeatureAnsatz.measure(net, x);
            assertEquals(
                    List.of("dense1", "dense2", "dense3"),
                    layers.stream().map(FeatureAnsatz.Layer::name).toList());
            for (FeatureAnsatz.Layer l : layers) {
                int i = childIndex(net, l.name());
                // AGOP: gradients w.r.t. the layer's input a_l; K: w.r.t. its output h_l (input of the next child)
                DMatrixRMaj agop = outerProductMean(FiniteDifferences.inputGradients(net, x, i, 1e-5, manager));
                DMatrixRMaj k = outerProductMean(FiniteDifferences.inputGradients(net, x, i + 1, 1e-5, manager));
                assertTrue(CommonOps_DDRM.elementMaxAbs(agop) > 1e-3, config + " " + l.name() + ": AGOP is trivial");
                double errAgop = relativeError(l.agop(), agop);
                double errK = relativeError(l.ptkCovariance(), k);
                assertTrue(errAgop < 1e-7, config + " " + l.name() + ": AGOP vs finite differences " + errAgop);
                assertTrue(errK < 1e-7, config + " " + l.name() + ": K vs finite differences " + errK);
            }
        }
    }

    @Test
    void nfmIsTheGramOfTheScaledLayerWeights() {
        try (Network net = deep("tanh", "ntk", true)) {
            List<FeatureAnsatz.Layer> layers = FeatureAnsatz.measure(net, gaussian(2, 3, 2, 3));
            Map<String, DMatrixRMaj> snapshot = FeatureAnsatz.weights(net);
            for (FeatureAnsatz.Layer l : layers) {
                Dense d = (Dense) net.parameterLayers().stream()
                        .filter(m -> m.name().equals(l.name()))
                        .findFirst()
                        .orElseThrow();
                Shape s = d.weight().value().getShape();
                DMatrixRMaj w = new DMatrixRMaj(
                        (int) s.get(0), (int) s.get(1), true, d.weight().value().toDoubleArray());
                double cw = 1.3 / Math.sqrt(s.get(1)); // NTK parameterisation: c_w = σ_w/√fan_in
                CommonOps_DDRM.scale(cw, w);
                DMatrixRMaj f = new DMatrixRMaj(w.numCols, w.numCols);
                CommonOps_DDRM.multTransA(w, w, f);
                assertTrue(
                        relativeError(l.nfm(), f) < 1e-12, l.name() + ": NFM vs c_w²wᵀw " + relativeError(l.nfm(), f));
                assertTrue(relativeError(snapshot.get(l.name()), w) < 1e-15, l.name() + ": weights() is c_w·w");
            }
        }
    }

    @Test
    void rhoIsOneForIdenticalMatricesAndMatchesHandExamples() {
        DMatrixRMaj a = new DMatrixRMaj(3, 3, true, 1, 2, 0, -1, 4, 2, 0.5, 0, 3);
        assertEquals(1.0, FeatureCorrelation.rho(a, a), 1e-15);
        // diag(1,2) vs diag(2,1): 4/√(5·5)
        assertEquals(
                0.8,
                FeatureCorrelation.rho(
                        new DMatrixRMaj(2, 2, true, 1, 0, 0, 2), new DMatrixRMaj(2, 2, true, 2, 0, 0, 1)),
                1e-15);
        // e₁e₁ᵀ vs 11ᵀ: 1/(1·2)
        DMatrixRMaj e = new DMatrixRMaj(2, 2, true, 1, 0, 0, 0);
        DMatrixRMaj ones = new DMatrixRMaj(2, 2, true, 1, 1, 1, 1);
        assertEquals(0.5, FeatureCorrelation.rho(e, ones), 1e-15);
        // scale invariant and symmetric
        DMatrixRMaj e3 = e.copy();
        CommonOps_DDRM.scale(3, e3);
        DMatrixRMaj ones05 = ones.copy();
        CommonOps_DDRM.scale(0.05, ones05);
        assertEquals(0.5, FeatureCorrelation.rho(ones05, e3), 1e-15);
        assertTrue(Double.isNaN(FeatureCorrelation.rho(new DMatrixRMaj(2, 2), ones)), "ρ(0, B) is 0/0");
    }

    @Test
    void readoutLayerSatisfiesTheAnsatzExactly() {
        // Readout: ∂f_o/∂h = κ e_o for every sample, so K = κ²I and Ḡ = κ²·F: the NFC is 1 whatever the
        // weights (Prop. 2 of Feature Learning as Alignment: "trivially 1 if K ∝ I"). Hidden layers have K ≠ cI.
        try (Network net = deep("relu", "standard", true)) {
            List<FeatureAnsatz.Layer> layers = FeatureAnsatz.measure(net, gaussian(3, 6, 2, 3));
            FeatureAnsatz.Layer readout = layers.get(2);
            double kappa2 = 0.7 * 0.7;
            DMatrixRMaj k = CommonOps_DDRM.identity(3);
            CommonOps_DDRM.scale(kappa2, k);
            assertTrue(relativeError(readout.ptkCovariance(), k) < 1e-12, "K = κ²I");
            DMatrixRMaj f = readout.nfm().copy();
            CommonOps_DDRM.scale(kappa2, f);
            assertTrue(relativeError(readout.agop(), f) < 1e-12, "Ḡ = κ²F");
            assertEquals(1.0, readout.nfc(), 1e-12);
            for (FeatureAnsatz.Layer hidden : layers.subList(0, 2)) {
                assertTrue(hidden.nfc() > 0 && hidden.nfc() < 1 - 1e-6, hidden.name() + " NFC " + hidden.nfc());
            }
        }
    }

    /**
     * Prop. 3 / eq. (6) (Feature Learning as Alignment (anon.), §3.1) on f(x) = aᵀ(Wx)²: one gradient-descent step of
     * size η on W from W(0) makes the C-NFC of the first layer ρ(ẆᵀẆ, ẆᵀKẆ) + O(η) with Ẇ = JᵀL̇X, which for
     * this network is ρ(P F_a P, P F_a B F_a P), P = Xᵀdiag(r)X, B = XᵀX, F_a = Wᵀdiag(a²)W, r the
     * residuals at W(0) (§1.10; the same ρ_obs that NfcPredictorTest compares with the free-probability
     * prediction). The step uses the finite-difference gradient of L = ½Σ r², independent of the closed form.
     */
    @Test
    void oneStepCentredNfcIsTheDerivativeCorrelationOfProp3() {
        int n = 10;
        int d = 6;
        int k = 8;
        try (Network net = mlp(
                "{\"arch\":\"mlp\",\"input\":[" + d + "],\"widths\":[" + k + "],\"outputs\":1,"
                        + "\"activation\":\"quadratic\",\"bias\":false}",
                DataType.FLOAT64)) {
            NDArray x = gaussian(4, n, d);
            double[] y = gaussian(5, n).toDoubleArray();
            Dense first = (Dense) net.parameterLayers().get(0);
            Dense readout = (Dense) net.parameterLayers().get(1);
            Map<String, DMatrixRMaj> w0 = FeatureAnsatz.weights(net);

            FeatureAnsatz.Centred atInit =
                    FeatureAnsatz.measure(net, x, w0).get(0).centred();
            assertTrue(Double.isNaN(atInit.nfc()), "C-NFC is 0/0 at W = W(0)");
            assertEquals(0.0, atInit.ratio(), 0.0);

            double[] base = first.weight().value().toDoubleArray();
            double[] grad = new double[base.length];
            double h = 1e-5;
            for (int e = 0; e < base.length; e++) {
                double[] p = base.clone();
                p[e] += h;
                first.weight().set(Module.create64(manager, p, new Shape(k, d)));
                double lp = loss(FiniteDifferences.eval(net, x, manager), y);
                p[e] -= 2 * h;
                first.weight().set(Module.create64(manager, p, new Shape(k, d)));
                grad[e] = (lp - loss(FiniteDifferences.eval(net, x, manager), y)) / (2 * h);
            }
            double eta = 1e-6 * norm(base) / norm(grad);
            double[] stepped = base.clone();
            for (int e = 0; e < base.length; e++) {
                stepped[e] -= eta * grad[e];
            }
            first.weight().set(Module.create64(manager, base, new Shape(k, d)));
            double[] r = FiniteDifferences.eval(net, x, manager);
            for (int i = 0; i < n; i++) {
                r[i] -= y[i];
            }
            first.weight().set(Module.create64(manager, stepped, new Shape(k, d)));

            FeatureAnsatz.Layer measured = FeatureAnsatz.measure(net, x, w0).get(0);

            DMatrixRMaj xs = new DMatrixRMaj(n, d, true, x.toDoubleArray());
            DMatrixRMaj[] data = NfcPredictor.dataMatrices(xs, r); // {A, B, P}
            DMatrixRMaj fa = NfcPredictor.featureMatrix(
                    w0.get("dense1"), readout.weight().value().toDoubleArray());
            DMatrixRMaj pfa = new DMatrixRMaj(d, d);
            CommonOps_DDRM.mult(data[2], fa, pfa);
            DMatrixRMaj nfmDot = new DMatrixRMaj(d, d);
            CommonOps_DDRM.mult(pfa, data[2], nfmDot); // P F_a P
            DMatrixRMaj pfab = new DMatrixRMaj(d, d);
            CommonOps_DDRM.mult(pfa, data[1], pfab);
            DMatrixRMaj pfabfa = new DMatrixRMaj(d, d);
            CommonOps_DDRM.mult(pfab, fa, pfabfa);
            DMatrixRMaj agopDot = new DMatrixRMaj(d, d);
            CommonOps_DDRM.mult(pfabfa, data[2], agopDot); // P F_a B F_a P
            double predicted = FeatureCorrelation.rho(nfmDot, agopDot);

            assertTrue(predicted < 0.999, "the oracle should not be trivially 1: " + predicted);
            // K is measured at W(1): it differs from K(0) by O(η‖G‖/‖W‖) = 1e-6 relative (observed 1.2e-8)
            assertEquals(predicted, measured.centred().nfc(), 1e-6, "C-NFC after one step vs eq. (6)");
            assertTrue(Math.abs(measured.nfc() - predicted) > 1e-3, "the uncentred NFC is a different quantity");
        }
    }

    static double loss(double[] f, double[] y) {
        double s = 0;
        for (int i = 0; i < y.length; i++) {
            s += 0.5 * (f[i] - y[i]) * (f[i] - y[i]);
        }
        return s;
    }

    static double norm(double[] v) {
        double s = 0;
        for (double a : v) {
            s += a * a;
        }
        return Math.sqrt(s);
    }

    @Test
    void followsTheNetworkDataType() {
        // Same weights in float32 and float64 (the float64 net is the float32 one cast): agreement to float32
        // precision, so the float32 pass is neither broken nor secretly float64-only.
        try (Network net = mlp(
                "{\"arch\":\"mlp\",\"input\":[6],\"widths\":[16],\"outputs\":2,\"activation\":\"tanh\"}",
                DataType.FLOAT32)) {
            NDArray x = gaussian(6, 12, 6).toType(DataType.FLOAT32, false);
            List<FeatureAnsatz.Layer> f32 = FeatureAnsatz.measure(net, x);
            net.cast(DataType.FLOAT64);
            List<FeatureAnsatz.Layer> f64 = FeatureAnsatz.measure(net, x);
            for (int l = 0; l < 2; l++) {
                assertTrue(relativeError(f32.get(l).agop(), f64.get(l).agop()) < 1e-5, "layer " + l + " AGOP");
                assertEquals(f64.get(l).nfc(), f32.get(l).nfc(), 1e-5, "layer " + l + " NFC");
                assertFalse(relativeError(f32.get(l).agop(), f64.get(l).agop()) == 0, "float32 pass ran in float32");
            }
        }
    }

    @Test
    void repeatedMeasurementsLeaveNoArraysBehind() {
        try (Network net = deep("tanh", "ntk", true)) {
            NDArray x = gaussian(10, 5, 2, 3);
            Map<String, DMatrixRMaj> w0 = FeatureAnsatz.weights(net);
            FeatureAnsatz.measure(net, x, w0);
            int model = ((BaseNDManager) net.manager()).getManagedArrays().size();
            int data = ((BaseNDManager) manager).getManagedArrays().size();
            for (int i = 0; i < 20; i++) {
                FeatureAnsatz.weights(net);
                FeatureAnsatz.measure(net, x, w0);
            }
            assertEquals(
                    model, ((BaseNDManager) net.manager()).getManagedArrays().size(), "model manager");
            assertEquals(data, ((BaseNDManager) manager).getManagedArrays().size(), "caller's manager");
        }
    }

    @Test
    void badInputIsAUserErrorWithAOneLineMessage() {
        try (NDManager m = NDManager.newBaseManager()) {
            // a DJL block without a Linear layer (DJL Linear layers on flat input are dense layers: DjlProbesTest)
            SequentialBlock block = new SequentialBlock()
                    .add(ai.djl.nn.convolutional.Conv2d.builder()
                            .setKernelShape(new Shape(1, 1))
                            .setFilters(2)
                            .build())
                    .add(ai.djl.nn.Blocks.batchFlattenBlock());
            block.initialize(m, DataType.FLOAT64, new Shape(1, 1, 2, 3));
            Network djl = Network.ofBlock(block, new Shape(1, 2, 3), m);
            assertOneLine(
                    assertThrows(UserException.class, () -> FeatureAnsatz.measure(djl, gaussian(7, 2, 1, 2, 3))),
                    "no dense layer");
        }
        try (Network net = deep("tanh", "ntk", true)) {
            assertOneLine(
                    assertThrows(UserException.class, () -> FeatureAnsatz.measure(net, gaussian(8, 4, 5))),
                    "expects (n, 2, 3)");
            assertOneLine(
                    assertThrows(UserException.class, () -> FeatureAnsatz.measure(net, gaussian(8, 4, 6))),
                    "shape (4, 6)");
            Map<String, DMatrixRMaj> w0 = new LinkedHashMap<>(FeatureAnsatz.weights(net));
            w0.put("dense2", new DMatrixRMaj(5, 4));
            assertOneLine(
                    assertThrows(UserException.class, () -> FeatureAnsatz.measure(net, gaussian(9, 4, 2, 3), w0)),
                    "dense2");
            w0.remove("dense2");
            assertOneLine(
                    assertThrows(UserException.class, () -> FeatureAnsatz.measure(net, gaussian(9, 4, 2, 3), w0)),
                    "missing");
        }
    }

    static void assertOneLine(UserException e, String fragment) {
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }
}
