package org.ntk4j.cli;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.ntk4j.UserException;
import org.ntk4j.data.Dataset;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.Split;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.Mode;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.report.Files2;
import org.ntk4j.report.Npz;
import org.ntk4j.report.ProgressBar;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;
import org.ntk4j.train.Arrays2;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ntk4j kernel}: the empirical NTK of a model on a dataset, exported as NPZ. */
@Command(name = "kernel", mixinStandardHelpOptions = true,
        description = {"Compute the empirical NTK Θ(X1, X1) of N training images (and Θ(X2, X1) of M test images) and"
                + " write it as NPZ with a JSON sidecar (K.json: spec, seed, method per layer, timings, peak memory).",
            "NPZ entries: ntk (N×N | N×N×O | N×N×O×O), ntk.<layer> (with --per-layer), ntk_test (M×N...),"
                + " x1, y1 (labels), x2, y2, and every parameter under its name (dense W as out×in).",
            "Example: ntk4j kernel --model mlp-quickstart --seed 0 --dataset mnist-subset --n 500 --test 100 --per-layer --out K.npz"})
public final class KernelCommand implements Callable<Integer> {
    @Option(names = "--model", required = true, paramLabel = "SPEC|NAME", description = "model spec file or a name in models/")
    String model;

    @Option(names = "--weights", paramLabel = "CHECKPOINT", description = "weights.npz of a run (default: fresh initialisation from --seed)")
    Path weights;

    @Option(names = "--seed", defaultValue = "0", description = "initialisation seed when no --weights (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--dataset", defaultValue = "mnist-subset", description = "dataset name (default ${DEFAULT-VALUE})")
    String dataset;

    @Option(names = "--n", defaultValue = "100", description = "number of training images, the first N (default ${DEFAULT-VALUE})")
    int n;

    @Option(names = "--per-class", paramLabel = "M", description = "instead of the first N: M training images of every"
            + " class, a seeded class-balanced sample ordered by class (seed 003 measures kernels on m per class)")
    Integer perClass;

    @Option(names = "--test", defaultValue = "0", description = "number of test images for the test×train kernel (default 0)")
    int test;

    @Option(names = "--pad", paramLabel = "P", description = "zero-pad images by P pixels per side (MNIST 28→32 with 2)")
    Integer pad;

    @Option(names = "--mode", defaultValue = "trace", description = "full, trace or diagonal (default ${DEFAULT-VALUE})")
    String mode;

    @Option(names = "--per-layer", description = "also write Θ_l for each parameterised layer")
    boolean perLayer;

    @Option(names = "--features", description = "the last-layer-features kernel Θ^h instead (seed 003 §3.3): the NTK of the"
            + " penultimate features w.r.t. the parameters before the classifier")
    boolean features;

    @Option(names = "--factor-kernels", description = "also write each dense layer's forward (A1A2ᵀ) and backward (Σ_o Δ1Δ2ᵀ) kernels (seed 000 Eq. 7)")
    boolean factorKernels;

    @Option(names = "--method", defaultValue = "auto", description = "auto, structured or jacobian (default ${DEFAULT-VALUE})")
    String method;

    @Option(names = "--dtype", defaultValue = "float32", description = "float32 or float64 (default ${DEFAULT-VALUE})")
    String dtype;

    @Option(names = "--normalisation", defaultValue = "sum", description = "sum (default) or mean over traced outputs (neural-tangents)")
    String normalisation;

    @Option(names = "--memory", defaultValue = "4g", description = "memory budget for tiles, e.g. 512m, 4g (default ${DEFAULT-VALUE})")
    String memory;

    @Option(names = "--explain", description = "print the method chosen per layer with its FLOP estimates")
    boolean explain;

    @Option(names = "--out", required = true, paramLabel = "K.npz", description = "output NPZ file (with --format npy: a directory)")
    Path out;

    @Option(names = "--format", defaultValue = "npz", description = "npz (one zip, entries stored uncompressed) or npy (a directory"
            + " of .npy files that numpy.load(f, mmap_mode='r') maps, for kernels larger than memory) (default ${DEFAULT-VALUE})")
    String format;

    @Option(names = "--compress", description = "deflate the NPZ entries (smaller, but ~25 MB/s instead of disk speed)")
    boolean compress;

    @Mixin
    RuntimeOptions runtime;

    @Override
    public Integer call() {
        Mode md = parse(Mode.class, mode, "--mode");
        Method mt = parse(Method.class, method, "--method");
        DataType dt = switch (dtype.toLowerCase(Locale.ROOT)) {
            case "float32" -> DataType.FLOAT32;
            case "float64" -> DataType.FLOAT64;
            default -> throw new UserException("--dtype must be float32 or float64 (got " + dtype + ")");
        };
        if (!"sum".equals(normalisation) && !"mean".equals(normalisation)) {
            throw new UserException("--normalisation must be sum or mean (got " + normalisation + ")");
        }
        long budget = parseBytes(memory);
        if (n < 1) {
            throw new UserException("--n must be >= 1 (got " + n + ")");
        }
        Npz.Format fmt = Npz.Format.parse(format);
        if (fmt == Npz.Format.NPZ && !out.getFileName().toString().endsWith(".npz")) {
            throw new UserException("--out must name a .npz file (got " + out + ")");
        }
        ModelSpec spec = ModelSpec.resolve(model);
        Dataset train = Datasets.load(dataset, Split.TRAIN, runtime.dataDir());
        if (perClass != null) {
            if (perClass < 1) {
                throw new UserException("--per-class must be >= 1 (got " + perClass + ")");
            }
            train = byClass(org.ntk4j.data.Preprocess.balancedSample(train, perClass, seed));
            n = train.size();
        } else {
            if (n > train.size()) {
                throw new UserException("--n " + n + " exceeds the " + train.size() + " training images of " + dataset);
            }
            train = train.head(n);
        }
        if (pad != null) {
            train = org.ntk4j.data.Preprocess.pad(train, pad);
        }
        Dataset testSet = null;
        if (test > 0) {
            testSet = Datasets.load(dataset, Split.TEST, runtime.dataDir());
            if (test > testSet.size()) {
                throw new UserException("--test " + test + " exceeds the " + testSet.size() + " test images of " + dataset);
            }
            testSet = testSet.head(test);
            if (pad != null) {
                testSet = org.ntk4j.data.Preprocess.pad(testSet, pad);
            }
        }
        long t0 = System.nanoTime();
        try (NDManager m = runtime.manager(); Network net = Network.build(spec, seed, m)) {
            if (weights != null) {
                net.loadParameters(weights);
            }
            net.cast(dt);
            checkShape(net, train);
            NDArray x1 = Arrays2.fromFloats(m, train.features(), shape(net, n), dt);
            Network target = features ? net.features() : net;
            Ntk ntk = Ntk.of(target).mode(md).method(mt).memory(budget);
            if (perLayer) {
                ntk.perLayer();
            }
            if (dt == DataType.FLOAT64) {
                ntk.float64();
            }
            if (factorKernels) {
                ntk.factorKernels();
            }
            if ("mean".equals(normalisation)) {
                ntk.meanNormalised();
            }
            if (explain) {
                ntk.plan(n, n).forEach((k, v) -> System.out.println(k + ": " + v));
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
            Npz npz = new Npz().format(fmt).compress(compress).put("ntk", k.total());
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
            Map<String, Object> side = new LinkedHashMap<>();
            side.put("model", spec);
            side.put("seed", seed);
            side.put("kernel", features ? "features (Θ^h, " + target.outputs() + " outputs)" : "ntk");
            side.put("weights", weights == null ? null : weights.toString());
            side.put("dataset", dataset);
            side.put("n", n);
            side.put("test", test);
            side.put("mode", md.name().toLowerCase(Locale.ROOT));
            side.put("normalisation", normalisation);
            side.put("dtype", dt.toString());
            side.put("device", m.getDevice().toString());
            side.put("parameters", net.parameterCount());
            side.put("methods", k.methods());
            side.put("seconds_train_kernel", k.seconds());
            side.put("phases_train_kernel", k.timings());
            side.put("seconds_test_kernel", kt == null ? null : kt.seconds());
            side.put("seconds_total", (System.nanoTime() - t0) / 1e9);
            Map<String, Object> metrics = kernelMetrics(k, train, n);
            side.put("metrics", metrics);
            side.put("peak_heap_bytes", peakHeap());
            side.put("peak_rss_bytes", peakRss());
            String name = out.getFileName().toString();
            Files2.writeString(out.resolveSibling((name.endsWith(".npz") ? name.substring(0, name.length() - 4) : name) + ".json"), Specs.toJson(side) + "\n");
            System.out.printf("NTK %s of %d %s images (%s, %d parameters) in %.2fs -> %s%n", md.name().toLowerCase(Locale.ROOT), n,
                    dataset, spec.name, net.parameterCount(), k.seconds(), out);
            if (metrics.containsKey("centered_alignment")) {
                StringBuilder line = new StringBuilder(String.format("kernel-target alignment %.4f (centred %.4f)",
                        metrics.get("alignment"), metrics.get("centered_alignment")));
                if (metrics.containsKey("theta_c_over_d")) {
                    line.append(String.format("; label awareness Θc/Θd %.4f, Θn/Θd %.4f", metrics.get("theta_c_over_d"),
                            metrics.get("theta_n_over_d")));
                }
                if (metrics.containsKey("gamma_d")) {
                    line.append(String.format("; blocks γd %.4g, γc %.4g, γn %.4g", metrics.get("gamma_d"), metrics.get("gamma_c"),
                            metrics.get("gamma_n")));
                }
                if (metrics.containsKey("effective_rank")) {
                    line.append(String.format("; effective rank %.2f", metrics.get("effective_rank")));
                }
                System.out.println(line);
            }
        }
        return 0;
    }

    /** Largest N for the O(N²) metrics (a double N×N copy of the traced kernel) and for the O(N³) spectrum. */
    static final int METRICS_MAX_N = 4096;
    static final int SPECTRUM_MAX_N = 2048;

    /**
     * Metrics of the traced train kernel written to the sidecar: kernel–target alignment (plain and
     * centred, one-hot labels), label awareness Θ̄_c/Θ̄_d and Θ̄_n/Θ̄_d (seed 003 eq. (23)), for a full kernel
     * the block-structure parameters (γ_d, γ_c, γ_n) and the relative size of the off-diagonal output
     * blocks (seed 003 Def. 3.1), and, up to
     * {@link #SPECTRUM_MAX_N}, the effective rank and leading eigenvalues.
     */
    static Map<String, Object> kernelMetrics(KernelResult k, Dataset data, int n) {
        int[] labels = data.labels();
        Map<String, Object> r = new LinkedHashMap<>();
        if (n > METRICS_MAX_N) {
            r.put("skipped", "metrics are computed up to N = " + METRICS_MAX_N + " (got " + n + "); load the NPZ to compute them");
            return r;
        }
        double[][] traced = k.total().traced();
        int[] y = java.util.Arrays.copyOf(labels, n);
        int classes = data.isRegression() ? data.targetOutputs() : data.numClasses();
        // Y: one-hot labels, or a regression set's own targets
        float[] onehot = data.isRegression() ? java.util.Arrays.copyOf(data.targets(), n * classes)
                : org.ntk4j.data.Preprocess.oneHot(y, classes);
        r.put("alignment", org.ntk4j.metrics.Alignment.alignment(traced, onehot, classes));
        r.put("centered_alignment", org.ntk4j.metrics.Alignment.centeredAlignment(traced, onehot, classes));
        try {
            org.ntk4j.metrics.LabelAwareness la = org.ntk4j.metrics.LabelAwareness.of(traced, y);
            r.put("theta_d", la.thetaD());
            r.put("theta_c", la.thetaC());
            r.put("theta_n", la.thetaN());
            r.put("theta_c_over_d", la.cOverD());
            r.put("theta_n_over_d", la.nOverD());
        } catch (UserException e) {
            r.put("label_awareness", "not defined: " + e.getMessage()); // e.g. a class with one sample
        }
        if (k.total().mode() == org.ntk4j.kernel.Mode.FULL) {
            try {
                org.ntk4j.metrics.BlockStructure bs = org.ntk4j.metrics.BlockStructure.of(k.total(), y);
                r.put("gamma_d", bs.gammaD());
                r.put("gamma_c", bs.gammaC());
                r.put("gamma_n", bs.gammaN());
                r.put("off_diagonal_blocks_over_gamma_d", bs.offDiagonalRatio());
            } catch (UserException e) {
                r.put("block_structure", "not defined: " + e.getMessage());
            }
        }
        if (n <= SPECTRUM_MAX_N) {
            org.ntk4j.metrics.KernelSpectrum sp = org.ntk4j.metrics.KernelSpectrum.of(traced);
            r.put("effective_rank", sp.effectiveRank());
            r.put("eigenvalues", java.util.Arrays.copyOf(sp.eigenvalues(), Math.min(64, n)));
        }
        return r;
    }

    /** The samples reordered by class label (stable), so that kernels show their class blocks. */
    static Dataset byClass(Dataset d) {
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
            throw new UserException("model " + net.spec().name + " expects inputs of shape " + net.inputShape() + " but "
                    + d.name() + " samples have shape " + java.util.Arrays.toString(d.sampleShape()));
        }
    }

    static <E extends Enum<E>> E parse(Class<E> type, String v, String option) {
        try {
            return Enum.valueOf(type, v.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new UserException(option + " must be one of " + java.util.Arrays.toString(type.getEnumConstants()).toLowerCase(Locale.ROOT)
                    + " (got " + v + ")");
        }
    }

    /** "512m", "4g", "1000000" → bytes. */
    static long parseBytes(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        long mult = 1;
        if (t.endsWith("k")) {
            mult = 1L << 10;
        } else if (t.endsWith("m")) {
            mult = 1L << 20;
        } else if (t.endsWith("g")) {
            mult = 1L << 30;
        }
        try {
            long v = Long.parseLong(mult == 1 ? t : t.substring(0, t.length() - 1));
            if (v <= 0) {
                throw new NumberFormatException();
            }
            return v * mult;
        } catch (NumberFormatException e) {
            throw new UserException("--memory must be a size like 512m or 4g (got " + s + ")");
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
