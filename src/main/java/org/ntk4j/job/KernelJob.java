package org.ntk4j.job;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.ntk4j.UserException;
import org.ntk4j.data.Dataset;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.metrics.KernelMetrics;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.report.Files2;
import org.ntk4j.report.Npz;
import org.ntk4j.report.ProgressBar;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;
import org.ntk4j.train.Arrays2;

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

    public KernelJob(KernelJobConfig config) {
        this.c = config;
    }

    /** What a run produced: the sidecar's metrics and the kernels' seconds. */
    public record Result(Map<String, Object> metrics, Map<String, Object> sidecar) {}

    /** Runs the job on a manager the caller owns; {@code print} receives the summary (and --explain) lines. */
    public Result run(NDManager m, Consumer<String> print) {
        KernelFiles files = KernelFiles.prepare(c.out(), c.force(), c.spillDir(), c.format() == Npz.Format.NPY);
        try {
            return run(m, print, files);
        } finally {
            files.close();
        }
    }

    /**
     * The training samples of the job: the first N of the dataset's training split, or {@code perClass} of
     * every class ordered by class, zero-padded by {@code pad}; the rows and columns of Θ(X1, X1).
     */
    public Dataset trainSet() {
        Dataset train = Datasets.load(c.dataset(), Split.TRAIN, c.dataDir());
        if (c.perClass() != null) {
            train = byClass(Preprocess.balancedSample(train, c.perClass(), c.seed()));
        } else {
            if (c.n() > train.size()) {
                throw new UserException(
                        "--n " + c.n() + " exceeds the " + train.size() + " training images of " + c.dataset());
            }
            train = train.head(c.n());
        }
        if (c.pad() != null) {
            train = Preprocess.pad(train, c.pad());
        }
        return train;
    }

    /** The test samples of the job (the first M of the test split, padded), the rows of Θ(X2, X1); null when M = 0. */
    public Dataset testSet() {
        int test = c.test();
        if (test == 0) {
            return null;
        }
        Dataset testSet = Datasets.load(c.dataset(), Split.TEST, c.dataDir());
        if (test > testSet.size()) {
            throw new UserException(
                    "--test " + test + " exceeds the " + testSet.size() + " test images of " + c.dataset());
        }
        testSet = testSet.head(test);
        if (c.pad() != null) {
            testSet = Preprocess.pad(testSet, c.pad());
        }
        return testSet;
    }

    /** The network of the job: built from the spec and seed, its weights loaded, cast to the job's dtype (caller closes). */
    public Network network(NDManager m) {
        return network(ModelSpec.resolve(c.model()), c.seed(), c.weights(), c.dtype(), m);
    }

    /** A network built from {@code spec} and {@code seed}, the weights (if not null) loaded, cast to {@code dtype}. */
    public static Network network(ModelSpec spec, long seed, Path weights, DataType dtype, NDManager m) {
        Network net = Network.build(spec, seed, m);
        try {
            if (weights != null) {
                net.loadParameters(weights);
            }
            net.cast(dtype);
            return net;
        } catch (RuntimeException e) {
            net.close();
            throw e;
        }
    }

    /**
     * The kernel the job computes on {@code net} (its features with {@code features}): mode, method, per-layer,
     * float64, factor kernels, normalisation and the fixed tile of the config; memory and spill are left to the caller.
     */
    public Ntk ntk(Network net) {
        Network target = c.features() ? net.features() : net;
        Ntk ntk = Ntk.of(target).mode(c.mode()).method(c.method());
        if (c.perLayer()) {
            ntk.perLayer();
        }
        if (c.dtype() == DataType.FLOAT64) {
            ntk.float64();
        }
        if (c.factorKernels()) {
            ntk.factorKernels();
        }
        if (c.meanNormalised()) {
            ntk.meanNormalised();
        }
        if (c.tile() != null) {
            ntk.tile(c.tile());
        }
        return ntk;
    }

    /** Samples [from, to) of {@code data} as the network's input batch (to − from, input...) in the job's dtype. */
    public NDArray inputs(NDManager m, Network net, Dataset data, int from, int to) {
        int d = data.featureDim();
        float[] rows = java.util.Arrays.copyOfRange(data.features(), from * d, to * d);
        return Arrays2.fromFloats(m, rows, shape(net, to - from), c.dtype());
    }

    private Result run(NDManager m, Consumer<String> print, KernelFiles files) {
        ModelSpec spec = ModelSpec.resolve(c.model());
        Dataset train = trainSet();
        int n = train.size();
        Dataset testSet = testSet();
        int test = c.test();
        DataType dt = c.dtype();
        Path out = c.out();
        long t0 = System.nanoTime();
        try (Network net = network(m)) {
            checkShape(net, train);
            NDArray x1 = Arrays2.fromFloats(m, train.features(), shape(net, n), dt);
            Network target = c.features() ? net.features() : net;
            // host buffers of the job beside the kernels: inputs (dataset, native, NPZ copy) and parameters (native,
            // NPZ copy)
            // and the metrics' N×N float64 matrices (traced kernel, centred copy, spectrum: about 6)
            long extras = 3L * x1.size() * 4
                    + 2L * net.parameterCount() * 4
                    + KernelMetrics.workingBytes(n)
                    + (testSet == null ? 0 : 3L * testSet.size() * testSet.featureDim() * 4);
            Ntk ntk = ntk(net);
            ntk.spillDir(files.spillDir());
            if (c.spillDir() != null
                    && dt == DataType.FLOAT32
                    && !ntk.estimate(n, n).outputsOnDisk()
                    && ntk.estimate(n, n).outputBytes()
                                    + (test > 0 ? ntk.estimate(test, n).outputBytes() : 0)
                                    + extras
                            > c.memory()) {
                // the output does not fit the budget: with --spill-dir it is accumulated on disk instead
                ntk.onDisk(files.spillDir());
            }
            long[] tileBudgets = preflight(ntk, n, test, extras);
            ntk.memory(tileBudgets[0]);
            checkMachine(ntk, n, test, files, m);
            if (c.explain()) {
                ntk.plan(n, n).forEach((k, v) -> print.accept(k + ": " + v));
            }
            ProgressBar bar = new ProgressBar("ntk " + n + "x" + n, 1000);
            KernelResult k =
                    ntk.onProgress(f -> bar.update(Math.round(f * 1000))).compute(x1);
            KernelResult kt = null;
            NDArray x2 = null;
            if (testSet != null) {
                x2 = Arrays2.fromFloats(m, testSet.features(), shape(net, test), dt);
                ProgressBar bar2 = new ProgressBar("ntk " + test + "x" + n, 1000);
                // the train kernel is held meanwhile: the test kernel's tiles get what is left of the budget
                kt = ntk.memory(tileBudgets[1])
                        .onProgress(f -> bar2.update(Math.round(f * 1000)))
                        .compute(x2, x1);
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
            String mode = c.mode().name().toLowerCase(Locale.ROOT);
            Map<String, Object> side = new LinkedHashMap<>();
            side.put("format", KernelFiles.FORMAT);
            side.put("model", spec);
            side.put("seed", c.seed());
            side.put("kernel", c.features() ? "features (Θ^h, " + target.outputs() + " outputs)" : "ntk");
            side.put("weights", c.weights() == null ? null : c.weights().toString());
            side.put("dataset", c.dataset());
            side.put("n", n);
            side.put("test", test);
            side.put("mode", mode);
            // what was applied: --normalisation mean divides by O in trace mode only (as neural-tangents does)
            side.put("normalisation", c.meanNormalised() && c.mode() == org.ntk4j.kernel.Mode.TRACE ? "mean" : "sum");
            if (c.meanNormalised() && c.mode() != org.ntk4j.kernel.Mode.TRACE) {
                side.put(
                        "normalisation_note",
                        "mean applies to traced kernels only; this " + mode + " kernel is not divided by O");
            }
            side.put("dtype", dt.toString());
            side.put("device", m.getDevice().toString());
            side.put("parameters", net.parameterCount());
            side.put("memory_budget_bytes", c.memory());
            side.put("methods", k.methods());
            side.put("seconds_train_kernel", k.seconds());
            side.put("phases_train_kernel", k.timings());
            side.put("seconds_test_kernel", kt == null ? null : kt.seconds());
            Map<String, Object> metrics = KernelMetrics.of(k, train, n);
            side.put("metrics", metrics);
            side.put("seconds_total", (System.nanoTime() - t0) / 1e9);
            side.put("peak_heap_bytes", peakHeap());
            side.put("peak_rss_bytes", peakRss());
            // the sidecar inside the NPZ too (entry meta.json, UTF-8 bytes as uint8), so the NPZ alone says what it
            // holds
            byte[] meta = (Specs.toJson(side) + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            try (NDManager mm = m.newSubManager()) {
                npz.put("meta.json", mm.create(java.nio.ByteBuffer.wrap(meta), new Shape(meta.length), DataType.UINT8));
                if (c.format() == Npz.Format.NPY) {
                    files.publishDirectory(() -> npz.write(out), () -> {
                        side.put("npy_dir", out.getFileName().toString());
                        side.put("npy_sha256", KernelFiles.sha256Dir(out));
                        return Specs.toJson(side) + "\n";
                    });
                } else {
                    Path npzTmp = files.npzTemp();
                    npz.write(npzTmp);
                    side.put("npz", out.getFileName().toString());
                    side.put("npz_sha256", KernelFiles.sha256(npzTmp));
                    Path jsonTmp = files.sidecarTemp();
                    Files2.writeString(jsonTmp, Specs.toJson(side) + "\n");
                    files.publish(npzTmp, jsonTmp);
                }
            } finally {
                release(k);
                release(kt);
            }
            print.accept(String.format(
                    "NTK %s of %d %s images (%s, %d parameters) in %.2fs -> %s",
                    mode, n, c.dataset(), spec.name(), net.parameterCount(), k.seconds(), out));
            if (metrics.containsKey(KernelMetrics.CENTERED_ALIGNMENT)) {
                print.accept(summary(metrics));
            }
            return new Result(metrics, side);
        }
    }

    /**
     * Refuses, before any work, a kernel that cannot run within the memory budget: one line naming the
     * smallest budget that works (the output kernels, the tiles with one sample, and the job's inputs
     * and parameters), or saying that the output alone exceeds it and must go to disk.
     */
    long[] preflight(Ntk ntk, int n, int test, long extras) {
        long budget = c.memory();
        long base = budget - extras;
        Ntk.MemoryEstimate a0 = ntk.memory(Math.max(1, base)).estimate(n, n);
        Ntk.MemoryEstimate b0 = test > 0 ? ntk.estimate(test, n) : null;
        long aHeld = a0.heldOutputBytes();
        long bHeld = b0 == null ? 0 : b0.heldOutputBytes();
        // the train kernel's tiles get what its output leaves; the test kernel's what both outputs leave
        long trainTiles = base - aHeld;
        long testTiles = base - aHeld - bHeld;
        Ntk.MemoryEstimate a = ntk.memory(Math.max(1, trainTiles)).estimate(n, n);
        Ntk.MemoryEstimate b = test > 0 ? ntk.memory(Math.max(1, testTiles)).estimate(test, n) : null;
        boolean fits = trainTiles >= a.minWorkingBytes() && (b == null || testTiles >= b.minWorkingBytes());
        if (fits) {
            return new long[] {trainTiles, testTiles};
        }
        long output = aHeld + bHeld;
        long tiles = Math.max(a.minWorkingBytes(), b == null ? 0 : b.minWorkingBytes());
        long smallest = output + tiles + extras;
        if (output > budget) {
            throw new UserException(
                    "the output kernels alone need " + Ntk.bytes(output) + ", more than the memory budget (--memory "
                            + Ntk.bytes(budget) + "): raise --memory to at least " + Ntk.bytes(smallest)
                            + (c.dtype() == DataType.FLOAT64
                                    ? " (float64 is heap-only)"
                                    : ", or accumulate them on disk with --spill-dir DIR (float32)"));
        }
        throw new UserException(
                "memory budget " + Ntk.bytes(budget) + " (--memory) is too small for this kernel: it needs at least "
                        + Ntk.bytes(smallest) + " (output kernels " + Ntk.bytes(output) + ", one-sample tiles "
                        + Ntk.bytes(tiles)
                        + ", inputs and parameters " + Ntk.bytes(extras) + ")");
    }

    /**
     * Before any work: free disk for the output (and for the kernels accumulated on disk), and the device's memory
     * for the tiles' working set (MachineBudget).
     */
    private void checkMachine(Ntk ntk, int n, int test, KernelFiles files, NDManager m) {
        Ntk.MemoryEstimate a = ntk.estimate(n, n);
        Ntk.MemoryEstimate b = test > 0 ? ntk.estimate(test, n) : null;
        long output = a.outputBytes() + (b == null ? 0 : b.outputBytes());
        long spilled =
                (a.outputsOnDisk() ? a.outputBytes() : 0) + (b != null && b.outputsOnDisk() ? b.outputBytes() : 0);
        MachineBudget.checkDisk(java.util.List.of(
                new MachineBudget.Disk(files.out().getParent(), output, "--out " + c.out()),
                new MachineBudget.Disk(
                        files.spillDir().getParent(),
                        spilled,
                        "the kernels accumulated on disk ("
                                + (c.spillDir() != null ? "--spill-dir " + c.spillDir() : "beside --out") + ")")));
        MachineBudget.checkDevice(
                a.workingBytes(),
                "the tiles' working set (--memory, --tile)",
                m.getDevice().toString(),
                MachineBudget.deviceMemory(m.getDevice()));
    }

    private static void release(KernelResult r) {
        if (r == null) {
            return;
        }
        r.total().release();
        r.layers().values().forEach(org.ntk4j.kernel.KernelMatrix::release);
        r.factorKernels().values().forEach(org.ntk4j.kernel.KernelMatrix::release);
    }

    /** The one-line metrics summary printed after the kernel. */
    static String summary(Map<String, Object> metrics) {
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
        return line.toString();
    }

    /** The samples reordered by class label (stable), so that kernels show their class blocks. */
    public static Dataset byClass(Dataset d) {
        Integer[] idx = new Integer[d.size()];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = i;
        }
        int[] labels = d.labels();
        java.util.Arrays.sort(idx, java.util.Comparator.comparingInt(i -> labels[i]));
        return d.subset(java.util.Arrays.stream(idx).mapToInt(Integer::intValue).toArray());
    }

    /** Labels (N) of a classification set, or the targets (N × O) of a regression set. */
    static void putTargets(Npz npz, String key, Dataset data, int n) {
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

    static void checkShape(Network net, Dataset d) {
        if (net.inputShape().size() != d.featureDim()) {
            throw new UserException("model " + net.spec().name() + " expects inputs of shape " + net.inputShape()
                    + " but " + d.name() + " samples have shape " + java.util.Arrays.toString(d.sampleShape()));
        }
    }

    static long peakHeap() {
        long peak = 0;
        for (var pool : java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == java.lang.management.MemoryType.HEAP && pool.getPeakUsage() != null) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        return peak;
    }

    /** Peak resident set size of the process (VmHWM, Linux), including native PyTorch memory; -1 elsewhere. */
    static long peakRss() {
        try {
            for (String line : java.nio.file.Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (java.io.IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }
}
