package org.ntk4j.metrics;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ntk4j.UserException;
import org.ntk4j.model.Conv2d;
import org.ntk4j.model.Dense;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.model.TangentLayer;

/**
 * The centred neural feature correlations of "Feature learning as alignment: a structural property of
 * gradient descent in non-linear neural networks" (anonymous, §3 and App. C), per dense or conv layer
 * W (out × in; a conv kernel unfolded to out × (in·k·k), acting on patches):
 * <pre>
 *   UC-NFC            ρ(WᵀW, WᵀKW)                                             (eq. "NFC", Prop. 2)
 *   C-NFC             ρ(W̄ᵀW̄, W̄ᵀKW̄),            W̄ = W − W₀                      (§3)
 *   C/UC              tr(W̄ᵀW̄ W̄ᵀKW̄) / tr(WᵀW WᵀKW)                              (§5, Fig. 4 col. 3)
 *   double-centred    ρ(W̄ᵀW̄, W̄ᵀK̄W̄),            K̄ = (J − J₀)ᵀ(J − J₀)           (App. C)
 *   double/centred    tr(W̄ᵀW̄ W̄ᵀK̄W̄) / tr(W̄ᵀW̄ W̄ᵀKW̄)                             (App. C, Fig. 5)
 *   PTK-centred       ρ(W₀ᵀW₀, W₀ᵀK̄W₀)                                          (App. C, Fig. 6)
 * </pre>
 * ρ is {@link FeatureCorrelation#rho}; K = JᵀJ the PTK feature covariance, J stacking the gradients
 * ∂f_o(x_α)/∂h (one row per sample α, output o and, for a conv layer, output position p) divided by
 * √(n·P), so K = (1/(nP)) Σ δδᵀ: for conv layers K is averaged over all patches as the paper
 * prescribes (§2.1); J₀ is J of the network at initialisation on the same inputs. The weights
 * include the layer's parameterisation multiplier c_w, as in {@link FeatureAnsatz}. Every ratio is
 * invariant to the scale of K; the C-NFC is 0/0 (NaN) at initialisation.
 */
public final class CentredNfc {
    private CentredNfc() {}

    /**
     * The correlations of one layer.
     *
     * @param name          layer name
     * @param uc            UC-NFC ρ(WᵀW, WᵀKW)
     * @param c             C-NFC ρ(W̄ᵀW̄, W̄ᵀKW̄)
     * @param ratio         C/UC ratio tr(W̄ᵀW̄ W̄ᵀKW̄)/tr(WᵀW WᵀKW)
     * @param doubleCentred ρ(W̄ᵀW̄, W̄ᵀK̄W̄); NaN without J₀
     * @param doubleRatio   tr(W̄ᵀW̄ W̄ᵀK̄W̄)/tr(W̄ᵀW̄ W̄ᵀKW̄); NaN without J₀
     * @param ptkCentred    ρ(W₀ᵀW₀, W₀ᵀK̄W₀); NaN without J₀
     * @param weightChange  ‖W − W₀‖_F/‖W‖_F (the paper's Figs 14–15)
     */
    public record Layer(
            String name,
            double uc,
            double c,
            double ratio,
            double doubleCentred,
            double doubleRatio,
            double ptkCentred,
            double weightChange) {}

    /**
     * All correlations from host matrices: W and W₀ (out × in), K and K̄ (out × out; K̄ may be null). Computed
     * through the out × out Gram M = WWᵀ, since tr(WᵀW·WᵀKW) = tr(MKM), ‖WᵀW‖² = tr(M²) and ‖WᵀKW‖² = tr(KMKM)
     * (cyclic trace): O(out²·in) instead of O(in²·out), which matters for conv layers (in = 9·channels).
     */
    public static Layer of(String name, DMatrixRMaj w, DMatrixRMaj w0, DMatrixRMaj k, DMatrixRMaj kbar) {
        DMatrixRMaj wbar = w.copy();
        CommonOps_DDRM.subtractEquals(wbar, w0);
        DMatrixRMaj m = outerGram(w);
        DMatrixRMaj mbar = outerGram(wbar);
        double num = trace3(m, k, m);
        double uc = num / Math.sqrt(trace2(m, m) * trace4(k, m));
        double cnum = trace3(mbar, k, mbar);
        double c = cnum / Math.sqrt(trace2(mbar, mbar) * trace4(k, mbar));
        double ratio = cnum / num;
        double dc = Double.NaN;
        double dr = Double.NaN;
        double pc = Double.NaN;
        if (kbar != null) {
            double dnum = trace3(mbar, kbar, mbar);
            dc = dnum / Math.sqrt(trace2(mbar, mbar) * trace4(kbar, mbar));
            dr = dnum / cnum;
            DMatrixRMaj m0 = outerGram(w0);
            pc = trace3(m0, kbar, m0) / Math.sqrt(trace2(m0, m0) * trace4(kbar, m0));
        }
        double change = Math.sqrt(FeatureCorrelation.frobenius(wbar, wbar) / FeatureCorrelation.frobenius(w, w));
        return new Layer(name, uc, c, ratio, dc, dr, pc, change);
    }

    /** WWᵀ (out × out). */
    static DMatrixRMaj outerGram(DMatrixRMaj w) {
        DMatrixRMaj out = new DMatrixRMaj(w.numRows, w.numRows);
        CommonOps_DDRM.multTransB(w, w, out);
        return out;
    }

    /** tr(AB) for symmetric B: Σ A_ij B_ij. */
    private static double trace2(DMatrixRMaj a, DMatrixRMaj b) {
        return FeatureCorrelation.frobenius(a, b);
    }

    /** tr(ABC) for symmetric A, B, C: ⟨AB, C⟩ with (AB)ᵀ = BA. */
    private static double trace3(DMatrixRMaj a, DMatrixRMaj b, DMatrixRMaj c) {
        DMatrixRMaj ab = new DMatrixRMaj(a.numRows, b.numCols);
        CommonOps_DDRM.mult(a, b, ab);
        DMatrixRMaj abt = new DMatrixRMaj(ab.numCols, ab.numRows);
        CommonOps_DDRM.transpose(ab, abt);
        return FeatureCorrelation.frobenius(abt, c);
    }

    /** tr(KMKM) = ‖KM‖²-like: ⟨KM, (KM)ᵀ⟩ for symmetric K, M. */
    private static double trace4(DMatrixRMaj k, DMatrixRMaj m) {
        DMatrixRMaj km = new DMatrixRMaj(k.numRows, m.numCols);
        CommonOps_DDRM.mult(k, m, km);
        DMatrixRMaj kmt = new DMatrixRMaj(km.numCols, km.numRows);
        CommonOps_DDRM.transpose(km, kmt);
        return FeatureCorrelation.frobenius(km, kmt);
    }

    /**
     * Tracks the correlations of every dense and conv layer of a network during training on fixed
     * inputs: construct at initialisation (snapshots W₀ and, when {@code doubleCentred}, J₀), then call
     * {@link #measure} at any later time.
     */
    public static final class Tracker {
        private final NDArray x;
        private final List<TangentLayer> layers;
        private final Map<String, DMatrixRMaj> w0 = new LinkedHashMap<>();
        private final Map<String, NDArray> j0 = new LinkedHashMap<>();
        private final boolean doubleCentred;

        /** {@code x}: inputs (n, input shape...), owned by the caller; kept for every measurement. */
        public Tracker(Network net, NDArray x, boolean doubleCentred) {
            this.layers = layers(net);
            this.doubleCentred = doubleCentred;
            this.x = x.getDataType() == net.dataType() ? x : x.toType(net.dataType(), false);
            for (TangentLayer l : layers) {
                w0.put(l.name(), weight(l));
            }
            if (doubleCentred) {
                try (NDScope scope = new NDScope()) {
                    Map<TangentLayer, NDArray> j = PtkCovariance.jacobians(net, this.x, layers, net.manager());
                    for (TangentLayer l : layers) {
                        NDArray a = j.get(l);
                        NDScope.unregister(a);
                        j0.put(l.name(), a);
                    }
                }
            }
        }

        /** The layers' names, input side first. */
        public List<String> names() {
            return layers.stream().map(TangentLayer::name).toList();
        }

        /** The correlations of every layer of {@code net} (the network this tracker was built on). */
        public List<Layer> measure(Network net) {
            List<Layer> out = new ArrayList<>();
            try (NDScope scope = new NDScope();
                    NDManager m = net.manager().newSubManager()) {
                Map<TangentLayer, NDArray> j = PtkCovariance.jacobians(net, x, layers, m);
                for (TangentLayer l : layers) {
                    NDArray jl = j.get(l);
                    DMatrixRMaj k = host(jl.transpose().matMul(jl));
                    DMatrixRMaj kbar = null;
                    if (doubleCentred) {
                        NDArray d = jl.sub(j0.get(l.name()));
                        kbar = host(d.transpose().matMul(d));
                    }
                    out.add(of(l.name(), weight(l), w0.get(l.name()), k, kbar));
                }
            }
            return out;
        }

        /**
         * Only the UC-NFC ρ(WᵀW, WᵀKW) of every layer, by name, computed on the device (no host copies of K): with
         * K = JᵀJ the AGOP is WᵀKW = (JW)ᵀ(JW), and ρ(A, B) = ⟨A, B⟩/(‖A‖‖B‖). Cheap enough to call at every step
         * (adaptive SLO, train.AdaptiveSpeeds).
         */
        public Map<String, Double> ucNfc(Network net) {
            Map<String, Double> out = new LinkedHashMap<>();
            try (NDScope scope = new NDScope();
                    NDManager m = net.manager().newSubManager()) {
                Map<TangentLayer, NDArray> j = PtkCovariance.jacobians(net, x, layers, m);
                for (TangentLayer l : layers) {
                    NDArray w = l.weight().value();
                    w = w.reshape(w.getShape().get(0), -1);
                    NDArray f = w.transpose().matMul(w);
                    NDArray jw = j.get(l).matMul(w);
                    NDArray g = jw.transpose().matMul(jw);
                    double num = f.mul(g).sum().toType(DataType.FLOAT64, false).getDouble();
                    double ff = f.mul(f).sum().toType(DataType.FLOAT64, false).getDouble();
                    double gg = g.mul(g).sum().toType(DataType.FLOAT64, false).getDouble();
                    out.put(l.name(), num / Math.sqrt(ff * gg)); // c_w cancels in ρ
                }
            }
            return out;
        }

        /** Frees J₀. */
        public void close() {
            j0.values().forEach(NDArray::close);
            j0.clear();
        }
    }

    /** The dense and conv layers of a network, input side first. */
    static List<TangentLayer> layers(Network net) {
        List<TangentLayer> out = new ArrayList<>();
        for (Module l : net.parameterLayers()) {
            if (l instanceof Dense || l instanceof Conv2d) {
                out.add((TangentLayer) l);
            }
        }
        if (out.isEmpty()) {
            throw new UserException("model " + net.spec().name() + " has no dense or conv layer to measure the NFC on");
        }
        return out;
    }

    /** c_w·W as a host matrix out × in (a conv kernel (out, in, k, k) unfolded to out × in·k·k). */
    static DMatrixRMaj weight(TangentLayer l) {
        Shape s = l.weight().value().getShape();
        double[] w;
        try (NDArray copy = l.weight().value().toType(DataType.FLOAT64, true)) {
            w = copy.toDoubleArray();
        }
        double cw = l.weightScale();
        for (int i = 0; i < w.length; i++) {
            w[i] *= cw;
        }
        int rows = (int) s.get(0);
        return new DMatrixRMaj(rows, w.length / rows, true, w);
    }

    private static DMatrixRMaj host(NDArray a) {
        Shape s = a.getShape();
        return new DMatrixRMaj(
                (int) s.get(0),
                (int) s.get(1),
                true,
                a.toType(DataType.FLOAT64, false).toDoubleArray());
    }
}
