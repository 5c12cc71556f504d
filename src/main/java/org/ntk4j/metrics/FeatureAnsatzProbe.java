package org.ntk4j.metrics;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.LinkedHashMap;
import java.util.Map;
import org.ejml.data.DMatrixRMaj;
import org.ntk4j.data.Dataset;
import org.ntk4j.model.Network;
import org.ntk4j.train.Arrays2;
import org.ntk4j.train.Probe;
import org.ntk4j.train.Schedule;

/**
 * Training probe: the neural feature ansatz per dense layer (seed 002) on a fixed, class-balanced
 * probe set of training images — the NFC ρ(W_lᵀW_l, AGOP_l) (§1.5) and the centred C-NFC
 * ρ(W̄ᵀW̄, W̄ᵀK W̄), W̄ = W − W(0) (§1.8), which the paper finds ≥ the uncentred one early in
 * training. W(0) is rebuilt from the run's spec and seed (initialisation is a pure function of
 * them), so a resumed run centres on the same weights.
 */
public final class FeatureAnsatzProbe implements Probe {
    private final Dataset probeSet;
    private final Schedule schedule;
    private Map<String, DMatrixRMaj> initial;

    public FeatureAnsatzProbe(Dataset probeSet, Schedule schedule) {
        this.probeSet = probeSet;
        this.schedule = schedule;
    }

    @Override
    public String name() {
        return "nfa";
    }

    @Override
    public boolean due(long step, boolean epochEnd) {
        return schedule.due(step, epochEnd);
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
            long[] shape = new long[net.inputShape().dimension() + 1];
            shape[0] = probeSet.size();
            System.arraycopy(net.inputShape().getShape(), 0, shape, 1, shape.length - 1);
            NDArray x = Arrays2.fromFloats(m, probeSet.features(), new Shape(shape), net.dataType());
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
