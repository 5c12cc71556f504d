package org.ntk4j.metrics;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ejml.data.DMatrixRMaj;
import org.ntk4j.UserException;
import org.ntk4j.model.Dense;
import org.ntk4j.model.DjlLinear;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Module;
import org.ntk4j.model.Network;
import org.ntk4j.model.TangentLayer;

/**
 * The neural feature ansatz of Feature Learning as Alignment (anon.) (§2–3) for every dense layer l of a network
 * (ntk4j's {@link Dense}, or a DJL {@code Linear} on flat input in a network wrapped by {@link Network#ofBlock}),
 * measured on inputs X = (x_1..x_n):
 * <pre>
 *   NFM   F_l = W_lᵀ W_l                                                         (§2.1, in × in)
 *   AGOP  Ḡ_l = (1/n) Σ_α Σ_o ∂f_o(x_α)/∂a_l · ∂f_o(x_α)/∂a_lᵀ                  (§2.1, in × in)
 *   NFC   ρ(F_l, Ḡ_l) = ⟨F_l, Ḡ_l⟩_F / (‖F_l‖_F ‖Ḡ_l‖_F)                        (eq. "NFC")
 *   C-NFC ρ(W̄_lᵀW̄_l, W̄_lᵀK_lW̄_l),  W̄_l = W_l − W_l(0)                         (§3)
 *   C/UC  tr(W̄ᵀW̄ W̄ᵀKW̄) / tr(WᵀW WᵀKW)                                          (§3)
 * </pre>
 * a_l is the layer's input (x for the first layer), f the network output with its output scale κ,
 * summed over outputs as the paper prescribes (§2.1) for c outputs. The AGOP is taken w.r.t. the layer input
 * x_ℓ as in the paper's main text, not w.r.t. the pre-activation h_ℓ as its glossary writes (erratum,
 * the paper's dimension conventions are inconsistent: that is K), and F, Ḡ are in × in, K out × out (the paper's
 * dimension labels are off by one layer). Biases, absent from the paper (§2.1), do not enter F or Ḡ.
 *
 * <p><b>Weight scale.</b> W_l is the matrix that maps a_l to the pre-activation, h_l = W_l a_l + c_b b:
 * for a layer in NTK parameterisation that is c_w·w with c_w = σ_w/√fan_in ({@link Dense#weightScale()}),
 * w the trained array. With it Prop. 2 holds exactly, Ḡ_l = W_lᵀ K_l W_l (Feature Learning as Alignment (anon.), Prop.
 * 2), and F_l has the scale of the function the layer computes. ρ, the C-NFC and the C/UC ratio do not depend
 * on c_w (each is invariant to rescaling W_l); only the absolute F_l, Ḡ_l do. In standard
 * parameterisation c_w = 1.
 *
 * <p><b>How Ḡ_l is computed.</b> Because a_l enters f only through h_l = c_w w a_l + c_b b,
 * ∂f_o/∂a_l = c_w wᵀ δ_o with δ_o = ∂f_o/∂h_l (chain rule), so Ḡ_l = W_lᵀ K_l W_l with K_l the PTK
 * feature covariance of {@link PtkCovariance}. All layers' δ come from one probe pass (one forward,
 * one backward per output) in the network's data type, and the in × in products cost O(in²·out)
 * instead of the O(n·O·in²) of forming per-sample input gradients. This equals the gradient w.r.t.
 * the layer's input array in every ntk4j architecture, where a dense layer's input feeds only that
 * layer (MLPs, classifier heads); the finite-difference test checks it against perturbing a_l.
 * The C-NFC uses K_l of the current network, K_t in the paper's notation (§3); it is NaN (0/0) while
 * W_l = W_l(0).
 */
public final class FeatureAnsatz {
    private FeatureAnsatz() {}

    /**
     * The centred quantities of one layer (Feature Learning as Alignment (anon.), §3).
     *
     * @param nfm   centred NFM W̄ᵀW̄ (in × in)
     * @param agop  centred AGOP W̄ᵀ K W̄ (in × in)
     * @param nfc   C-NFC ρ(W̄ᵀW̄, W̄ᵀKW̄); NaN when W = W(0)
     * @param ratio C/UC ratio tr(W̄ᵀW̄ W̄ᵀKW̄)/tr(WᵀW WᵀKW), the ratio of the two ρ's numerators
     */
    public record Centred(DMatrixRMaj nfm, DMatrixRMaj agop, double nfc, double ratio) {}

    /**
     * The feature-ansatz measurements of one dense layer.
     *
     * @param name          the layer's module name, e.g. {@code dense1}
     * @param nfm           F = WᵀW (in × in), W including c_w
     * @param agop          Ḡ = (1/n) Σ_α Σ_o ∂f_o/∂a ∂f_o/∂aᵀ (in × in)
     * @param ptkCovariance K = (1/n) Σ_α Σ_o ∂f_o/∂h ∂f_o/∂hᵀ (out × out)
     * @param nfc           the (uncentred) NFC ρ(F, Ḡ)
     * @param centred       the centred quantities, or null when no initial weights were given
     */
    public record Layer(
            String name, DMatrixRMaj nfm, DMatrixRMaj agop, DMatrixRMaj ptkCovariance, double nfc, Centred centred) {}

    /**
     * The weights W_l = c_w·w of every dense layer (out × in, float64 host copies) by layer name: the
     * snapshot W(0) that {@link #measure(Network, NDArray, Map)} centres on.
     */
    public static Map<String, DMatrixRMaj> weights(Network net) {
        Map<String, DMatrixRMaj> out = new LinkedHashMap<>();
        for (TangentLayer d : denseLayers(net)) {
            Shape s = d.weight().value().getShape();
            double[] w;
            try (NDArray copy = d.weight().value().toType(DataType.FLOAT64, true)) {
                w = copy.toDoubleArray();
            }
            double cw = d.weightScale();
            for (int i = 0; i < w.length; i++) {
                w[i] *= cw;
            }
            out.put(d.name(), new DMatrixRMaj((int) s.get(0), (int) s.get(1), true, w));
        }
        return out;
    }

    /** NFM, AGOP, K and NFC of every dense layer on inputs x of shape (n, input shape...). */
    public static List<Layer> measure(Network net, NDArray x) {
        return measure(net, x, null);
    }

    /**
     * As {@link #measure(Network, NDArray)}, plus the centred quantities relative to {@code initial}
     * (from {@link #weights} at initialisation), or none when it is null.
     */
    public static List<Layer> measure(Network net, NDArray x, Map<String, DMatrixRMaj> initial) {
        List<TangentLayer> layers = denseLayers(net);
        checkInput(net, x);
        if (initial != null) {
            checkInitial(layers, initial);
        }
        DataType type = net.dataType();
        List<Layer> out = new ArrayList<>();
        try (NDScope scope = new NDScope();
                NDManager m = net.manager().newSubManager()) {
            NDArray xs = x.getDataType() == type ? x.duplicate() : x.toType(type, true);
            xs.attach(m);
            Map<TangentLayer, NDArray> k = PtkCovariance.compute(net, xs, layers, m);
            Forward scalars = new Forward(m, false, null);
            for (TangentLayer d : layers) {
                NDArray w = d.weight().value().stopGradient();
                w.attach(m);
                w = w.mul(scalars.scalar(d.weightScale(), w));
                NDArray kl = k.get(d);
                DMatrixRMaj nfm = host(w.transpose().matMul(w));
                DMatrixRMaj agop = host(w.transpose().matMul(kl.matMul(w)));
                Centred centred = null;
                if (initial != null) {
                    DMatrixRMaj w0 = initial.get(d.name());
                    double[] v0 = Arrays.copyOf(w0.data, w0.getNumElements());
                    NDArray wbar = w.sub(Module.create64(m, v0, w.getShape()).toType(type, false));
                    DMatrixRMaj cNfm = host(wbar.transpose().matMul(wbar));
                    DMatrixRMaj cAgop = host(wbar.transpose().matMul(kl.matMul(wbar)));
                    centred = new Centred(
                            cNfm,
                            cAgop,
                            FeatureCorrelation.rho(cNfm, cAgop),
                            FeatureCorrelation.frobenius(cNfm, cAgop) / FeatureCorrelation.frobenius(nfm, agop));
                }
                out.add(new Layer(d.name(), nfm, agop, host(kl), FeatureCorrelation.rho(nfm, agop), centred));
            }
        }
        return out;
    }

    /** The dense layers: ntk4j's {@link Dense} and DJL {@code Linear} layers on flat input ({@link DjlLinear}). */
    private static List<TangentLayer> denseLayers(Network net) {
        List<TangentLayer> out = new ArrayList<>();
        for (Module l : net.parameterLayers()) {
            if (l instanceof Dense d) {
                out.add(d);
            } else if (l instanceof DjlLinear d && d.flatInput()) {
                out.add(d);
            }
        }
        if (out.isEmpty()) {
            throw new UserException("model " + net.spec().name()
                    + " has no dense layer; the neural feature ansatz is measured on dense layers only");
        }
        return out;
    }

    private static void checkInput(Network net, NDArray x) {
        Shape s = x.getShape();
        Shape want = net.inputShape();
        if (s.dimension() != want.dimension() + 1
                || s.get(0) < 1
                || !Arrays.equals(s.slice(1).getShape(), want.getShape())) {
            throw new UserException("feature ansatz inputs have shape " + s + "; model "
                    + net.spec().name() + " expects (n, " + want.toString().replaceAll("[()]", "") + ") with n ≥ 1");
        }
    }

    private static void checkInitial(List<TangentLayer> layers, Map<String, DMatrixRMaj> initial) {
        for (TangentLayer d : layers) {
            DMatrixRMaj w0 = initial.get(d.name());
            Shape s = d.weight().value().getShape();
            if (w0 == null || w0.numRows != s.get(0) || w0.numCols != s.get(1)) {
                throw new UserException("initial weights for layer " + d.name() + " are "
                        + (w0 == null ? "missing" : w0.numRows + "×" + w0.numCols) + "; expected "
                        + s.get(0) + "×" + s.get(1) + " (take them with FeatureAnsatz.weights at initialisation)");
            }
        }
    }

    /** A 2-d array as a float64 host matrix. */
    private static DMatrixRMaj host(NDArray a) {
        Shape s = a.getShape();
        return new DMatrixRMaj(
                (int) s.get(0),
                (int) s.get(1),
                true,
                a.toType(DataType.FLOAT64, false).toDoubleArray());
    }
}
