package org.ntk4j.metrics;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.LinkedHashMap;
import java.util.Map;
import org.ejml.data.DMatrixRMaj;
import org.ntk4j.data.Dataset;
import org.ntk4j.model.Network;
import org.ntk4j.train.Arrays2;
import org.ntk4j.train.Schedule;

/**
 * Training probe: the neural feature ansatz per dense layer (seed 002) on a fixed, class-balanced
 * probe set of training images — the NFC ρ(W_lᵀW_l, AGOP_l) (§1.5) and the centred C-NFC
 * ρ(W̄ᵀW̄, W̄ᵀK W̄), W̄ = W − W(0) (§1.8), which the paper finds ≥ the uncentred one early in
 * training. W(0) is rebuilt from the run's spec and seed (initialisation is a pure function of
 * them), so a resumed run centres on the same weights.
 */
public final class FeatureAnsatzProbe extends org.ntk4j.train.ScheduledProbe {
    private final Dataset probeSet;
    private Map<String, DMatrixRMaj> initial;

    public FeatureAnsatzProbe(Dataset probeSet, Schedule schedule) {
        super("nfa", schedule);
        this.probeSet = probeSet;
    }


    @Override
    public Map<String, Object> run(Network net, long step, int epoch) {
        if (initial == null) {
            try (NDManager m = net.manager().newSubManager();
                    Network w0 = Network.build(net.spec(), net.seed(), m, net.dataType())) {
                initial = FeatureAnsatz.weights(w0);
            }
        }
        Map<String, Object> r = new LinkedHashMap<>();
        try (NDManager m = net.manager().newSubManager()) {
            NDArray x = Arrays2.inputs(m, net, probeSet, 0, probeSet.size());
            for (FeatureAnsatz.Layer l : FeatureAnsatz.measure(net, x, initial)) {
                r.put("nfc." + l.name(), l.nfc());
                if (l.centred() != null && !Double.isNaN(l.centred().nfc())) { // NaN at W = W(0)
                    r.put("cnfc." + l.name(), l.centred().nfc());
                }
            }
        }
        return r;
    }
}
