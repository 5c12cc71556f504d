package org.ntk4j.probe;

import static org.ntk4j.report.RunReport.column;
import static org.ntk4j.report.RunReport.fmt;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import com.google.gson.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ejml.data.DMatrixRMaj;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.metrics.FeatureAnsatz;
import org.ntk4j.model.Network;
import org.ntk4j.report.Plots;
import org.ntk4j.report.ReportSection;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.Arch;
import org.ntk4j.train.Arrays2;
import org.ntk4j.train.Schedule;

/**
 * Training probe: the neural feature ansatz per dense layer (Feature Learning as Alignment (anon.)) on a fixed,
 * class-balanced probe set of training images — the NFC ρ(W_lᵀW_l, AGOP_l) (§1.5) and the centred C-NFC
 * ρ(W̄ᵀW̄, W̄ᵀK W̄), W̄ = W − W(0) (§1.8), which the paper finds ≥ the uncentred one early in
 * training. For a network built from a spec, W(0) is rebuilt from the spec and seed (initialisation is a pure function
 * of them), so a resumed run centres on the same weights. A network that cannot be rebuilt (a DJL block wrapped by
 * {@link Network#ofBlock}, a {@link Network#of} module tree) is centred on the weights the probe sees at step 0; if its
 * first measurement comes later, W(0) is unknown and the record carries {@code cnfc_skipped} instead of the C-NFC.
 * Dense layers are ntk4j's {@code Dense} and DJL {@code Linear} layers on flat input.
 */
public final class FeatureAnsatzProbe extends ScheduledProbe {
    private final LabelledSet probeSet;
    private Map<String, DMatrixRMaj> initial;
    private String noInitial;

    public FeatureAnsatzProbe(LabelledSet probeSet, Schedule schedule) {
        super("nfa", schedule);
        this.probeSet = probeSet;
    }

    @Override
    public Map<String, Object> run(Network net, long step, int epoch) {
        if (initial == null && noInitial == null) {
            if (rebuildable(net)) {
                try (NDManager m = net.manager().newSubManager();
                        Network w0 = Network.build(net.spec(), net.seed(), m, net.dataType())) {
                    initial = FeatureAnsatz.weights(w0);
                }
            } else if (step == 0) {
                initial = FeatureAnsatz.weights(net);
            } else {
                noInitial = "W(0) unknown: the network cannot be rebuilt from a spec and the probe first ran at step "
                        + step + ", not 0";
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
        if (noInitial != null) {
            r.put("cnfc_skipped", noInitial);
        }
        return r;
    }

    /** Whether the network's initial weights follow from its spec and seed (not a DJL block or a Java module tree). */
    private static boolean rebuildable(Network net) {
        Arch a = net.spec().arch();
        return a != Arch.DJL && a != Arch.CUSTOM;
    }

    @Override
    public ReportSection report() {
        return FeatureAnsatzProbe::featureAnsatz;
    }

    /**
     * NFC and C-NFC per dense layer against the step (Feature Learning as Alignment (anon.), Fig. 2), when the nfa
     * probe ran.
     */
    static void featureAnsatz(RunFolder run, List<JsonObject> nfa, Map<String, String> summary) {
        double[] x = nfa.stream().mapToDouble(r -> r.get("step").getAsDouble()).toArray();
        Map<String, double[]> s = new LinkedHashMap<>();
        JsonObject last = nfa.get(nfa.size() - 1);
        for (String k : last.keySet()) {
            if (k.startsWith("nfc.") || k.startsWith("cnfc.")) {
                s.put((k.startsWith("nfc.") ? "NFC " : "C-NFC ") + k.substring(k.indexOf('.') + 1), column(nfa, k));
                summary.put(
                        (k.startsWith("nfc.") ? "NFC " : "C-NFC ") + k.substring(k.indexOf('.') + 1) + " at end",
                        fmt(last.get(k).getAsDouble()));
            }
        }
        Plots.lines(
                run.file("feature-ansatz.png"),
                "Neural feature ansatz: ρ(WᵀW, AGOP) per dense layer (probe set)",
                "step",
                "correlation",
                x,
                s,
                false);
    }
}
