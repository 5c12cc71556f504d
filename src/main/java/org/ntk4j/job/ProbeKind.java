package org.ntk4j.job;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.ntk4j.UserException;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.model.Network;
import org.ntk4j.probe.FeatureAnsatzProbe;
import org.ntk4j.probe.NeuralCollapseProbe;
import org.ntk4j.probe.NtkProbe;
import org.ntk4j.probe.Probe;
import org.ntk4j.report.RunFolder;

/**
 * The probes a training run can take ({@code ntk4j train --probe}), by name, and how each is built from the run's
 * data. The constants' order is the order of their sections in the report: neural collapse and the feature ansatz
 * before the NTK, whatever order they were asked in (they run in the order asked). A new probe is one constant here.
 */
public enum ProbeKind {
    /** Neural collapse NC1–NC4 of the penultimate features of a training-set probe set ({@link NeuralCollapseProbe}). */
    NC("nc") {
        @Override
        Probe build(Setting s) {
            if (s.train().isRegression()) {
                throw new UserException("--probe nc: neural collapse needs class labels; "
                        + s.config().dataset() + " is a regression set");
            }
            s.net().features(); // fails now, with its message, if the model has no dense classifier
            return new NeuralCollapseProbe(
                    Preprocess.balancedSample(s.train(), s.config().probeSet(), PROBE_SEED),
                    s.config().probeEvery());
        }
    },
    /** The neural feature ansatz per dense layer on training images ({@link FeatureAnsatzProbe}). */
    NFA("nfa") {
        @Override
        Probe build(Setting s) {
            return new FeatureAnsatzProbe(
                    Preprocess.balancedSample(s.train(), s.config().probeSet(), PROBE_SEED),
                    s.config().probeEvery());
        }
    },
    /** The NTK of a probe set per layer with its alignment and change metrics ({@link NtkProbe}). */
    NTK("ntk") {
        @Override
        Probe build(Setting s) {
            // --probe-points train (Eq. 5 is defined on training data) or test (held-out images; the behaviour of
            // runs started before the option); regression (seeds 001, 004) and a set without test points: the
            // training points themselves
            boolean onTest = s.config().probePointsOrDefault() == TrainJobConfig.ProbePoints.TEST
                    && !s.train().isRegression()
                    && s.test() != null;
            LabelledSet from = onTest ? s.test() : s.train();
            return NtkProbe.builder(Preprocess.balancedSample(from, s.config().probeSet(), PROBE_SEED))
                    .runFolder(s.run())
                    .schedule(s.config().probeEvery())
                    .layerCkaMax(
                            s.config().layerCkaMax() != null
                                    ? s.config().layerCkaMax()
                                    : s.config().approx() != null ? 0 : NtkProbe.LAYER_CKA_MAX)
                    .approx(s.config().approx())
                    .build();
        }
    };

    /** The seed of every probe set's balanced sample. */
    static final long PROBE_SEED = 7;

    private final String label;

    ProbeKind(String label) {
        this.label = label;
    }

    /** What a probe is built from: the run's config, its data (test may be null), network and folder. */
    record Setting(TrainJobConfig config, LabelledSet train, LabelledSet test, Network net, RunFolder run) {}

    /** The probe of this kind for a run. */
    abstract Probe build(Setting s);

    /** The name {@code --probe} takes and probe records carry. */
    @Override
    public String toString() {
        return label;
    }

    /** The kind named {@code name} (any case, trimmed). */
    public static ProbeKind of(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (ProbeKind k : values()) {
            if (k.label.equals(n)) {
                return k;
            }
        }
        throw new UserException("--probe: unknown probe '" + name.trim() + "'; expected a comma-separated list of "
                + Arrays.toString(values()));
    }

    /** The probes named in a comma-separated list, in its order, without repeats; none for null or blank. */
    public static List<ProbeKind> parse(String list) {
        List<ProbeKind> out = new ArrayList<>();
        if (list == null || list.isBlank()) {
            return out;
        }
        for (String p : list.split(",")) {
            ProbeKind k = of(p);
            if (!out.contains(k)) {
                out.add(k);
            }
        }
        return out;
    }

    /** The comma-separated list {@link #parse} reads. */
    public static String join(List<ProbeKind> kinds) {
        return kinds.stream().map(ProbeKind::toString).collect(Collectors.joining(","));
    }
}
