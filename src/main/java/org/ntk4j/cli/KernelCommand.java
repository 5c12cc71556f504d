package org.ntk4j.cli;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.ntk4j.UserException;
import org.ntk4j.job.KernelJob;
import org.ntk4j.job.KernelJobConfig;
import org.ntk4j.job.ShardJob;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.metrics.KernelMetrics;
import org.ntk4j.report.Npz;
import org.ntk4j.request.KernelRequest;
import org.ntk4j.shard.ShardPlanner;
import org.ntk4j.shard.TileRange;
import org.ntk4j.util.MachineBudget;
import org.ntk4j.util.Numbers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ntk4j kernel}: parses its options into a {@link KernelRequest} and runs the {@link KernelJob}, or in shard
 * mode and for a dry run the {@link ShardJob}.
 */
@Command(
        name = "kernel",
        mixinStandardHelpOptions = true,
        subcommands = KernelAssembleCommand.class,
        // --model and --out are required, but not picocli-required ('kernel assemble DIR' parses without them)
        customSynopsis = {
            "ntk4j kernel --model=SPEC|NAME --out=K.npz [OPTIONS]",
            "       ntk4j kernel --model=SPEC|NAME --out=DIR --rows=A:B --cols=C:D [OPTIONS]",
            "       ntk4j kernel --model=SPEC|NAME --out=DIR --test-rows=A:B --cols=C:D ...",
            "       ntk4j kernel --model=SPEC|NAME --out=DIR --approx=nystrom:M --rows=A:B --cols=0:M ...",
            "       ntk4j kernel --model=SPEC|NAME --out=DIR --dry-run [OPTIONS]",
            "       ntk4j kernel assemble DIR [OPTIONS]"
        },
        description = {
            "Compute the empirical NTK Θ(X1, X1) of N training images (and Θ(X2, X1) of M test images) and"
                    + " write it as NPZ with a JSON sidecar (K.json: spec, seed, method per layer, timings, peak memory).",
            "NPZ entries: ntk (N×N | N×N×O | N×N×O×O), ntk.<layer> (with --per-layer), ntk_test (M×N...),"
                    + " x1, y1 (labels), x2, y2, and every parameter under its name (dense W as out×in).",
            "Example: ntk4j kernel --model mlp-quickstart --seed 0 --dataset mnist-subset --n 500 --test 100 --per-layer --out K.npz",
            "Shards (kernels larger than one machine): with --rows A:B --cols C:D (or --test-rows A:B --cols C:D) one"
                    + " block of whole tiles is computed into the shard store --out DIR, bit for bit the same block as the"
                    + " whole kernel computed with the plan's --tile; 'ntk4j kernel assemble DIR' checks and assembles"
                    + " the shards; --dry-run prints the plan with a tile timed on this machine.",
            "Nyström shards: with --approx nystrom:M the plan's shards are the exact blocks of the Nyström"
                    + " approximation: rows A:B of C = K(X, L) × its M landmark columns (--rows A:B --cols 0:M), of"
                    + " C* = K(X*, L) (--test-rows A:B --cols 0:M) and the held-out K_SS of its error (--holdout-rows"
                    + " 0:H --cols 0:H); 'ntk4j kernel assemble DIR' writes the features NPZ that 'ntk4j kernel"
                    + " --approx nystrom:M --tile T' writes, bit for bit (uniform landmarks only)."
        })
public final class KernelCommand implements Callable<Integer> {
    @Option(
            names = "--model",
            paramLabel = "SPEC|NAME",
            description = "model spec file or a name in models/ (required)")
    String model;

    @Option(
            names = "--weights",
            paramLabel = "CHECKPOINT",
            description = "weights.npz of a run (default: fresh initialisation from --seed)")
    Path weights;

    @Option(
            names = "--seed",
            defaultValue = "0",
            description = "initialisation seed when no --weights (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--dataset", defaultValue = "mnist-subset", description = "dataset name (default ${DEFAULT-VALUE})")
    String dataset;

    @Option(
            names = "--n",
            defaultValue = "100",
            description = "number of training images, the first N (default ${DEFAULT-VALUE})")
    int n;

    @Option(
            names = "--per-class",
            paramLabel = "M",
            description =
                    "instead of the first N: M training images of every"
                            + " class, a seeded class-balanced sample ordered by class (Seleznova et al., Neural (Tangent Kernel) Collapse, measure kernels on m per class)")
    Integer perClass;

    @Option(
            names = "--test",
            defaultValue = "0",
            description = "number of test images for the test×train kernel (default 0)")
    int test;

    @Option(
            names = "--pad",
            paramLabel = "P",
            description = "zero-pad images by P pixels per side (MNIST 28→32 with 2)")
    Integer pad;

    @Option(
            names = "--mode",
            defaultValue = "trace",
            description = "full, trace or diagonal (default ${DEFAULT-VALUE})")
    String mode;

    @Option(names = "--per-layer", description = "also write Θ_l for each parameterised layer")
    boolean perLayer;

    @Option(
            names = "--features",
            description =
                    "the last-layer-features kernel Θ^h instead (Seleznova et al., Neural (Tangent Kernel) Collapse, §3): the NTK of the"
                            + " penultimate features w.r.t. the parameters before the classifier")
    boolean features;

    @Option(
            names = "--factor-kernels",
            description =
                    "also write each dense layer's forward (A1A2ᵀ) and backward (Σ_o Δ1Δ2ᵀ) kernels (Lou, Mingard & Hayou, Equilibrium Hypothesis, Eq. 7)")
    boolean factorKernels;

    @Option(
            names = "--method",
            defaultValue = "auto",
            description = "auto, structured or jacobian (default ${DEFAULT-VALUE})")
    String method;

    @Option(names = "--dtype", defaultValue = "float32", description = "float32 or float64 (default ${DEFAULT-VALUE})")
    String dtype;

    @Option(
            names = "--normalisation",
            defaultValue = "sum",
            description =
                    "sum (default) or mean: mean divides a --mode trace kernel by the number of outputs O (neural-tangents); full and diagonal kernels are never divided, and their sidecar records sum")
    String normalisation;

    @Option(
            names = "--memory",
            defaultValue = "4g",
            description =
                    "memory budget of the kernel job: output kernels held in"
                            + " memory, tiles, inputs and parameters, e.g. 512m, 4g; checked before any work (default ${DEFAULT-VALUE})")
    String memory;

    @Option(
            names = "--device-memory",
            paramLabel = "SIZE",
            description = "bytes the compute device may hold (tiles and, when they fit, the output kernels), e.g."
                    + " 40g; decides where the kernel lives (--explain says: device, device row slabs, host or disk)"
                    + " (default: the GPU's free memory less a margin; on the CPU half the physical memory)")
    String deviceMemory;

    @Option(
            names = "--spill-dir",
            paramLabel = "DIR",
            description = "directory for kernels accumulated on disk (float32,"
                    + " removed on exit); given, output kernels larger than --memory go there instead of being refused"
                    + " (default: beside --out, used only for kernels larger than half the Java heap)")
    Path spillDir;

    @Option(
            names = "--force",
            description = "replace an existing --out and its <stem>.json kernel sidecar"
                    + " (a <stem>.json that is not a kernel sidecar is never replaced)")
    boolean force;

    @Option(names = "--explain", description = "print the method chosen per layer with its FLOP estimates")
    boolean explain;

    @Option(
            names = "--eigenvalues",
            paramLabel = "K",
            defaultValue = "32",
            description = "leading eigenvalues of the traced train kernel in the sidecar, by a block Krylov start and"
                    + " randomized subspace iteration on the engine with their residual ‖Tv−λv‖ (0: none) (default"
                    + " ${DEFAULT-VALUE})")
    int eigenvalues;

    @Option(
            names = "--exact-spectrum",
            description = "the sidecar's eigenvalues by an exact O(N³) eigen-decomposition of an N×N host copy instead"
                    + " (LAPACK's dsyevd: about 6 s at N = 4,000 on 2 cores; 48·N² bytes of memory: 4.8 GB at"
                    + " N = 10,000)")
    boolean exactSpectrum;

    @Option(
            names = "--out",
            paramLabel = "K.npz",
            description =
                    "output NPZ file (with --format npy: a directory; in shard mode: the shard store DIR) (required)")
    Path out;

    @Option(
            names = "--format",
            defaultValue = "npz",
            description =
                    "npz (one zip, entries stored uncompressed) or npy (a directory"
                            + " of .npy files that numpy.load(f, mmap_mode='r') maps, for kernels larger than memory) (default ${DEFAULT-VALUE})")
    String format;

    @Option(names = "--compress", description = "deflate the NPZ entries (smaller, but ~25 MB/s instead of disk speed)")
    boolean compress;

    @Option(
            names = "--tile",
            paramLabel = "T",
            description =
                    "samples per tile, fixed (default: the largest the memory budget allows); the tile grid decides"
                            + " the last bits of every value, so a kernel computed with a shard plan's tile equals its assembled"
                            + " shards bit for bit")
    Integer tile;

    @Option(
            names = "--rows",
            paramLabel = "A:B",
            description = "shard mode: compute rows A:B (0-based, half-open) of Θ(X1, X1) × the columns of --cols"
                    + " into the shard store --out DIR (created with its plan.json on first use); the range must be a"
                    + " shard of the plan (see --dry-run)")
    String rows;

    @Option(
            names = "--test-rows",
            paramLabel = "A:B",
            description = "shard mode: compute test rows A:B of Θ(X2, X1) (with --test M) × the columns of --cols")
    String testRows;

    @Option(
            names = "--holdout-rows",
            paramLabel = "A:B",
            description =
                    "shard mode with --approx nystrom:M: the exact kernel K_SS of the held-out images the error is"
                            + " measured on (rows and --cols 0:H, H = --approx-holdout or N)")
    String holdoutRows;

    @Option(
            names = "--cols",
            paramLabel = "C:D",
            description = "shard mode: the training columns C:D of the shard (with --rows or --test-rows)")
    String cols;

    @Option(
            names = "--shard-size",
            paramLabel = "S",
            description =
                    "shard mode and --dry-run: rows and columns per shard, rounded up to whole tiles (default: the"
                            + " largest whose arrays fit half of --memory; an existing store keeps its own)")
    Integer shardSize;

    @Option(
            names = "--dry-run",
            description = "print the shard plan (tiles, shards, bytes) and its estimated time on --workers machines"
                    + " like this one, from one tile pair timed here; computes nothing else and writes nothing"
                    + " (N may exceed the dataset)")
    boolean dryRun;

    @Option(
            names = "--workers",
            paramLabel = "K",
            defaultValue = "1",
            description =
                    "the machines (or executors) computing the shards: a new plan without --shard-size makes at least"
                            + " 4 shards per worker; --dry-run's estimate divides the shards over them (default ${DEFAULT-VALUE})")
    int workers;

    @Option(
            names = "--approx",
            paramLabel = "SPEC",
            description = "an approximate traced kernel instead of the exact one: pntk (kernel of the summed logits),"
                    + " sketch:K[:kr|:gauss] (per-sample gradients projected to K seeded random features; writes"
                    + " features, not N x N), nystrom:M[:uniform|:leverage] (M landmark images; writes features) or"
                    + " nystrom:auto"
                    + " (landmarks doubled until the held-out error is below --approx-error); its error against the"
                    + " exact kernel on a held-out subset goes into the sidecar")
    String approx;

    @Option(
            names = "--approx-holdout",
            paramLabel = "H",
            description = "train images the approximation's error is measured on with the exact kernel"
                    + " (default ${DEFAULT-VALUE})")
    int approxHoldout = org.ntk4j.approx.ApproxError.DEFAULT_ROWS;

    @Option(
            names = "--approx-error",
            paramLabel = "E",
            description = "target relative Frobenius error of nystrom:auto (default ${DEFAULT-VALUE})")
    double approxError = 0.05;

    @Mixin
    RuntimeOptions runtime;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        // not picocli-required: 'kernel assemble DIR' must parse without them
        java.util.List<String> missing = new java.util.ArrayList<>();
        if (model == null) {
            missing.add("'--model=SPEC|NAME'");
        }
        if (out == null) {
            missing.add("'--out=K.npz'");
        }
        if (!missing.isEmpty()) {
            throw new UserException("Missing required option" + (missing.size() > 1 ? "s: " : ": ")
                    + String.join(", ", missing) + " (see 'ntk4j kernel --help')");
        }
        boolean shard = rows != null || testRows != null || holdoutRows != null || cols != null;
        if (workers < 1) {
            throw new UserException("--workers must be >= 1 (got " + workers + ")");
        }
        if (!shard && !dryRun && matched("--workers")) {
            throw new UserException("--workers applies to --dry-run and shard mode (--rows/--cols)");
        }
        org.ntk4j.approx.ApproxSpec approxSpec = approx == null ? null : org.ntk4j.approx.ApproxSpec.parse(approx);
        if (approxSpec == null && (matched("--approx-holdout") || matched("--approx-error"))) {
            throw new UserException("--approx-holdout and --approx-error apply with --approx");
        }
        if (approxSpec != null && (shard || dryRun) && matched("--approx-error")) {
            throw new UserException("--approx-error applies to nystrom:auto, which is not planned as shards");
        }
        KernelRequest request = request();
        if (shard || dryRun) {
            return shards(request, shard, approxSpec);
        }
        if (shardSize != null) {
            throw new UserException("--shard-size is for shard mode (--rows/--cols) or --dry-run");
        }
        KernelJobConfig config = KernelJobConfig.builder(request)
                .out(out)
                .dataDir(runtime.dataDir())
                .force(force)
                .format(Npz.Format.parse(format))
                .compress(compress)
                .explain(explain)
                .build();
        if (approxSpec != null) {
            org.ntk4j.job.ApproxJob job = new org.ntk4j.job.ApproxJob(config, approxSpec, approxHoldout, approxError);
            try (NDManager m = runtime.manager()) {
                job.run(m, System.out::println);
            }
            return 0;
        }
        try (NDManager m = runtime.manager()) {
            new KernelJob(config)
                    .metrics(new KernelMetrics.Options(eigenvalues, exactSpectrum))
                    .run(m, System.out::println);
        }
        return 0;
    }

    /** The kernel the options ask for. */
    private KernelRequest request() {
        Mode md = parse(Mode.class, mode, "--mode");
        Method mt = parse(Method.class, method, "--method");
        DataType dt =
                switch (dtype.toLowerCase(Locale.ROOT)) {
                    case "float32" -> DataType.FLOAT32;
                    case "float64" -> DataType.FLOAT64;
                    default -> throw new UserException("--dtype must be float32 or float64 (got " + dtype + ")");
                };
        if (!"sum".equals(normalisation) && !"mean".equals(normalisation)) {
            throw new UserException("--normalisation must be sum or mean (got " + normalisation + ")");
        }
        return KernelRequest.builder()
                .model(model)
                .weights(weights)
                .seed(seed)
                .dataset(dataset)
                .n(n)
                .perClass(perClass)
                .test(test)
                .pad(pad)
                .mode(md)
                .method(mt)
                .dtype(dt)
                .meanNormalised("mean".equals(normalisation))
                .memory(dryRun ? parseBytes(memory) : machineBudget(parseBytes(memory)))
                .deviceMemory(deviceMemory == null ? null : parseBytes(deviceMemory, "--device-memory"))
                .spillDir(spillDir)
                .perLayer(perLayer)
                .features(features)
                .factorKernels(factorKernels)
                .tile(tile)
                .build();
    }

    /** Shard mode (one block into the store --out DIR) and --dry-run (the plan and its estimate). */
    private int shards(KernelRequest request, boolean shard, org.ntk4j.approx.ApproxSpec approxSpec) {
        TileRange requested = null;
        if (shard) {
            int given = (rows != null ? 1 : 0) + (testRows != null ? 1 : 0) + (holdoutRows != null ? 1 : 0);
            if (given != 1) {
                throw new UserException("shard mode needs exactly one of --rows A:B, --test-rows A:B or"
                        + " --holdout-rows A:B (with --approx), with --cols C:D");
            }
            String which = rows != null ? "--rows" : testRows != null ? "--test-rows" : "--holdout-rows";
            if (cols == null) {
                throw new UserException("shard mode needs --cols C:D with " + which);
            }
            if (holdoutRows != null && approxSpec == null) {
                throw new UserException("--holdout-rows names a block of a Nyström plan: it needs --approx nystrom:M");
            }
            String kernel = rows != null ? TileRange.TRAIN : testRows != null ? TileRange.TEST : TileRange.HOLDOUT;
            requested = TileRange.parse(kernel, rows != null ? rows : testRows != null ? testRows : holdoutRows, cols);
            if (Files.exists(out) && !Files.isDirectory(out)) {
                throw new UserException("--out " + out + " is a file; shard mode writes a shard store (a directory)");
            }
        }
        boolean testShard = requested != null && TileRange.TEST.equals(requested.kernel());
        for (String[] o : new String[][] {
            {"--factor-kernels", factorKernels && testShard ? "x" : null},
            {"--explain", explain ? "x" : null},
            {"--compress", compress ? "x" : null},
            {"--spill-dir", spillDir != null ? "x" : null}
        }) {
            if (o[1] != null) {
                throw new UserException(o[0] + " does not apply to shards (shard mode or --dry-run)");
            }
        }
        ShardJob job = new ShardJob(request, out, shardSize, workers, runtime.dataDir());
        if (approxSpec != null) {
            job.approx(approxSpec, approxHoldout);
        }
        try (NDManager m = runtime.manager()) {
            if (dryRun) {
                ShardPlanner.DryRun d = job.dryRun(m, Flags::of);
                d.summary().forEach(System.out::println);
                System.out.println("compute each shard with: ntk4j kernel <these options> --tile "
                        + d.plan().tile() + " --shard-size " + d.plan().shardSize()
                        + " --out DIR --rows A:B --cols C:D (or --test-rows"
                        + (approxSpec != null ? ", --holdout-rows" : "") + "), then: ntk4j kernel assemble DIR");
                d.shards().forEach(System.out::println);
                return 0;
            }
            ShardJob.Outcome o = job.compute(requested, force, m);
            if (o.existed()) {
                System.out.println("shard " + o.shard() + " exists in " + out
                        + " (checksums verified); --force computes it again");
                return 0;
            }
            System.out.println(String.format(
                    java.util.Locale.ROOT,
                    "shard %s (%d×%d, %d array%s, %s) in %.2fs -> %s; %d of %d shards done",
                    o.shard(),
                    o.shard().rows(),
                    o.shard().cols(),
                    o.arrays(),
                    o.arrays() == 1 ? "" : "s",
                    Ntk.bytes(o.bytes()),
                    o.seconds(),
                    o.dir(),
                    o.done(),
                    o.plan().shards().size()));
        }
        return 0;
    }

    private boolean matched(String option) {
        return spec != null
                && spec.commandLine().getParseResult() != null
                && spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    /**
     * The memory budget checked against this machine (MachineBudget.checkMemory): an explicit --memory it cannot give
     * is refused; the default is lowered to what it can give.
     */
    private long machineBudget(long budget) {
        MachineBudget.Memory m = MachineBudget.memory();
        boolean explicit = matched("--memory");
        if (!explicit && budget > m.limit() - MachineBudget.BASELINE) {
            return Math.max(1L << 20, m.limit() - MachineBudget.BASELINE);
        }
        MachineBudget.checkMemory(budget, "--memory", m, System.err::println);
        return budget;
    }

    static <E extends Enum<E>> E parse(Class<E> type, String v, String option) {
        try {
            return Enum.valueOf(type, v.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new UserException(option + " must be one of "
                    + java.util.Arrays.toString(type.getEnumConstants()).toLowerCase(Locale.ROOT) + " (got " + v + ")");
        }
    }

    /** "512m", "4g", "1t", "1000000" → bytes; k, m, g and t are powers of 1024 (also written kb, kib, ...). */
    static long parseBytes(String s) {
        return parseBytes(s, "--memory");
    }

    /** "512m", "4g", "1000000" → bytes; else a one-line error naming {@code option}. */
    static long parseBytes(String s, String option) {
        long b = Numbers.parseSize(s);
        if (b < 0) {
            throw new UserException(option + " must be a size like 512m, 4g or 1t (got " + s + ")");
        }
        return b;
    }
}
