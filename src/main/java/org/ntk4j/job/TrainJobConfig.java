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
 * @param probePoints where the ntk probe takes its points: {@code train} or {@code test} images ({@link #PROBE_POINTS});
 *     null (args.json of runs started before the option, and {@link #of}) = the earlier behaviour, test images for a
 *     classification set ({@link #probePointsOrDefault})
 * @param layerCkaMax the ntk probe computes Eq. 5 layer CKA up to this N·O (0 = never); null = the probe's default
 */
public record TrainJobConfig(
        ModelSpec model,
        TrainSpec train,
        String dataset,
        Integer perClass,
        Integer testPerClass,
        String probe,
        int probeSet,
        String probeEvery,
        int[] classes,
        Integer pad,
        Integer threads,
        String probePoints,
        Integer layerCkaMax) {
    /** The values {@code --probe-points} accepts. */
    public static final java.util.List<String> PROBE_POINTS = java.util.List.of("train", "test");

    public TrainJobConfig(
            ModelSpec model,
            TrainSpec train,
            String dataset,
            Integer perClass,
            Integer testPerClass,
            String probe,
            int probeSet,
            String probeEvery,
            int[] classes,
            Integer pad) {
        this(
                model,
                train,
                dataset,
                perClass,
                testPerClass,
                probe,
                probeSet,
                probeEvery,
                classes,
                pad,
                null,
                null,
                null);
    }

    public TrainJobConfig(
            ModelSpec model,
            TrainSpec train,
            String dataset,
            Integer perClass,
            Integer testPerClass,
            String probe,
            int probeSet,
            String probeEvery,
            int[] classes,
            Integer pad,
            Integer threads) {
        this(
                model,
                train,
                dataset,
                perClass,
                testPerClass,
                probe,
                probeSet,
                probeEvery,
                classes,
                pad,
                threads,
                null,
                null);
    }

    /** {@link #probePoints}, or {@code test} where it is not recorded (the behaviour before the option). */
    public String probePointsOrDefault() {
        return probePoints == null ? "test" : probePoints;
    }

    public TrainJobConfig withProbePoints(String points, Integer ckaMax) {
        return new TrainJobConfig(
                model,
                train,
                dataset,
                perClass,
                testPerClass,
                probe,
                probeSet,
                probeEvery,
                classes,
                pad,
                threads,
                points,
                ckaMax);
    }

    /** The defaults of {@code ntk4j train}: probe set 10 per class, probes at each epoch end. */
    public static TrainJobConfig of(ModelSpec model, TrainSpec train, String dataset) {
        return new TrainJobConfig(model, train, dataset, null, null, null, 10, "epochs", null, null);
    }

    public TrainJobConfig withProbes(String list, int perClass, String every) {
        return new TrainJobConfig(
                model,
                train,
                dataset,
                this.perClass,
                testPerClass,
                list,
                perClass,
                every,
                classes,
                pad,
                threads,
                probePoints,
                layerCkaMax);
    }

    public TrainJobConfig withTrain(TrainSpec t) {
        return new TrainJobConfig(
                model,
                t,
                dataset,
                perClass,
                testPerClass,
                probe,
                probeSet,
                probeEvery,
                classes,
                pad,
                threads,
                probePoints,
                layerCkaMax);
    }

    public TrainJobConfig withThreads(Integer n) {
        return new TrainJobConfig(
                model,
                train,
                dataset,
                perClass,
                testPerClass,
                probe,
                probeSet,
                probeEvery,
                classes,
                pad,
                n,
                probePoints,
                layerCkaMax);
    }
}
