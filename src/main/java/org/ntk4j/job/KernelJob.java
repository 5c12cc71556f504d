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
    public record Result(Map<String, Object> metrics, Map<String, Object> sidecar) { }

    /** Runs the job on a manager the caller owns; {@code print} receives the summary (and --explain) lines. */
    public Result run(NDManager m, Consumer<String> print) {
        ModelSpec spec = ModelSpec.resolve(c.model());
        int n = c.n();
        Dataset train = Datasets.load(c.dataset(), Split.TRAIN, c.dataDir());
        if (c.perClass() != null) {
            if (c.perClass() < 1) {
                throw new UserException("--per-class must be >= 1 (got " + c.perClass() + ")");
            }
            train = byClass(Preprocess.balancedSample(train, c.perClass(), c.seed()));
            n = train.size();
        } else {
            if (n > train.size()) {
                throw new UserException("--n " + n + " exceeds the " + train.size() + " training images of " + c.dataset());
            }
            train = train.head(n);
        }
        if (c.pad() != null) {
            train = Preprocess.pad(train, c.pad());
        }
        int test = c.test();
        Dataset testSet = null;
        if (test > 0) {
            testSet = Datasets.load(c.dataset(), Split.TEST, c.dataDir());
            if (test > testSet.size()) {
                throw new UserException("--test " + test + " exceeds the " + testSet.size() + " test images of " + c.dataset());
            }
            testSet = testSet.head(test);
            if (c.pad() != null) {
                testSet = Preprocess.pad(testSet, c.pad());
            }
        }
        DataType dt = c.dtype();
        Path out = c.out();
        long t0 = System.nanoTime();
        try (Network net = Network.build(spec, c.seed(), m)) {
            if (c.weights() != null) {
                net.loadParameters(c.weights());
            }
            net.cast(dt);
            checkShape(net, train);
            NDArray x1 = Arrays2.fromFloats(m, train.features(), shape(net, n), dt);
            Network target = c.features() ? net.features() : net;
            Ntk ntk = Ntk.of(target).mode(c.mode()).method(c.method()).memory(c.memory());
            if (c.perLayer()) {
                ntk.perLayer();
            }
            if (dt == DataType.FLOAT64) {
                ntk.float64();
            }
            if (c.factorKernels()) {
                ntk.factorKernels();
            }
            if (c.meanNormalised()) {
                ntk.meanNormalised();
            }
            if (c.explain()) {
                ntk.plan(n, n).forEach((k, v) -> print.accept(k + ": " + v));
            }
            ProgressBar bar = new ProgressBar("ntk " + n + "x" + n, 1000);
            KernelResult k = ntk.onProgress(f -> bar.update(Math.round(f * 1000))).compute(x1);
            KernelResult kt = null;
            NDArray x2 = null;
            if (testSet != null) {
                x2 = Arrays2.fromFloats(m, testSet.features(), shape(net, test), dt);
                ProgressBar bar2 = new ProgressBar("ntk " + test + "x" + n, 1000);
                kt = ntk.onProgress(f -> bar2.update(Math.round(f * 1000))).compute(x2, x1);
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
            npz.write(out);
            String mode = c.mode().name().toLowerCase(Locale.ROOT);
            Map<String, Object> side = new LinkedHashMap<>();
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
                side.put("normalisation_note", "mean applies to traced kernels only; this " + mode + " kernel is not divided by O");
            }
            side.put("dtype", dt.toString());
            side.put("device", m.getDevice().toString());
            side.put("parameters", net.parameterCount());
            side.put("methods", k.methods());
            side.put("seconds_train_kernel", k.seconds());
            side.put("phases_train_kernel", k.timings());
            side.put("seconds_test_kernel", kt == null ? null : kt.seconds());
            side.put("seconds_total", (System.nanoTime() - t0) / 1e9);
            Map<String, Object> metrics = KernelMetrics.of(k, train, n);
            side.put("metrics", metrics);
            side.put("peak_heap_bytes", peakHeap());
            side.put("peak_rss_bytes", peakRss());
            String name = out.getFileName().toString();
            Files2.writeString(out.resolveSibling((name.endsWith(".npz") ? name.substring(0, name.length() - 4) : name) + ".json"),
                    Specs.toJson(side) + "\n");
            print.accept(String.format("NTK %s of %d %s images (%s, %d parameters) in %.2fs -> %s", mode, n,
                    c.dataset(), spec.name(), net.parameterCount(), k.seconds(), out));
            if (metrics.containsKey(KernelMetrics.CENTERED_ALIGNMENT)) {
                print.accept(summary(metrics));
            }
            return new Result(metrics, side);
        }
    }

    /** The one-line metrics summary printed after the kernel. */
    static String summary(Map<String, Object> metrics) {
        StringBuilder line = new StringBuilder(String.format("kernel-target alignment %.4f (centred %.4f)",
                metrics.get(KernelMetrics.ALIGNMENT), metrics.get(KernelMetrics.CENTERED_ALIGNMENT)));
        if (metrics.containsKey(KernelMetrics.THETA_C_OVER_D)) {
            line.append(String.format("; label awareness Θc/Θd %.4f, Θn/Θd %.4f", metrics.get(KernelMetrics.THETA_C_OVER_D),
                    metrics.get(KernelMetrics.THETA_N_OVER_D)));
        }
        if (metrics.containsKey("gamma_d")) {
            line.append(String.format("; blocks γd %.4g, γc %.4g, γn %.4g", metrics.get("gamma_d"), metrics.get("gamma_c"),
                    metrics.get("gamma_n")));
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
            throw new UserException("model " + net.spec().name() + " expects inputs of shape " + net.inputShape() + " but "
                    + d.name() + " samples have shape " + java.util.Arrays.toString(d.sampleShape()));
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
