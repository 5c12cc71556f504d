package org.ntk4j.probe;

import static org.ntk4j.report.RunReport.column;
import static org.ntk4j.report.RunReport.fmt;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import com.google.gson.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ntk4j.approx.ApproxError;
import org.ntk4j.approx.ApproxSpec;
import org.ntk4j.approx.Pntk;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.metrics.KernelMetrics;
import org.ntk4j.metrics.LayerCka;
import org.ntk4j.model.Network;
import org.ntk4j.report.Npz;
import org.ntk4j.report.NpzReader;
import org.ntk4j.report.Plots;
import org.ntk4j.report.ReportSection;
import org.ntk4j.report.RunFolder;
import org.ntk4j.train.Arrays2;

/**
 * Training probe: the traced NTK of a fixed probe set, per layer, on a {@link org.ntk4j.train.Schedule}
 * (by default at initialisation and at every epoch end). Logs
 * <ul>
 * <li>the layer CKA of Lou, Mingard &amp; Hayou, "The Equilibrium Hypothesis", Eq. 5 ({@link LayerCka}), on the
 * <b>full</b> (N·O)×(N·O) per-layer kernel with one global centring against one-hot labels, under
 * {@code layer_cka.<layer>}, and Eq. 4 of the whole network under {@code layer_cka}. The paper defines it on
 * training points ({@code train --probe-points train}, the default of new runs). Cost: a second, FULL kernel per
 * probe, O·O times the traced one (N·O = 1000 for 100 points and 10 outputs: a 1000×1000 float matrix, 4 MB, per
 * layer, and an O((N·O)²) pass per layer); skipped, with a {@code layer_cka_skipped} note, when N·O exceeds the
 * probe's limit ({@code --layer-cka-max}, default {@value #LAYER_CKA_MAX}; 0 = never), for a regression set, or when
 * the network's outputs are not the classes;</li>
 * <li>the kernel–target alignment of the traced N×N kernel, plain ({@code alignment}) and centred (Cortes et al.
 * 2012, {@code Alignment}): the <b>traced-centred alignment</b>, total and per layer, under
 * {@code traced_centred_alignment[.<layer>]} and, for reports and resumed runs written before that name, under
 * {@code centered_alignment[.<layer>]}. It is not Eq. 5 and can peak at another layer;</li>
 * <li>how far the kernel moved — relative change and kernel distance from the first probe, kernel velocity since the
 * previous probe per step ({@code KernelChange}); its spectrum — leading eigenvalues, effective rank and the fraction
 * of the targets in the top-C eigenvectors ({@code KernelSpectrum}); and its label awareness Θ̄_c/Θ̄_d, Θ̄_n/Θ̄_d
 * ({@code LabelAwareness}, Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit, eq. (23)).</li>
 * </ul>
 * Keeps each traced kernel as {@code ntk-step<k>.npz} in the run folder; a resumed run reads its first and latest
 * kernels back from there, so the change and velocity series continue unbroken, and the report draws the first and
 * the last as heatmaps sorted by class. Layer CKA (Eq. 5, a second FULL kernel) is off unless asked for
 * ({@link Builder#layerCka}); the CLI's {@code train --probe ntk} asks for it up to {@code --layer-cka-max}.
 *
 * <p>With {@link Builder#approx} {@code pntk} ({@code train --approx pntk}) every kernel above is the pseudo-NTK of
 * the summed logits instead of the traced kernel, pNTK = (1/O) J_Σ J_Σᵀ (Mohamadi, Bae &amp; Sutherland, "A Fast,
 * Well-Founded Approximation to the Empirical Neural Tangent Kernel", ICML 2023; {@link Pntk}), per layer and in
 * total, one backward pass per tile instead of O; the same metrics are computed on it and kept under the same keys,
 * and every record names its kernel ({@code kernel}: {@code traced} or {@code pntk}). Layer CKA (Eq. 5) needs the
 * per-output FULL kernel, which the pNTK does not have: it is skipped with a note. At the run's first probe the
 * traced kernel is computed once more and the pNTK's error against it (traced kernel / O: pNTK approximates each
 * output's Θ_oo) is logged under {@code approx_error.<key>} ({@link ApproxError} on the whole probe set: relative
 * Frobenius error, alignment, leading eigenvalues, and regression accuracies with class labels).
 *
 * <p>So that every kernel can be recomputed outside ntk4j, the run folder also holds
 * <ul>
 * <li>{@code probe-inputs.npz}: {@code x} (N, input shape..., the network's data type) and {@code y}
 * (labels, N, or a regression set's targets, N×O), laid out as the kernel command's {@code x1}, {@code y1};
 * written at step 0 (a fresh start) or when missing, so a resumed run keeps the run's own;</li>
 * <li>in each {@code ntk-step<k>.npz}, besides {@code ntk}, {@code ntk.<layer>} and {@code labels}, the
 * weights the kernel was computed with, every parameter under its name ({@code <layer>.weight}, as in
 * the kernel command's NPZ; 4 bytes per parameter in float32; {@link Network#loadParameters(java.nio.file.Path, boolean)}
 * reads them back);</li>
 * <li>{@code weights-init.npz}: the weights at step 0, before any update (as {@code weights.npz}).</li>
 * </ul>
 */
public final class NtkProbe extends ScheduledProbe {
    private final LabelledSet probeSet;
    private final RunFolder run;
    private final float[] targets;
    /** Leading eigenvalues logged per probe. */
    static final int EIGENVALUES = KernelMetrics.MAX_EIGENVALUES;
    /** The probe set's inputs and labels (targets), once per run. */
    public static final String INPUTS = "probe-inputs.npz";
    /** The weights at step 0, before any update. */
    public static final String WEIGHTS_INIT = "weights-init.npz";
    /** Default largest N·O for which Eq. 5 (a FULL per-layer kernel) is computed. */
    public static final int LAYER_CKA_MAX = 2000;
    /** The prefix of the approximate kernel's error keys in the first probe's record. */
    public static final String APPROX_ERROR = "approx_error";

    private final int layerCkaMax;
    private final ApproxSpec approx;
    private double[][] initial;
    private double[][] previous;
    private long previousStep = -1;

    /**
     * A probe at initialisation and every epoch end, without layer CKA; {@code run}: where kernels are kept (and read
     * back on a resume), null keeps none. See {@link #builder} for the other settings.
     */
    public NtkProbe(LabelledSet probeSet, RunFolder run) {
        this(probeSet, run, org.ntk4j.train.Schedule.parse("epochs"));
    }

    /** As {@link #NtkProbe(LabelledSet, RunFolder)}, on {@code schedule}. */
    public NtkProbe(LabelledSet probeSet, RunFolder run, org.ntk4j.train.Schedule schedule) {
        this(builder(probeSet).runFolder(run).schedule(schedule));
    }

    private NtkProbe(Builder b) {
        super("ntk", b.schedule);
        this.probeSet = b.probeSet;
        this.run = b.run;
        this.layerCkaMax = b.layerCkaMax;
        this.approx = b.approx;
        this.targets = KernelMetrics.targets(probeSet, probeSet.size());
    }

    /**
     * A probe of {@code probeSet}'s NTK, configured step by step:
     * <pre>{@code
     * NtkProbe p = NtkProbe.builder(probeSet)
     *         .runFolder(run)                        // keep kernels, probe inputs, initial weights (default: none)
     *         .schedule(Schedule.parse("every:10"))  // default: at initialisation and every epoch end
     *         .layerCka(true)                        // Eq. 5 layer CKA (a second, FULL kernel; default off)
     *         .approx(ApproxSpec.parse("pntk"))      // the pNTK instead of the traced kernel (default: traced;
     *                                                // not with layerCka)
     *         .build();
     * }</pre>
     */
    public static Builder builder(LabelledSet probeSet) {
        return new Builder(probeSet);
    }

    /** Settings of an {@link NtkProbe}; see {@link NtkProbe#builder}. */
    public static final class Builder {
        private final LabelledSet probeSet;
        private RunFolder run;
        private org.ntk4j.train.Schedule schedule = org.ntk4j.train.Schedule.parse("epochs");
        private int layerCkaMax;
        private ApproxSpec approx;

        private Builder(LabelledSet probeSet) {
            if (probeSet == null || probeSet.size() == 0) {
                throw new org.ntk4j.UserException("the NTK probe needs a non-empty probe set");
            }
            this.probeSet = probeSet;
        }

        /** Where kernels ({@code ntk-step<k>.npz}), probe inputs and initial weights are kept; null: nowhere. */
        public Builder runFolder(RunFolder run) {
            this.run = run;
            return this;
        }

        /** When the probe runs (default {@code epochs}: at initialisation and every epoch end). */
        public Builder schedule(org.ntk4j.train.Schedule schedule) {
            this.schedule = java.util.Objects.requireNonNull(schedule, "schedule");
            return this;
        }

        /**
         * Whether to log the layer CKA of Lou, Mingard &amp; Hayou (Equilibrium Hypothesis, Eq. 5), up to
         * {@value NtkProbe#LAYER_CKA_MAX} probe points × outputs. Off by default: it computes a second, FULL
         * (N·O)×(N·O) kernel per layer, O² times the traced one, which dominates a cheap step-0 probe.
         */
        public Builder layerCka(boolean on) {
            this.layerCkaMax = on ? LAYER_CKA_MAX : 0;
            return this;
        }

        /** Layer CKA while N·O is at most {@code max} (0: never; the CLI's {@code --layer-cka-max}). */
        public Builder layerCkaMax(int max) {
            if (max < 0) {
                throw new org.ntk4j.UserException("--layer-cka-max must be >= 0 (got " + max + ")");
            }
            this.layerCkaMax = max;
            return this;
        }

        /**
         * The kernel the probe measures: null (the default) for the traced NTK, {@code pntk} for the pseudo-NTK of
         * the summed logits ({@link Pntk}). The low-rank approximations (sketch, Nyström) give features, not the
         * probe set's kernel, and are refused.
         */
        public Builder approx(ApproxSpec spec) {
            if (spec != null && spec.kind() != ApproxSpec.Kind.PNTK) {
                throw new org.ntk4j.UserException(
                        "--approx " + spec + ": the ntk probe takes pntk only (sketch and"
                                + " nystrom give low-rank features, not the probe set's kernel; ntk4j kernel --approx has them)");
            }
            this.approx = spec;
            return this;
        }

        public NtkProbe build() {
            if (approx != null && layerCkaMax > 0) {
                throw new org.ntk4j.UserException("--approx pntk leaves no layer CKA to compute: Eq. 5 needs the"
                        + " per-output FULL kernel and the pNTK has one summed output (use --layer-cka-max 0, or"
                        + " layerCka(false))");
            }
            return new NtkProbe(this);
        }
    }

    @Override
    public Map<String, Object> run(Network net, long step, int epoch) {
        Map<String, Object> r = new LinkedHashMap<>();
        try (NDManager m = net.manager().newSubManager()) {
            NDArray x = Arrays2.inputs(m, net, probeSet, 0, probeSet.size());
            Ntk exact = tracedNtk(net).perLayer();
            KernelResult k = (approx == null ? exact : Pntk.ntk(net, exact.toOptions())).compute(x);
            r.put("kernel", kernelName());
            int c = KernelMetrics.targetColumns(probeSet); // columns of Y
            double[][] traced = k.total().traced(); // one N×N copy, used by every metric below
            layerCka(r, net, x);
            KernelMetrics.alignment(r, traced, targets, c);
            r.put(KernelMetrics.TRACED_CENTRED_ALIGNMENT, r.get(KernelMetrics.CENTERED_ALIGNMENT));
            for (Map.Entry<String, KernelMatrix> e : k.layers().entrySet()) {
                KernelMetrics.layerAlignment(r, e.getKey(), e.getValue().traced(), targets, c);
                r.put(
                        KernelMetrics.TRACED_CENTRED_ALIGNMENT + "." + e.getKey(),
                        r.get(KernelMetrics.CENTERED_ALIGNMENT + "." + e.getKey()));
            }
            r.put("ntk_seconds", k.seconds());
            if (initial == null && run != null) {
                restore(step);
            }
            if (initial == null && approx != null) {
                approxError(r, net, x, traced);
            }
            if (initial == null) {
                initial = traced;
            }
            KernelMetrics.motion(
                    r, traced, initial, previous != null && step > previousStep ? previous : null, step - previousStep);
            previous = traced;
            previousStep = step;
            KernelMetrics.spectrum(r, traced, targets, c);
            try {
                KernelMetrics.labelAwareness(r, traced, probeSet.labels(), false);
            } catch (org.ntk4j.UserException e) {
                // Θ̄_c needs two probe samples of every class (--probe-set 1): not defined, not logged
            }
            if (run != null) {
                // step 0 runs on a fresh start only (never on a resume): it may replace a crashed run's files
                if (step == 0 || !java.nio.file.Files.exists(run.file(INPUTS))) {
                    Npz in = new Npz().put("x", x);
                    if (probeSet.isRegression()) {
                        int o = probeSet.targetOutputs();
                        in.put(
                                "y",
                                java.util.Arrays.copyOf(probeSet.targets(), probeSet.size() * o),
                                probeSet.size(),
                                o);
                    } else {
                        in.put("y", probeSet.labels(), probeSet.size());
                    }
                    in.write(run.file(INPUTS));
                }
                if (step == 0) {
                    saveInitialWeights(net);
                }
                Npz npz = new Npz().put("ntk", k.total());
                k.layers().forEach((name, km) -> npz.put("ntk." + name, km));
                npz.put("labels", probeSet.labels(), probeSet.size());
                for (org.ntk4j.model.Param p : net.params()) {
                    npz.put(p.name(), p.value());
                }
                npz.write(run.file(kernelFile(step)));
            }
        }
        return ProbeRecords.readable(r);
    }

    /** The kernel this probe measures, as its records name it: {@code traced} or the approximation ({@code pntk}). */
    public String kernelName() {
        return approx == null ? "traced" : approx.toString();
    }

    /** The traced kernel of {@code net}, accumulated in float64 for a float64 network. */
    private static Ntk tracedNtk(Network net) {
        Ntk n = Ntk.of(net).mode(Mode.TRACE);
        return net.dataType() == ai.djl.ndarray.types.DataType.FLOAT64 ? n.float64() : n;
    }

    /**
     * The approximate kernel's error against the traced kernel divided by O (the pNTK approximates each output's
     * Θ_oo) on the whole probe set, under {@code approx_error.<key>}.
     */
    private void approxError(Map<String, Object> r, Network net, NDArray x, double[][] approxKernel) {
        long t0 = System.nanoTime();
        KernelResult t = tracedNtk(net).compute(x);
        double[][] exact = t.total().traced();
        int n = exact.length;
        double scale = 1.0 / net.outputs();
        double[] e = new double[n * n];
        double[] a = new double[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                e[i * n + j] = exact[i][j] * scale;
                a[i * n + j] = approxKernel[i][j];
            }
        }
        ApproxError err = ApproxError.of(e, a, n, probeSet.isRegression() ? null : probeSet.labels());
        r.put(APPROX_ERROR + ".reference", "the traced kernel divided by O = " + net.outputs());
        err.toMap().forEach((key, v) -> r.put(APPROX_ERROR + "." + key, v));
        r.put(APPROX_ERROR + "_seconds", (System.nanoTime() - t0) / 1e9);
    }

    /** The file of the kernel measured at {@code step}. */
    static String kernelFile(long step) {
        return String.format(java.util.Locale.ROOT, "ntk-step%06d.npz", step);
    }

    /** Eq. 5 per layer and Eq. 4 in total on the FULL per-layer kernel of the probe points, or why not. */
    private void layerCka(Map<String, Object> r, Network net, NDArray x) {
        long no = (long) probeSet.size() * net.outputs();
        String skip = approx != null
                ? "not defined for the pNTK (--approx pntk): Eq. 5 needs the per-output FULL kernel"
                : layerCkaMax == 0
                        ? "off (NtkProbe.builder(...).layerCka(true) or train --layer-cka-max N turns it on)"
                        : probeSet.isRegression()
                                ? "needs class labels (one-hot targets); a regression set"
                                : net.outputs() != probeSet.numClasses()
                                        ? "needs one output per class: " + net.outputs() + " outputs, "
                                                + probeSet.numClasses() + " classes"
                                        : no > layerCkaMax
                                                ? "N·O = " + no + " exceeds --layer-cka-max " + layerCkaMax
                                                : null;
        if (skip != null) {
            r.put(KernelMetrics.LAYER_CKA + "_skipped", skip);
            return;
        }
        long t0 = System.nanoTime();
        KernelResult full = Ntk.of(net).mode(Mode.FULL).perLayer().compute(x);
        int[] labels = probeSet.labels();
        int classes = probeSet.numClasses();
        r.put(KernelMetrics.LAYER_CKA, LayerCka.of(full.total(), labels, classes));
        for (Map.Entry<String, KernelMatrix> e : full.layers().entrySet()) {
            r.put(KernelMetrics.LAYER_CKA + "." + e.getKey(), LayerCka.of(e.getValue(), labels, classes));
        }
        r.put(KernelMetrics.LAYER_CKA + "_seconds", (System.nanoTime() - t0) / 1e9);
    }

    private void saveInitialWeights(Network net) {
        try {
            net.saveParameters(run.file(WEIGHTS_INIT));
        } catch (java.io.IOException e) {
            throw new org.ntk4j.UserException(run.file(WEIGHTS_INIT) + ": cannot write (" + e.getMessage() + ")");
        }
    }

    /** After a resume: the first kernel of the run and the latest one before {@code step}, from their NPZ files. */
    private void restore(long step) {
        java.util.TreeMap<Long, java.nio.file.Path> kept = new java.util.TreeMap<>();
        java.util.regex.Pattern name = java.util.regex.Pattern.compile("ntk-step(\\d+)\\.npz");
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(run.dir())) {
            files.forEach(f -> {
                java.util.regex.Matcher m = name.matcher(f.getFileName().toString());
                if (m.matches() && Long.parseLong(m.group(1)) < step) {
                    kept.put(Long.parseLong(m.group(1)), f);
                }
            });
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        if (kept.isEmpty()) {
            return;
        }
        initial = readKernel(kept.firstEntry().getValue());
        previous = readKernel(kept.lastEntry().getValue());
        previousStep = kept.lastKey();
    }

    private double[][] readKernel(java.nio.file.Path file) {
        try (NDManager m = NDManager.newBaseManager();
                java.io.InputStream is = new java.io.BufferedInputStream(java.nio.file.Files.newInputStream(file))) {
            for (NDArray a : ai.djl.ndarray.NDList.decode(m, is)) {
                if ("ntk".equals(a.getName())) {
                    int n = probeSet.size();
                    double[] v = a.toType(ai.djl.ndarray.types.DataType.FLOAT64, false)
                            .toDoubleArray();
                    if (v.length != (long) n * n) {
                        throw new org.ntk4j.UserException(
                                file + ": kernel has " + v.length + " entries; the probe set needs " + n + "×" + n
                                        + " (was the run resumed with another --probe-set?)");
                    }
                    double[][] k = new double[n][];
                    for (int i = 0; i < n; i++) {
                        k[i] = java.util.Arrays.copyOfRange(v, i * n, (i + 1) * n);
                    }
                    return k;
                }
            }
        } catch (java.io.IOException | IllegalArgumentException e) {
            throw new org.ntk4j.UserException(file + ": cannot read the probe kernel (" + e.getMessage() + ")");
        }
        throw new org.ntk4j.UserException(file + ": no 'ntk' entry");
    }

    /** The kernel with rows and columns ordered by class label (stable). */
    static double[][] sortedByClass(double[][] k, int[] labels) {
        Integer[] idx = new Integer[labels.length];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = i;
        }
        java.util.Arrays.sort(idx, java.util.Comparator.comparingInt(i -> labels[i]));
        double[][] s = new double[idx.length][idx.length];
        for (int a = 0; a < idx.length; a++) {
            for (int b = 0; b < idx.length; b++) {
                s[a][b] = k[idx[a]][idx[b]];
            }
        }
        return s;
    }

    @Override
    public ReportSection report() {
        return NtkProbe::section;
    }

    /**
     * Eq. 5 layer CKA per layer against the step (when logged), the traced-centred alignment per layer, then the
     * kernel's motion, label awareness and spectrum.
     */
    static void section(RunFolder run, List<JsonObject> probes, Map<String, String> summary) {
        // probes may run several times per epoch (every:K, log:N:MAX): their x axis is the step
        double[] x =
                probes.stream().mapToDouble(r -> r.get("step").getAsDouble()).toArray();
        JsonObject first = probes.get(0);
        JsonObject last = probes.get(probes.size() - 1);
        String kn = label(first);
        if (!kn.equals("NTK")) {
            summary.put(
                    "NTK probe kernel",
                    "pNTK = (1/O) J_Σ J_Σᵀ of the summed logits (Mohamadi, Bae & Sutherland, ICML 2023), not the traced"
                            + " NTK");
        }
        if (first.has(APPROX_ERROR + ".relative_frobenius_error")) {
            summary.put(
                    kn + " error against the traced NTK / O at step "
                            + first.get("step").getAsLong(),
                    "relative Frobenius "
                            + fmt(first.get(APPROX_ERROR + ".relative_frobenius_error")
                                    .getAsDouble()) + ", alignment "
                            + fmt(first.get(APPROX_ERROR + ".alignment").getAsDouble()));
        }
        List<JsonObject> cka =
                probes.stream().filter(r -> r.has(KernelMetrics.LAYER_CKA)).toList();
        if (!cka.isEmpty()) {
            double[] xc =
                    cka.stream().mapToDouble(r -> r.get("step").getAsDouble()).toArray();
            Map<String, double[]> series = new LinkedHashMap<>();
            String prefix = KernelMetrics.LAYER_CKA + ".";
            for (String k : cka.get(0).keySet()) {
                if (k.startsWith(prefix)) {
                    series.put(k.substring(prefix.length()), column(cka, k));
                }
            }
            Plots.lines(
                    run.file("layer-cka.png"),
                    "Layer CKA A_l, Eq. 5 of Lou, Mingard & Hayou (probe set)",
                    "step",
                    "A_l",
                    xc,
                    series,
                    false);
            JsonObject end = cka.get(cka.size() - 1);
            String peak = null;
            for (String layer : series.keySet()) {
                if (peak == null
                        || end.get(prefix + layer).getAsDouble()
                                > end.get(prefix + peak).getAsDouble()) {
                    peak = layer;
                }
            }
            summary.put(
                    "Layer CKA (Eq. 5) at end: peak layer",
                    peak + " (" + fmt(end.get(prefix + peak).getAsDouble()) + ")");
        } else if (first.has(KernelMetrics.LAYER_CKA + "_skipped")) {
            summary.put(
                    "Layer CKA (Eq. 5)",
                    "not computed: "
                            + first.get(KernelMetrics.LAYER_CKA + "_skipped").getAsString());
        }
        // runs written before traced_centred_alignment carry the same values under centered_alignment
        String base = first.has(KernelMetrics.TRACED_CENTRED_ALIGNMENT)
                ? KernelMetrics.TRACED_CENTRED_ALIGNMENT
                : KernelMetrics.CENTERED_ALIGNMENT;
        Map<String, double[]> al = new LinkedHashMap<>();
        for (String k : first.keySet()) {
            if (k.equals(base)) {
                al.put("total", column(probes, k));
            } else if (k.startsWith(base + ".")) {
                al.put(k.substring(base.length() + 1), column(probes, k));
            }
        }
        String centring = kn.equals("NTK") ? "traced-centred" : "centred";
        Plots.lines(
                run.file("alignment.png"),
                kn.equals("NTK")
                        ? "Traced-centred NTK–target alignment (probe set; not Eq. 5)"
                        : "Centred " + kn + "–target alignment (probe set; not Eq. 5)",
                "step",
                "alignment",
                x,
                al,
                false);
        summary.put(
                kn + " alignment at init (" + centring + ")",
                fmt(first.get(base).getAsDouble()));
        summary.put(
                kn + " alignment at end (" + centring + ")", fmt(last.get(base).getAsDouble()));
        kernelMotion(run, probes, x, summary, kn);
        heatmaps(run, probes, kn);
    }

    /**
     * The first and the last kernel kept in the run folder as heatmaps sorted by class, with class boundaries,
     * labelled with their step and where it falls in training (from the run's epoch records).
     */
    private static void heatmaps(RunFolder run, List<JsonObject> probes, String kn) {
        java.util.TreeSet<Long> kept = new java.util.TreeSet<>();
        for (JsonObject r : probes) {
            long s = r.get("step").getAsLong();
            if (java.nio.file.Files.isRegularFile(run.file(kernelFile(s)))) {
                kept.add(s);
            }
        }
        if (kept.isEmpty()) {
            return;
        }
        List<JsonObject> epochs = run.records("epoch");
        heatmap(run, kept.first(), "ntk-heatmap-init.png", epochs, kn);
        if (kept.size() > 1) {
            heatmap(run, kept.last(), "ntk-heatmap.png", epochs, kn);
        }
    }

    /** "NTK" for the traced kernel, "pNTK" for the pseudo-NTK: how titles name the kernel of these records. */
    static String label(JsonObject first) {
        return first.has("kernel") && "pntk".equals(first.get("kernel").getAsString()) ? "pNTK" : "NTK";
    }

    private static void heatmap(RunFolder run, long step, String png, List<JsonObject> epochs, String kn) {
        NpzReader npz = new NpzReader(run.file(kernelFile(step)));
        NpzReader.Array k = npz.read("ntk");
        NpzReader.Array l = npz.read("labels");
        int n = l.data().length;
        if (k.shape().length != 2 || k.rows() != n || k.cols() != n) {
            return; // not a traced kernel of the probe set: nothing to draw
        }
        double[][] m = new double[n][];
        int[] labels = new int[n];
        for (int i = 0; i < n; i++) {
            m[i] = java.util.Arrays.copyOfRange(k.data(), i * n, (i + 1) * n);
            labels[i] = (int) l.data()[i];
        }
        int[] sorted = labels.clone();
        java.util.Arrays.sort(sorted);
        Plots.heatmap(
                run.file(png),
                (kn.equals("NTK") ? "Traced NTK" : kn) + " of the probe set " + when(step, epochs)
                        + ", sorted by class",
                sortedByClass(m, labels),
                sorted);
    }

    /** "at initialisation", "at step 96 (end of epoch 3)", "at step 80 (during epoch 3)". */
    static String when(long step, List<JsonObject> epochs) {
        if (step == 0) {
            return "at initialisation (step 0)";
        }
        long done = 0;
        for (JsonObject e : epochs) {
            long s = e.get("step").getAsLong();
            if (s == step) {
                return "at step " + step + " (end of epoch " + e.get("epoch").getAsInt() + ")";
            }
            if (s < step) {
                done++;
            }
        }
        return epochs.isEmpty() ? "at step " + step : "at step " + step + " (during epoch " + (done + 1) + ")";
    }

    /** Kernel change, velocity and spectrum plots of the NTK probe (when its records carry them). */
    private static void kernelMotion(
            RunFolder run, List<JsonObject> probes, double[] x, Map<String, String> summary, String kn) {
        JsonObject first = probes.get(0);
        JsonObject last = probes.get(probes.size() - 1);
        if (first.has("kernel_distance_from_init")) {
            Plots.lines(
                    run.file("kernel-distance.png"),
                    kn + " distance from init, 1 − cos∠(Θt, Θ0) (probe set)",
                    "step",
                    "kernel distance",
                    x,
                    Map.of(kn, column(probes, "kernel_distance_from_init")),
                    false);
            Plots.lines(
                    run.file("kernel-change.png"),
                    kn + " relative change ‖Θt − Θ0‖F / ‖Θ0‖F (probe set)",
                    "step",
                    "relative change",
                    x,
                    Map.of(kn, column(probes, "relative_change_from_init")),
                    false);
            summary.put(
                    kn + " relative change at end",
                    fmt(last.get("relative_change_from_init").getAsDouble()));
            summary.put(
                    kn + " kernel distance from init at end",
                    fmt(last.get("kernel_distance_from_init").getAsDouble()));
        }
        if (first.has("theta_c_over_d")) {
            Map<String, double[]> la = new LinkedHashMap<>();
            la.put("Θc/Θd (same class)", column(probes, "theta_c_over_d"));
            la.put("Θn/Θd (different class)", column(probes, "theta_n_over_d"));
            Plots.lines(
                    run.file("label-awareness.png"),
                    kn + " label awareness (Seleznova & Kutyniok 2022, eq. 23)",
                    "step",
                    "mean off-diagonal / mean diagonal",
                    x,
                    la,
                    false);
        }
        List<JsonObject> moving =
                probes.stream().filter(r -> r.has("kernel_velocity")).toList();
        if (!moving.isEmpty()) {
            double[] xv = moving.stream()
                    .mapToDouble(r -> r.get("step").getAsDouble())
                    .toArray();
            double[] v = column(moving, "kernel_velocity");
            // a log axis when the velocity spans decades (XChart labels no ticks on a log axis within one decade)
            double lo = java.util.Arrays.stream(v).min().orElse(0);
            double hi = java.util.Arrays.stream(v).max().orElse(0);
            boolean log = lo > 0 && hi / lo > 10;
            Plots.lines(
                    run.file("kernel-velocity.png"),
                    "Kernel velocity (distance per step between probes)",
                    "step",
                    "velocity",
                    xv,
                    Map.of(kn, v),
                    log);
        }
        if (first.has("eigenvalues")) {
            Map<String, double[]> sp = new LinkedHashMap<>();
            sp.put("init", values(first.getAsJsonArray("eigenvalues")));
            if (probes.size() > 1) {
                sp.put("end", values(last.getAsJsonArray("eigenvalues")));
            }
            // a log axis shows the positive eigenvalues: the common positive prefix of the descending lists
            int k = sp.values().stream()
                    .mapToInt(NtkProbe::positivePrefix)
                    .min()
                    .orElse(0);
            double[] idx = new double[k];
            for (int i = 0; i < k; i++) {
                idx[i] = i + 1;
            }
            sp.replaceAll((name, v) -> java.util.Arrays.copyOf(v, k));
            if (k > 0) {
                Plots.lines(
                        run.file("ntk-spectrum.png"),
                        "Leading " + kn + " eigenvalues (probe set)",
                        "index",
                        "eigenvalue",
                        idx,
                        sp,
                        true);
            }
            summary.put(
                    kn + " effective rank init → end",
                    fmt(first.get("effective_rank").getAsDouble()) + " → "
                            + fmt(last.get("effective_rank").getAsDouble()));
        }
    }

    private static int positivePrefix(double[] v) {
        int k = 0;
        while (k < v.length && v[k] > 0) {
            k++;
        }
        return k;
    }

    private static double[] values(com.google.gson.JsonArray a) {
        double[] v = new double[a.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = a.get(i).getAsDouble();
        }
        return v;
    }
}
