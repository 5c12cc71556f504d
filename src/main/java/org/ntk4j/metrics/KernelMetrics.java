package org.ntk4j.metrics;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.ntk4j.UserException;
import org.ntk4j.data.Dataset;
import org.ntk4j.data.Preprocess;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.factor.Mode;

/**
 * The metrics of an empirical NTK under their record keys, shared by the kernel job (the JSON
 * sidecar) and the NTK training probe (metrics.jsonl): each method puts its group of values into a
 * record, so both write the same keys from the same code. All take the traced kernel Σ_o Θ(x_i, x_j)_oo
 * as a Java N×N matrix.
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
    public static final String THETA_C_OVER_D = "theta_c_over_d";
    public static final String THETA_N_OVER_D = "theta_n_over_d";
    /** Leading eigenvalues recorded. */
    public static final int MAX_EIGENVALUES = 64;
    /** Largest N for the O(N²) metrics of {@link #of} (a double N×N copy of the traced kernel) and for the O(N³) spectrum. */
    public static final int METRICS_MAX_N = 4096;

    public static final int SPECTRUM_MAX_N = 2048;

    private KernelMetrics() {}

    /** The target matrix Y (N × {@link #targetColumns}), row-major: one-hot labels, or a regression set's own targets. */
    public static float[] targets(Dataset data, int n) {
        int c = targetColumns(data);
        return data.isRegression()
                ? Arrays.copyOf(data.targets(), n * c)
                : Preprocess.oneHot(Arrays.copyOf(data.labels(), n), c);
    }

    /** Columns of Y: the classes, or a regression set's target outputs. */
    public static int targetColumns(Dataset data) {
        return data.isRegression() ? data.targetOutputs() : data.numClasses();
    }

    /** Kernel–target alignment, plain and centred ({@link Alignment}). */
    public static void alignment(Map<String, Object> r, double[][] traced, float[] y, int c) {
        r.put(ALIGNMENT, Alignment.alignment(traced, y, c));
        r.put(CENTERED_ALIGNMENT, Alignment.centeredAlignment(traced, y, c));
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
     * The spectrum ({@link KernelSpectrum}): effective rank, with targets {@code y} (else null) the
     * fraction of Y's power in the top-c eigenvectors, and up to {@link #MAX_EIGENVALUES} leading eigenvalues.
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
     * Label awareness Θ̄_c/Θ̄_d and Θ̄_n/Θ̄_d (Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit, eq. (23),
     * {@link LabelAwareness}); with {@code means} also Θ̄_d, Θ̄_c, Θ̄_n. Throws {@link UserException} where it is not
     * defined (a class with one sample).
     */
    public static void labelAwareness(Map<String, Object> r, double[][] traced, int[] labels, boolean means) {
        LabelAwareness la = LabelAwareness.of(traced, labels);
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
     * Neural (Tangent Kernel) Collapse, Def. 3.1).
     */
    public static void blockStructure(Map<String, Object> r, KernelMatrix full, int[] labels) {
        BlockStructure bs = BlockStructure.of(full, labels);
        r.put("gamma_d", bs.gammaD());
        r.put("gamma_c", bs.gammaC());
        r.put("gamma_n", bs.gammaN());
        r.put("off_diagonal_blocks_over_gamma_d", bs.offDiagonalRatio());
    }

    /**
     * Heap bytes {@link #of} needs for an N-sample kernel: none above {@link #METRICS_MAX_N} (metrics are
     * skipped), about six N×N float64 matrices up to {@link #SPECTRUM_MAX_N} (traced kernel, centred copy,
     * the eigen-decomposition's work arrays), and three in between (traced kernel, centred copy, label means).
     */
    public static long workingBytes(int n) {
        if (n > METRICS_MAX_N) {
            return 0;
        }
        return (n <= SPECTRUM_MAX_N ? 48L : 24L) * n * n;
    }

    /**
     * The metrics of a kernel job's train kernel Θ(X1, X1) on the first {@code n} samples of {@code data}:
     * alignment, label awareness with its means (or why it is not defined), for a full kernel the block
     * structure, and up to {@link #SPECTRUM_MAX_N} the effective rank and leading eigenvalues; nothing
     * but a note above {@link #METRICS_MAX_N}.
     */
    public static Map<String, Object> of(KernelResult k, Dataset data, int n) {
        Map<String, Object> r = new LinkedHashMap<>();
        if (n > METRICS_MAX_N) {
            r.put(
                    "skipped",
                    "metrics are computed up to N = " + METRICS_MAX_N + " (got " + n
                            + "); load the NPZ to compute them");
            return r;
        }
        double[][] traced = k.total().traced();
        int[] y = Arrays.copyOf(data.labels(), n);
        alignment(r, traced, targets(data, n), targetColumns(data));
        try {
            labelAwareness(r, traced, y, true);
        } catch (UserException e) {
            r.put("label_awareness", "not defined: " + e.getMessage()); // e.g. a class with one sample
        }
        if (k.total().mode() == Mode.FULL) {
            try {
                blockStructure(r, k.total(), y);
            } catch (UserException e) {
                r.put("block_structure", "not defined: " + e.getMessage());
            }
        }
        if (n <= SPECTRUM_MAX_N) {
            spectrum(r, traced, null, 0);
        }
        return r;
    }
}
