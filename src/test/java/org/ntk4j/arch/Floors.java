package org.ntk4j.arch;

import java.util.List;

/**
 * The floor order of ntk4j's packages, written once: from the ground up, a package may use the packages of its own
 * floor and of the floors below, never those above. {@link LayersTest} holds the code to it, and every package must
 * stand on a floor (a new package is added here, where it belongs). The package cycle test ({@link
 * PackageCyclesTest}) keeps the packages of one floor from going round in a circle.
 *
 * <pre>
 *  12 cli          the command line: parses options, calls the library, prints
 *  11 experiment   the reproduced studies
 *  10 job          jobs that compute and write: kernel, shards, regression, training
 *   9 shard        a kernel cut into shards of whole tiles: plan, compute, store, assemble
 *   8 request      one kernel request: model, weights, seed, samples, engine options
 *   7 probe        measurements taken while a network trains
 *   6 train        the training loop, optimisers, schedules, listeners
 *   5 report       output files (NPZ/NPY, run folders, HTML, plots)   metrics   kernel metrics
 *                approx   approximate kernels (pNTK, Nyström, sketches) with their measured error
 *   4 kernel       the NTK engine and its tangent rules
 *   3 model        networks and layers   data   readers, datasets   theory   closed-form predictions
 *   2 spec         JSON specs   io   weights, kernel files
 *   1 org.ntk4j    UserException, OptionException   util   devices, the machine   natives   the libtorch loaded
 *                files   temporaries, output locks, file errors in words
 * </pre>
 */
final class Floors {
    private Floors() {}

    /** A floor: its name and the packages on it (ArchUnit package identifiers). */
    record Floor(String name, List<String> packages) {
        Floor(String name, String... packages) {
            this(name, List.of(packages));
        }
    }

    /** The floors from the ground up. */
    static final List<Floor> ORDER = List.of(
            new Floor("base", "org.ntk4j", "org.ntk4j.util..", "org.ntk4j.natives..", "org.ntk4j.files.."),
            new Floor("leaves", "org.ntk4j.spec..", "org.ntk4j.io.."),
            new Floor("models and data", "org.ntk4j.model..", "org.ntk4j.data..", "org.ntk4j.theory.."),
            new Floor("kernel", "org.ntk4j.kernel.."),
            new Floor("outputs and metrics", "org.ntk4j.report..", "org.ntk4j.metrics..", "org.ntk4j.approx.."),
            new Floor("train", "org.ntk4j.train.."),
            new Floor("probe", "org.ntk4j.probe.."),
            new Floor("request", "org.ntk4j.request.."),
            new Floor("shard", "org.ntk4j.shard.."),
            new Floor("job", "org.ntk4j.job.."),
            new Floor("experiment", "org.ntk4j.experiment.."),
            new Floor("cli", "org.ntk4j.cli.."));
}
