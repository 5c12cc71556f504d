package org.ntk4j.job;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.ntk4j.OptionException;
import org.ntk4j.UserException;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.io.KernelFiles;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.metrics.KernelMetrics;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.report.Files2;
import org.ntk4j.report.Npz;
import org.ntk4j.report.ProgressBar;
import org.ntk4j.request.KernelOption;
import org.ntk4j.request.KernelRequest;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;
import org.ntk4j.train.Arrays2;
import org.ntk4j.util.Machine;
import org.ntk4j.util.MachineBudget;
import org.ntk4j.util.Phases;

/**
 * The kernel job, callable from Java: resolves the model spec, weights and dataset of a
 * {@link KernelJobConfig}, computes the empirical NTK (train × train, and test × train), its
 * {@link KernelMetrics}, writes the NPZ and its JSON sidecar, and hands its summary lines to a
 * callback ({@code System.out::println} in the CLI).
 *
 * <p>NPZ entries: ntk (N×N | N×N×O | N×N×O×O), ntk.&lt;layer&gt; (per layer), ntk_test (M×N...), x1, y1
 * (labels, or a regression set's targets), x2, y2, and every parameter under its name.
 */
public final class KernelJob {
    private final KernelJobConfig c;
    private final KernelRequest r;
    private KernelMetrics.Options metricsOptions = KernelMetrics.Options.DEFAULT;

    public KernelJob(KernelJobConfig config) {
        this.c = config;
        this.r = config.request();
    }

    /** What the sidecar's metrics compute beyond the reductions (default: 32 leading eigenvalues, no exact spectrum). */
    public KernelJob metrics(KernelMetrics.Options options) {
        this.metricsOptions = options;
        return this;
    }

    /** What a run produced: the kernel's metrics and the sidecar written. */
    public record Result(Map<String, Object> metrics, KernelSidecar sidecar) {}

    /** Runs the job on a manager the caller owns; {@code print} receives the summary (and --explain) lines. */
    public Result run(NDManager m, Consumer<String> print) {
        KernelFiles files =
                KernelFiles.prepare(c.out(), c.force(), r.options().spillDir(), c.format() == Npz.Format.NPY);
        try {
            return run(m, print, files);
        } finally {
            files.close();
        }
    }

    private Result run(NDManager m, Consumer<String> print, KernelFiles files) {
        ModelSpec spec = r.spec();
        LabelledSet train = r.trainSet(c.dataDir());
        int n = train.size();
        LabelledSet testSet = r.testSet(c.dataDir());
        int test = r.samples().test();
        DataType dt = r.dtype();
        Path out = c.out();
        Phases.mark("data read");
        long t0 = System.nanoTime();
        try (Network net = r.network(m)) {
            Phases.mark("network built");
            checkShape(net, train);
            NDArray x1 = Arrays2.owned(m, train, shape(net, n), dt);
            Phases.mark("inputs in engine");
            Network target = r.features() ? net.features() : net;
            // host buffers of the job beside the kernels: inputs (dataset, native, NPZ copy) and parameters (native,
            // NPZ copy); the metrics' working set comes after the tiles are freed, so it is checked on its own below
            long extras = 3L * x1.size() * 4
                    + 2L * net.parameterCount() * 4
                    + (testSet == null ? 0 : 3L * testSet.size() * testSet.featureDim() * 4);
            long metricsBytes =
                    KernelMetrics.workingBytes(n, innerEntries(r.options().mode(), target.outputs()), metricsOptions);
            Ntk ntk = r.ntk(net);
            ntk.spillDir(files.spillDir());
            if (r.options().spillDir() != null
                    && dt == DataType.FLOAT32
                    && !ntk.estimate(n, n).outputsOnDisk()
                    && ntk.estimate(n, n).outputBytes()
                                    + (test > 0 ? ntk.estimate(test, n).outputBytes() : 0)
                                    + extras
                            > r.options().memoryBytes()) {
                // the output does not fit the budget: with --spill-dir it is accumulated on disk instead
                ntk.onDisk(files.spillDir());
            }
            // the metrics' working set is reserved beside the tiles; where the budget cannot hold it too, the kernel is
            // still computed and the metrics are skipped, saying so in the sidecar
            boolean metricsFit = tilePlan(ntk, n, test, extras + metricsBytes).fits();
            long[] tileBudgets = preflight(ntk, n, test, metricsFit ? extras + metricsBytes : extras);
            String metricsSkipped = metricsFit
                    ? null
                    : "not computed: their working set (" + Ntk.bytes(metricsBytes)
                            + ") does not fit the memory budget beside the kernels; raise --memory for them";
            ntk.memory(tileBudgets[0]);
            Ntk.MemoryEstimate placed = ntk.estimate(n, n, m.getDevice());
            placed.check();
            checkMachine(ntk, n, test, files, m, besideKernels(net, x1, train, n, testSet, test));
            if (c.explain()) {
                ntk.plan(n, n).forEach((k, v) -> print.accept(k + ": " + v));
                print.accept(placed.explain());
            }
            ProgressBar bar = new ProgressBar("ntk " + n + "x" + n, 1000);
            KernelResult k =
                    ntk.onProgress(f -> bar.update(Math.round(f * 1000))).compute(x1);
            Phases.mark("kernel computed");
            KernelResult kt = null;
            NDArray x2 = null;
            if (testSet != null) {
                x2 = Arrays2.owned(m, testSet, shape(net, test), dt);
                ProgressBar bar2 = new ProgressBar("ntk " + test + "x" + n, 1000);
                // the train kernel is held meanwhile: the test kernel's tiles get what is left of the budget
                kt = ntk.memory(tileBudgets[1])
                        .onProgress(f -> bar2.update(Math.round(f * 1000)))
                        .compute(x2, x1);
            }
            if (c.explain()) {
                print.accept(k.stats().explain());
            }
            Npz npz = new Npz().format(c.format()).compress(c.compress()).put("ntk", k.total());
            k.layers().forEach((name, km) -> npz.put("ntk." + name, km));
            k.factorKernels().forEach((name, km) -> npz.put("ntk." + name, km));
            if (kt != null) {
                npz.put("ntk_test", kt.total());
                kt.layers().forEach((name, km) -> npz.put("ntk_test." + name, km));
            }
            npz.put("x1", x1);
            putTargets(npz, "y1", train, n);
            if (x2 != null) {
                npz.put("x2", x2);
                putTargets(npz, "y2", testSet, test);
            }
            for (Param p : net.params()) {
                npz.put(p.name(), p.value());
            }
            Mode md = r.options().mode();
            String mode = md.name().toLowerCase(Locale.ROOT);
            // The NPZ goes to the disk while the metrics run (they only read the kernels): its last entry, the sidecar
            // (meta.json, UTF-8 bytes as uint8, so the NPZ alone says what it holds), waits for them. A directory of
            // .npy files is written after them, as a step of its publishing (the old sidecar goes first).
            boolean zip = c.format() != Npz.Format.NPY;
            CompletableFuture<byte[]> meta = new CompletableFuture<>();
            npz.putLater("meta.json", meta);
            Path npzTmp = zip ? files.npzTemp() : null;
            CompletableFuture<String> npzSha = zip ? writeInBackground(npz, npzTmp) : null;
            KernelSidecar[] written = {null};
            try {
                long metricsStart = System.nanoTime();
                // the kernels' tiles are done: their budget holds the metrics' engine copy of a host kernel
                Map<String, Object> metrics = metricsSkipped != null
                        ? Map.of("skipped", metricsSkipped)
                        : KernelMetrics.of(m, k, train, n, metricsOptions, tileBudgets[1]);
                double metricsSeconds = (System.nanoTime() - metricsStart) / 1e9;
                Phases.mark("metrics");
                // what was applied: mean normalisation divides by O in trace mode only (as neural-tangents does)
                KernelSidecar side = new KernelSidecar(
                        KernelFiles.FORMAT,
                        spec,
                        r.seed(),
                        r.features() ? "features (Θ^h, " + target.outputs() + " outputs)" : "ntk",
                        r.weights() == null ? null : r.weights().toString(),
                        r.samples().dataset(),
                        n,
                        test,
                        mode,
                        r.normalisation(),
                        r.options().meanNormalised() && md != Mode.TRACE
                                ? "mean applies to traced kernels only; this " + mode + " kernel is not divided by O"
                                : null,
                        dt.toString(),
                        m.getDevice().toString(),
                        org.ntk4j.util.Devices.tf32State(),
                        net.parameterCount(),
                        r.options().memoryBytes(),
                        k.methods(),
                        k.seconds(),
                        k.timings(),
                        kt == null ? null : kt.seconds(),
                        placed.toMap(),
                        k.stats().toMap(),
                        kt == null ? null : kt.stats().toMap(),
                        metrics,
                        metricsSeconds,
                        (System.nanoTime() - t0) / 1e9,
                        Machine.peakHeapBytes(),
                        Machine.peakRssBytes(),
                        null,
                        null,
                        null,
                        null);
                written[0] = side;
                meta.complete((Specs.toJson(side) + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                if (!zip) {
                    java.util.SortedMap<String, String> hashes = new java.util.TreeMap<>();
                    files.publishDirectory(() -> hashes.putAll(npz.writeHashed(out)), () -> {
                        written[0] = side.withNpy(out.getFileName().toString(), hashes);
                        return Specs.toJson(written[0]) + "\n";
                    });
                } else {
                    String sha = await(npzSha);
                    Phases.mark("npz written");
                    written[0] = side.withNpz(out.getFileName().toString(), sha);
                    Path jsonTmp = files.sidecarTemp();
                    Files2.writeString(jsonTmp, Specs.toJson(written[0]) + "\n");
                    files.publish(npzTmp, jsonTmp);
                }
                Phases.mark("sidecar and publish");
            } finally {
                // on a failure the writer stops at the sidecar's entry and deletes its temporary; the kernels it reads
                // are released only once it has ended
                meta.completeExceptionally(new IllegalStateException("the kernel job failed before its sidecar"));
                if (npzSha != null) {
                    npzSha.handle((sha, failure) -> null).join(); // ended, however: a failure was or is reported
                }
                release(k);
                release(kt);
            }
            Map<String, Object> metrics = written[0].metrics();
            print.accept(String.format(
                    "NTK %s of %d %s images (%s, %d parameters) in %.2fs -> %s",
                    mode, n, r.samples().dataset(), spec.name(), net.parameterCount(), k.seconds(), out));
            if (metrics.containsKey(KernelMetrics.CENTERED_ALIGNMENT)) {
                print.accept(summary(metrics));
            } else if (metrics.containsKey(KernelMetrics.NON_FINITE_ENTRIES)) {
                // the kernel is written as computed; the user learns why it has no metrics before using it
                System.err.println("ntk4j: warning: " + summary(metrics)
                        + (dt == DataType.FLOAT32 ? "; try --dtype float64" : ""));
            }
            return new Result(metrics, written[0]);
        }
    }

    /** Kernel entries per sample pair: 1 traced, O diagonal, O² full. */
    private static long innerEntries(Mode mode, int outputs) {
        return mode == Mode.TRACE ? 1 : mode == Mode.DIAGONAL ? outputs : (long) outputs * outputs;
    }

    /**
     * How the memory budget splits for these kernels beside {@code extras} bytes of other working set: the train
     * kernel's tiles get what its held output leaves, the test kernel's what both held outputs leave; the kernels fit
     * where each tile budget holds at least one sample's tiles.
     */
    private record TilePlan(long trainTiles, long testTiles, long heldOutputBytes, long minTileBytes, boolean fits) {}

    /** The tile budgets within the memory budget beside {@code extras}, and whether they fit; throws nothing. */
    private TilePlan tilePlan(Ntk ntk, int n, int test, long extras) {
        long base = r.options().memoryBytes() - extras;
        Ntk.MemoryEstimate a0 = ntk.memory(Math.max(1, base)).estimate(n, n);
        Ntk.MemoryEstimate b0 = test > 0 ? ntk.estimate(test, n) : null;
        long aHeld = a0.heldOutputBytes();
        long bHeld = b0 == null ? 0 : b0.heldOutputBytes();
        long trainTiles = base - aHeld;
        long testTiles = base - aHeld - bHeld;
        Ntk.MemoryEstimate a = ntk.memory(Math.max(1, trainTiles)).estimate(n, n);
        Ntk.MemoryEstimate b = test > 0 ? ntk.memory(Math.max(1, testTiles)).estimate(test, n) : null;
        boolean fits = trainTiles >= a.minWorkingBytes() && (b == null || testTiles >= b.minWorkingBytes());
        long tiles = Math.max(a.minWorkingBytes(), b == null ? 0 : b.minWorkingBytes());
        return new TilePlan(trainTiles, testTiles, aHeld + bHeld, tiles, fits);
    }

    /**
     * Refuses, before any work, a kernel that cannot run within the memory budget: one line naming the
     * smallest budget that works (the output kernels, the tiles with one sample, and the job's inputs
     * and parameters), or saying that the output alone exceeds it and must go to disk.
     */
    long[] preflight(Ntk ntk, int n, int test, long extras) {
        TilePlan p = tilePlan(ntk, n, test, extras);
        if (p.fits()) {
            return new long[] {p.trainTiles(), p.testTiles()};
        }
        long budget = r.options().memoryBytes();
        long output = p.heldOutputBytes();
        long tiles = p.minTileBytes();
        long smallest = output + tiles + extras;
        if (output > budget) {
            boolean float64 = r.dtype() == DataType.FLOAT64;
            throw new OptionException(
                    "the output kernels alone need " + Ntk.bytes(output) + ", more than the memory budget (",
                    KernelOption.MEMORY,
                    " " + Ntk.bytes(budget) + "): raise ",
                    KernelOption.MEMORY,
                    " to at least " + Ntk.bytes(smallest)
                            + (float64 ? " (float64 is heap-only)" : ", or accumulate them on disk with "),
                    float64 ? "" : KernelOption.SPILL_DIR,
                    float64 ? "" : " DIR (float32)");
        }
        throw new OptionException(
                "memory budget " + Ntk.bytes(budget) + " (",
                KernelOption.MEMORY,
                ") is too small for this kernel: it needs at least " + Ntk.bytes(smallest) + " (output kernels "
                        + Ntk.bytes(output) + ", one-sample tiles " + Ntk.bytes(tiles) + ", inputs and parameters "
                        + Ntk.bytes(extras) + ")");
    }

    /**
     * Bytes the output holds beside its kernels: the inputs x1 (and x2), the targets, every parameter, and 1 MiB for
     * the zip's and .npy headers and the sidecar entry (a few KiB; ~250 KiB with 10,000 eigenvalues).
     */
    private static long besideKernels(
            Network net, NDArray x1, LabelledSet train, int n, LabelledSet testSet, int test) {
        long width = x1.getDataType().getNumOfBytes();
        long inputs = x1.size() * width + (testSet == null ? 0 : (long) test * testSet.featureDim() * width);
        long targets = targetBytes(train, n, test);
        long params = 0;
        for (Param p : net.params()) {
            params += p.value().size() * p.value().getDataType().getNumOfBytes();
        }
        return inputs + targets + params + (1L << 20);
    }

    /**
     * Before any work: free disk for the output (and for the kernels accumulated on disk), and the device's memory
     * for the tiles' working set (MachineBudget).
     */
    private void checkMachine(Ntk ntk, int n, int test, KernelFiles files, NDManager m, long beside) {
        checkDisk(ntk, n, test, beside, files, c.out(), r.options().spillDir());
        Ntk.MemoryEstimate a = ntk.estimate(n, n);
        MachineBudget.checkDevice(
                a.workingBytes(),
                "the tiles' working set (--memory, --tile)",
                m.getDevice().toString(),
                MachineBudget.deviceMemory(m.getDevice()));
    }

    /**
     * Refuses, before any work, an output its file systems cannot hold: the kernels Θ(X1, X1) (and Θ(X2, X1) when
     * {@code test} &gt; 0) of {@code ntk} with {@code beside} bytes of everything else the output holds, at {@code out};
     * the kernels accumulated on disk, beside {@code out} or in {@code spillDir} (null: none given). The kernel job's
     * and the pNTK's check.
     */
    static void checkDisk(Ntk ntk, int n, int test, long beside, KernelFiles files, Path out, Path spillDir) {
        Ntk.MemoryEstimate a = ntk.estimate(n, n);
        Ntk.MemoryEstimate b = test > 0 ? ntk.estimate(test, n) : null;
        long output = a.outputBytes() + (b == null ? 0 : b.outputBytes()) + beside;
        long spilled =
                (a.outputsOnDisk() ? a.outputBytes() : 0) + (b != null && b.outputsOnDisk() ? b.outputBytes() : 0);
        MachineBudget.checkDisk(java.util.List.of(
                new MachineBudget.Disk(files.out().getParent(), output, "--out " + out),
                new MachineBudget.Disk(
                        files.spillDir().getParent(),
                        spilled,
                        "the kernels accumulated on disk ("
                                + (spillDir != null ? "--spill-dir " + spillDir : "beside --out")
                                + ")")));
    }

    /** Bytes of the targets y1 (and y2) an output holds: int32 labels, or a regression set's float32 targets. */
    static long targetBytes(LabelledSet train, int n, int test) {
        return 4L * (n + test) * (train.isRegression() ? train.targetOutputs() : 1);
    }

    /** Writes {@code npz} to {@code tmp} on a daemon thread of its own; the future gives the file's SHA-256. */
    private static CompletableFuture<String> writeInBackground(Npz npz, Path tmp) {
        return CompletableFuture.supplyAsync(
                () -> npz.writeHashed(tmp).values().iterator().next(), task -> {
                    Thread t = new Thread(task, "ntk4j-npz-writer");
                    t.setDaemon(true);
                    t.start();
                });
    }

    /** The value of {@code f}, or what it threw, as it was thrown. */
    private static <T> T await(CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    private static void release(KernelResult r) {
        if (r == null) {
            return;
        }
        r.release();
    }

    /** The one-line metrics summary printed after the kernel. */
    static String summary(Map<String, Object> metrics) {
        if (metrics.get("skipped") instanceof String why) {
            return "kernel metrics " + why;
        }
        StringBuilder line = new StringBuilder(String.format(
                "kernel-target alignment %.4f (centred %.4f)",
                metrics.get(KernelMetrics.ALIGNMENT), metrics.get(KernelMetrics.CENTERED_ALIGNMENT)));
        if (metrics.containsKey(KernelMetrics.THETA_C_OVER_D)) {
            line.append(String.format(
                    "; label awareness Θc/Θd %.4f, Θn/Θd %.4f",
                    metrics.get(KernelMetrics.THETA_C_OVER_D), metrics.get(KernelMetrics.THETA_N_OVER_D)));
        }
        if (metrics.containsKey("gamma_d")) {
            line.append(String.format(
                    "; blocks γd %.4g, γc %.4g, γn %.4g",
                    metrics.get("gamma_d"), metrics.get("gamma_c"), metrics.get("gamma_n")));
        }
        if (metrics.containsKey(KernelMetrics.EFFECTIVE_RANK)) {
            line.append(String.format("; effective rank %.2f", metrics.get(KernelMetrics.EFFECTIVE_RANK)));
        }
        if (metrics.get(KernelMetrics.EIGENVALUES) instanceof double[] ev) {
            line.append(String.format("; λ1 %.4g", ev[0]));
            if (metrics.containsKey(KernelMetrics.EIGEN_RESIDUAL)) {
                int passes = ((Number) metrics.get(KernelMetrics.EIGEN_PASSES)).intValue();
                line.append(String.format(
                        " (%d leading eigenpair%s, residual ‖Tv−λv‖ ≤ %.1e·λ1 after %d pass%s%s)",
                        ev.length,
                        ev.length == 1 ? "" : "s",
                        metrics.get(KernelMetrics.EIGEN_RESIDUAL),
                        passes,
                        passes == 1 ? "" : "es",
                        Boolean.TRUE.equals(metrics.get(KernelMetrics.EIGEN_CONVERGED)) ? "" : ", not converged"));
            } else {
                line.append(" (exact spectrum)");
            }
        }
        return line.toString();
    }

    /** Labels (N) of a classification set, or the targets (N × O) of a regression set. */
    static void putTargets(Npz npz, String key, LabelledSet data, int n) {
        if (data.isRegression()) {
            int o = data.targetOutputs();
            npz.put(key, java.util.Arrays.copyOf(data.targets(), n * o), n, o);
        } else {
            npz.put(key, data.labels(), n);
        }
    }

    static Shape shape(Network net, int n) {
        long[] s = new long[net.inputShape().dimension() + 1];
        s[0] = n;
        System.arraycopy(net.inputShape().getShape(), 0, s, 1, s.length - 1);
        return new Shape(s);
    }

    static void checkShape(Network net, LabelledSet d) {
        if (net.inputShape().size() != d.featureDim()) {
            throw new UserException("model " + net.spec().name() + " expects inputs of shape " + net.inputShape()
                    + " but " + d.name() + " samples have shape " + java.util.Arrays.toString(d.sampleShape()));
        }
    }
}
