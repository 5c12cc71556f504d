package org.ntk4j.metrics;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.ntk4j.UserException;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.factor.Mode;

/**
 * The metrics of an empirical NTK under their record keys, shared by the kernel job (the JSON
 * sidecar) and the NTK training probe (metrics.jsonl): each method puts its group of values into a
 * record, so both write the same keys from the same code. Each metric is a reduction on the engine over the traced
 * kernel Σ_o Θ(x_i, x_j)_oo ({@link TracedKernel}); the methods taking a Java N×N matrix wrap it into one.
 */
public final class KernelMetrics {
    public static final String ALIGNMENT = "alignment";
    /**
     * The centred alignment of the traced N×N kernel (Cortes et al. 2012; {@link Alignment#centeredAlignment}): the key the
     * kernel job, the quickstart and runs before {@link #TRACED_CENTRED_ALIGNMENT} write; not Eq. 5 of the Equilibrium
     * Hypothesis ({@link #LAYER_CKA}).
     */
    public static final String CENTERED_ALIGNMENT = "centered_alignment";
    /** The same traced-centred value under its own name ({@code .<layer>} per layer), logged by the NTK probe beside the old key. */
    public static final String TRACED_CENTRED_ALIGNMENT = "traced_centred_alignment";
    /** Eq. 5 layer CKA of Lou, Mingard &amp; Hayou ({@link LayerCka}), {@code layer_cka.<layer>} per layer; bare: Eq. 4, the total. */
    public static final String LAYER_CKA = "layer_cka";

    public static final String RELATIVE_CHANGE = "relative_change_from_init";
    public static final String DISTANCE = "kernel_distance_from_init";
    public static final String VELOCITY = "kernel_velocity";
    public static final String EFFECTIVE_RANK = "effective_rank";
    public static final String TARGET_POWER = "target_power_top_classes";
    public static final String EIGENVALUES = "eigenvalues";
    /** How the eigenvalues were found: {@link #SUBSPACE_ITERATION} or {@link #EXACT}. */
    public static final String EIGEN_METHOD = "eigen_method";
    /** The backward error max_i ‖T v_i − λ_i v_i‖ / λ_1 of the recorded eigenpairs ({@link LeadingSpectrum}). */
    public static final String EIGEN_RESIDUAL = "eigen_residual";
    /** Products T Q the subspace iteration took (passes over the kernel). */
    public static final String EIGEN_PASSES = "eigen_passes";
    /** Whether the subspace iteration met its tolerance ({@link LeadingSpectrum#TOLERANCE}). */
    public static final String EIGEN_CONVERGED = "eigen_converged";

    public static final String SUBSPACE_ITERATION = "randomized subspace iteration (Halko, Martinsson & Tropp 2011)";
    public static final String EXACT = "exact (EJML symmetric eigen-decomposition)";
    public static final String THETA_C_OVER_D = "theta_c_over_d";
    public static final String THETA_N_OVER_D = "theta_n_over_d";
    /** Leading eigenvalues the training probes record (exact spectrum of their small kernels). */
    public static final int MAX_EIGENVALUES = 64;
    /** Key of the count of a kernel's non-finite traced entries, beside "skipped", where it has any. */
    public static final String NON_FINITE_ENTRIES = "non_finite_entries";
    /**
     * Leading eigenpairs the kernel job finds by subspace iteration unless told otherwise: each costs two columns of
     * the N × N × l product of every pass, the metrics' main cost (docs/kernel-metrics.md).
     */
    public static final int LEADING_EIGENVALUES = 32;

    /**
     * What the kernel job's metrics compute beyond the reductions.
     *
     * @param eigenvalues leading eigenpairs by subspace iteration (0: none)
     * @param exactSpectrum the whole spectrum by EJML's O(N³) eigen-decomposition on an N × N host copy instead
     */
    public record Options(int eigenvalues, boolean exactSpectrum) {
        /** {@link #LEADING_EIGENVALUES} leading eigenpairs by subspace iteration. */
        public static final Options DEFAULT = new Options(LEADING_EIGENVALUES, false);

        /** The most leading eigenpairs the subspace iteration is asked for; beyond, the exact spectrum is the tool. */
        public static final int MAX_EIGENVALUES = 10_000;

        public Options {
            if (eigenvalues < 0 || eigenvalues > MAX_EIGENVALUES) {
                throw new UserException("--eigenvalues must be between 0 and " + MAX_EIGENVALUES + " (got "
                        + eigenvalues + "; for the whole spectrum use --exact-spectrum)");
            }
        }
    }

    private KernelMetrics() {}

    /** The target matrix Y (N × {@link #targetColumns}), row-major: one-hot labels, or a regression set's own targets. */
    public static float[] targets(LabelledSet data, int n) {
        int c = targetColumns(data);
        return data.isRegression()
                ? Arrays.copyOf(data.targets(), n * c)
                : Preprocess.oneHot(Arrays.copyOf(data.labels(), n), c);
    }

    /** Columns of Y: the classes, or a regression set's target outputs. */
    public static int targetColumns(LabelledSet data) {
        return data.isRegression() ? data.targetOutputs() : data.numClasses();
    }

    /** Kernel–target alignment, plain and centred ({@link Alignment}), from one engine pass. */
    public static void alignment(Map<String, Object> r, TracedKernel traced, float[] y, int c) {
        Alignment.Values a = Alignment.of(traced, y, c);
        r.put(ALIGNMENT, a.plain());
        r.put(CENTERED_ALIGNMENT, a.centred());
    }

    /** Kernel–target alignment, plain and centred ({@link Alignment}), of a host traced kernel. */
    public static void alignment(Map<String, Object> r, double[][] traced, float[] y, int c) {
        TracedKernel.onHost(traced, t -> {
            alignment(r, t, y, c);
            return null;
        });
    }

    /** The centred alignment of one layer's kernel Θ_l, under {@code centered_alignment.<layer>}. */
    public static void layerAlignment(Map<String, Object> r, String layer, double[][] traced, float[] y, int c) {
        r.put(CENTERED_ALIGNMENT + "." + layer, Alignment.centeredAlignment(traced, y, c));
    }

    /**
     * How far the kernel moved ({@link KernelChange}): relative change and distance from {@code initial},
     * and, when {@code previous} is given, the velocity over {@code steps} steps.
     */
    public static void motion(
            Map<String, Object> r, double[][] traced, double[][] initial, double[][] previous, long steps) {
        r.put(RELATIVE_CHANGE, KernelChange.relativeChange(traced, initial));
        r.put(DISTANCE, KernelChange.distance(traced, initial));
        if (previous != null) {
            r.put(VELOCITY, KernelChange.velocity(previous, traced, steps));
        }
    }

    /**
     * The exact spectrum ({@link KernelSpectrum}, EJML on the host): effective rank, with targets {@code y} (else
     * null) the fraction of Y's power in the top-c eigenvectors, and up to {@link #MAX_EIGENVALUES} leading
     * eigenvalues. For the small kernels of the training probes; the kernel job uses {@link #spectrum(Map,
     * TracedKernel, float[], int, Options)}.
     */
    public static void spectrum(Map<String, Object> r, double[][] traced, float[] y, int c) {
        KernelSpectrum spectrum = KernelSpectrum.of(traced);
        double[] ev = spectrum.eigenvalues();
        r.put(EFFECTIVE_RANK, spectrum.effectiveRank());
        if (y != null) {
            r.put(TARGET_POWER, spectrum.cumulativeTargetPower(y, c)[Math.min(c, ev.length) - 1]);
        }
        r.put(EIGENVALUES, Arrays.copyOf(ev, Math.min(MAX_EIGENVALUES, ev.length)));
    }

    /**
     * The spectrum of a traced kernel on the engine: the effective rank (tr T)²/‖T‖_F² from one pass
     * ({@link KernelSpectrum#effectiveRank(TracedKernel)}, no eigen-decomposition); the leading
     * {@code options.eigenvalues()} eigenvalues by subspace iteration ({@link LeadingSpectrum}) with their backward
     * error and passes, or, with {@code options.exactSpectrum()}, by EJML on a host copy; with targets {@code y} (else
     * null) the fraction of Y's power in the top-c eigenvectors (c ≤ the eigenvalues found).
     */
    public static void spectrum(Map<String, Object> r, TracedKernel traced, float[] y, int c, Options options) {
        if (options.exactSpectrum()) {
            KernelSpectrum spectrum = KernelSpectrum.of(traced.toHostMatrix());
            double[] ev = spectrum.eigenvalues();
            int k = Math.min(Math.max(options.eigenvalues(), MAX_EIGENVALUES), ev.length);
            r.put(EFFECTIVE_RANK, KernelSpectrum.effectiveRank(traced));
            r.put(EIGEN_METHOD, EXACT);
            r.put(EIGENVALUES, Arrays.copyOf(ev, k));
            if (y != null) {
                r.put(TARGET_POWER, spectrum.cumulativeTargetPower(y, c)[Math.min(c, ev.length) - 1]);
            }
            return;
        }
        // the eigen-solve first: its float64 pass also takes the moments the effective rank needs
        LeadingSpectrum lead = options.eigenvalues() == 0 ? null : LeadingSpectrum.of(traced, options.eigenvalues());
        r.put(EFFECTIVE_RANK, KernelSpectrum.effectiveRank(traced));
        if (lead == null) {
            return;
        }
        double[] ev = lead.eigenvalues();
        r.put(EIGEN_METHOD, SUBSPACE_ITERATION);
        r.put(EIGENVALUES, ev);
        r.put(EIGEN_RESIDUAL, lead.backwardError());
        r.put(EIGEN_PASSES, lead.passes());
        r.put(EIGEN_CONVERGED, lead.converged());
        if (y != null && c <= ev.length) {
            r.put(TARGET_POWER, lead.cumulativeTargetPower(y, c)[c - 1]);
        }
    }

    /**
     * Label awareness Θ̄_c/Θ̄_d and Θ̄_n/Θ̄_d (Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit, eq. (23),
     * {@link LabelAwareness}); with {@code means} also Θ̄_d, Θ̄_c, Θ̄_n. Throws {@link UserException} where it is not
     * defined (a class with one sample).
     */
    public static void labelAwareness(Map<String, Object> r, TracedKernel traced, int[] labels, boolean means) {
        put(r, LabelAwareness.of(traced, labels), means);
    }

    /** As {@link #labelAwareness(Map, TracedKernel, int[], boolean)} for a host traced kernel. */
    public static void labelAwareness(Map<String, Object> r, double[][] traced, int[] labels, boolean means) {
        put(r, LabelAwareness.of(traced, labels), means);
    }

    private static void put(Map<String, Object> r, LabelAwareness la, boolean means) {
        if (means) {
            r.put("theta_d", la.thetaD());
            r.put("theta_c", la.thetaC());
            r.put("theta_n", la.thetaN());
        }
        r.put(THETA_C_OVER_D, la.cOverD());
        r.put(THETA_N_OVER_D, la.nOverD());
    }

    /**
     * The block-structure parameters (γ_d, γ_c, γ_n) of a full kernel and its off-diagonal ratio (Seleznova et al.,
     * Neural (Tangent Kernel) Collapse, Def. 3.1), from its traced kernel ({@link TracedKernel#isFull()}).
     */
    public static void blockStructure(Map<String, Object> r, TracedKernel full, int[] labels) {
        put(r, BlockStructure.of(full, labels));
    }

    /** As {@link #blockStructure(Map, TracedKernel, int[])} for a host full kernel. */
    public static void blockStructure(Map<String, Object> r, KernelMatrix full, int[] labels) {
        put(r, BlockStructure.of(full, labels));
    }

    private static void put(Map<String, Object> r, BlockStructure bs) {
        r.put("gamma_d", bs.gammaD());
        r.put("gamma_c", bs.gammaC());
        r.put("gamma_n", bs.gammaN());
        r.put("off_diagonal_blocks_over_gamma_d", bs.offDiagonalRatio());
    }

    /**
     * Memory the kernel job's metrics need beyond the kernel itself, for N samples: the eigen-solve's N-long float64
     * columns ({@link LeadingSpectrum#workingColumns}: about 12 l for l = 2k, with the N × k eigenvectors) and three float64 row slabs
     * ({@link TracedKernel#SLAB_ENTRIES}); with the exact spectrum instead of the subspace iteration six N × N float64 matrices (host copy,
     * eigen-decomposition). A kernel held on the host is copied to the engine only where the budget left by the
     * kernel's tiles allows ({@link #of(NDManager, KernelResult, LabelledSet, int, Options, long)}).
     */
    public static long workingBytes(int n, Options options) {
        return workingBytes(n, Long.MAX_VALUE, options);
    }

    /**
     * {@link #workingBytes(int, Options)} for a kernel of {@code inner} entries per sample pair (1 traced, O diagonal,
     * O² full): its row slabs hold whole rows, at most {@link TracedKernel#SLAB_ENTRIES} entries, so a small kernel's
     * slabs are only as large as the kernel.
     */
    public static long workingBytes(int n, long inner, Options options) {
        long slab = inner == Long.MAX_VALUE
                ? TracedKernel.SLAB_ENTRIES
                : Math.min(TracedKernel.SLAB_ENTRIES, (long) TracedKernel.rowsPerSlab(n, inner) * n * inner);
        long bytes = 3 * slab * 8;
        if (options.exactSpectrum()) {
            // the exact spectrum replaces the subspace iteration
            return bytes + 48L * n * n;
        }
        int k = Math.min(n, options.eigenvalues());
        return bytes + (k == 0 ? 0 : LeadingSpectrum.workingColumns(n, k) * 8L * n);
    }

    /** {@link #workingBytes(int, Options)} with the default options. */
    public static long workingBytes(int n) {
        return workingBytes(n, Options.DEFAULT);
    }

    /**
     * The metrics of a kernel job's train kernel Θ(X1, X1) held on the host, on the first {@code n} samples of
     * {@code data}, on a CPU engine of their own with the default options.
     */
    public static Map<String, Object> of(KernelResult k, LabelledSet data, int n) {
        try (NDManager m = NDManager.newBaseManager(Device.cpu())) {
            return of(m, k, data, n, Options.DEFAULT, Long.MAX_VALUE);
        }
    }

    /**
     * The metrics of a host train kernel on {@code m}'s device: its traced kernel is copied to the engine when that
     * fits in {@code memory} bytes, else streamed from the host at every pass ({@link TracedKernel#streamed}).
     */
    public static Map<String, Object> of(
            NDManager m, KernelResult k, LabelledSet data, int n, Options options, long memory) {
        KernelMatrix total = k.total();
        long copy = (long) n * n * (total.mode() == Mode.TRACE && !total.isFloat64() ? 4 : 8);
        try (TracedKernel t = copy <= memory ? TracedKernel.of(m, total) : TracedKernel.streamed(m, total)) {
            return of(t, data, n, options);
        }
    }

    /** The metrics of an engine train kernel Θ(X1, X1) ((N, N), (N, N, O) or (N, N, O, O)) on its device. */
    public static Map<String, Object> of(NDArray kernel, LabelledSet data, int n, Options options) {
        try (TracedKernel t = TracedKernel.of(kernel)) {
            return of(t, data, n, options);
        }
    }

    /**
     * The metrics of a kernel job's train kernel on the first {@code n} samples of {@code data}: alignment, label
     * awareness with its means (or why it is not defined), for a full kernel the block structure, the effective rank,
     * and the leading eigenvalues with the fraction of the targets in the top-c eigenvectors ({@link #spectrum(Map,
     * TracedKernel, float[], int, Options)}); at every N, in O(N·k) memory beyond the kernel. A kernel with NaN or
     * infinite entries has none of them: "skipped" says why and {@value #NON_FINITE_ENTRIES} counts the entries.
     */
    public static Map<String, Object> of(TracedKernel traced, LabelledSet data, int n, Options options) {
        try {
            Map<String, Object> r = compute(traced, data, n, options);
            // the moments come with the first float64 pass, which alignment always makes: a non-finite ‖T‖_F²
            // (T's float64 squares) is the sign of a non-finite entry
            return Double.isFinite(traced.moments().squaredNorm()) ? r : nonFinite(traced, r, null);
        } catch (RuntimeException e) {
            return nonFinite(traced, null, e);
        }
    }

    /**
     * The metrics of a kernel with NaN or infinite entries (a float32 overflow in the network's outputs or gradients,
     * or NaN weights' results) are not defined: "skipped" says why and {@value #NON_FINITE_ENTRIES} how many of the N²
     * traced entries. Where the kernel is finite after all, the metrics {@code computed} stand, or the failure {@code
     * failure} is rethrown (it is then a bug).
     */
    private static Map<String, Object> nonFinite(
            TracedKernel traced, Map<String, Object> computed, RuntimeException failure) {
        long bad = traced.nonFiniteEntries();
        if (bad == 0) {
            if (failure != null) {
                throw failure;
            }
            return computed;
        }
        long n = traced.size();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put(
                "skipped",
                "not computed: " + bad + " of the kernel's " + n * n + " (traced) entries are not finite (NaN or"
                        + " infinite: the network's outputs or gradients overflowed, or its weights are far out of"
                        + " scale; a float64 kernel has a wider range)");
        r.put(NON_FINITE_ENTRIES, bad);
        return r;
    }

    /** The metrics as {@link #of(TracedKernel, LabelledSet, int, Options)} lists them, for a finite kernel. */
    private static Map<String, Object> compute(TracedKernel traced, LabelledSet data, int n, Options options) {
        Map<String, Object> r = new LinkedHashMap<>();
        int[] y = Arrays.copyOf(data.labels(), n);
        float[] targets = targets(data, n);
        int c = targetColumns(data);
        // the products of alignment, label awareness and block structure ride on the first float64 pass
        traced.prefetch(Alignment.product(targets, c, n), 2 * c);
        try {
            ClassPartition classes = ClassPartition.of(y, n);
            traced.prefetch(classes.indicators(), classes.classes());
        } catch (UserException e) {
            // label awareness is not defined; it says why below
        }
        Map<String, Object> spectrum = new LinkedHashMap<>();
        spectrum(spectrum, traced, targets, c, options);
        alignment(r, traced, targets, c);
        try {
            labelAwareness(r, traced, y, true);
        } catch (UserException e) {
            r.put("label_awareness", "not defined: " + e.getMessage()); // e.g. a class with one sample
        }
        if (traced.isFull()) {
            try {
                blockStructure(r, traced, y);
            } catch (UserException e) {
                r.put("block_structure", "not defined: " + e.getMessage());
            }
        }
        r.putAll(spectrum);
        return r;
    }
}
