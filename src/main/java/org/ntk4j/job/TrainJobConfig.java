package org.ntk4j.job;

import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;

/**
 * What a training run is started with; saved as the run folder's args.json, so a resume needs
 * nothing else.
 *
 * @param model the network (outputs already overridden where asked)
 * @param train optimizer, schedule, epochs, loss and seed
 * @param dataset a dataset name ({@code org.ntk4j.data.Datasets})
 * @param perClass train on this many samples per class (balanced, seeded); null = all
 * @param testPerClass evaluate on this many test samples per class; null = all
 * @param probe comma-separated probes, of {@link TrainJob#PROBES}; null = none
 * @param probeSet probe-set size per class
 * @param probeEvery when probes run ({@code org.ntk4j.train.Schedule}: epochs, every:K, log:N:MAX)
 * @param classes train on these classes only, relabelled 0..k-1; null = all
 * @param pad zero-pad images by this many pixels per side; null = none
 * @param threads the PyTorch intra-op thread count the run started with (a resume reuses it: results
 *     agree bit for bit only at the same count); null = not recorded
 */
public record TrainJobConfig(ModelSpec model, TrainSpec train, String dataset, Integer perClass, Integer testPerClass,
        String probe, int probeSet, String probeEvery, int[] classes, Integer pad, Integer threads) {
    public TrainJobConfig(ModelSpec model, TrainSpec train, String dataset, Integer perClass, Integer testPerClass,
            String probe, int probeSet, String probeEvery, int[] classes, Integer pad) {
        this(model, train, dataset, perClass, testPerClass, probe, probeSet, probeEvery, classes, pad, null);
    }

    /** The defaults of {@code ntk4j train}: probe set 10 per class, probes at each epoch end. */
    public static TrainJobConfig of(ModelSpec model, TrainSpec train, String dataset) {
        return new TrainJobConfig(model, train, dataset, null, null, null, 10, "epochs", null, null);
    }

    public TrainJobConfig withProbes(String list, int perClass, String every) {
        return new TrainJobConfig(model, train, dataset, this.perClass, testPerClass, list, perClass, every, classes, pad, threads);
    }

    public TrainJobConfig withTrain(TrainSpec t) {
        return new TrainJobConfig(model, t, dataset, perClass, testPerClass, probe, probeSet, probeEvery, classes, pad, threads);
    }

    public TrainJobConfig withThreads(Integer n) {
        return new TrainJobConfig(model, train, dataset, perClass, testPerClass, probe, probeSet, probeEvery, classes, pad, n);
    }
}
