package org.ntk4j.train;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ntk4j.model.Network;

/**
 * The adaptive speed-limited optimisation of "Feature learning as alignment: a structural property of gradient
 * descent in non-linear neural networks" (anonymous, App. J, Fig. 12): at every step the layer i with the smallest
 * uncentred neural feature correlation UC-NFC_i = ρ(W_iᵀW_i, W_iᵀK_iW_i) gets speed C_i = s and every other layer
 * C_j = 1/s (s = 20 in the paper), after which the SLO step θ_l ← θ_l − η·C_l·G_l/(ε + ‖G_l‖_F) of
 * {@link UpdateRule} applies (TrainSpec.sloAdaptive = s; a layer's layerLr multiplies its C). The UC-NFCs are
 * measured at the current weights, before the step's gradient (a {@link Source} supplies them: the metrics
 * package's CentredNfc on a fixed measurement set).
 *
 * <p>Readings where the paper is silent (notes 002 §1.13): every parameter layer counts, the readout included;
 * a scalar readout's UC-NFC is identically 1 (its F and AGOP are both ∝ wᵀw), so it never is the slowest layer
 * and always moves at 1/s. Layers the source gives no finite value for take 1/s. Ties go to the input side.
 */
public final class AdaptiveSpeeds {
    private AdaptiveSpeeds() {}

    /** The UC-NFC of the network's layers by layer name, measured at its current weights. */
    @FunctionalInterface
    public interface Source {
        Map<String, Double> ucNfc(Network net);
    }

    /**
     * The speeds C_l of {@code layers} (input side first): s for the layer of smallest finite UC-NFC, 1/s for the
     * others.
     */
    public static Map<String, Double> speeds(List<String> layers, Map<String, Double> uc, double s) {
        String slowest = null;
        double min = Double.POSITIVE_INFINITY;
        for (String l : layers) {
            Double v = uc.get(l);
            if (v != null && Double.isFinite(v) && v < min) {
                min = v;
                slowest = l;
            }
        }
        Map<String, Double> out = new LinkedHashMap<>();
        for (String l : layers) {
            out.put(l, l.equals(slowest) ? s : 1 / s);
        }
        return out;
    }
}
