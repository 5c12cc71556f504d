package org.ntk4j.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;

/**
 * The engine reductions against the host loops they replaced ({@link LegacyMetrics}) and against LAPACK's exact
 * spectrum, on real NTKs (an MLP with biases, float64 and float32, traced and full) and on synthetic kernels whose
 * constant mode dwarfs the rest: every value to 1e-6 relative, the kernel held three ways (engine array, engine copy
 * of a host kernel, host stream) giving the same values, and the host traffic of an engine kernel counted.
 */
class EngineMetricsTest {
    static final int N = 300;
    static final int CLASSES = 4;
    /** The bound of the comparison with the host loops: float64 sums in another order, and the eigenvalues. */
    static final double TOLERANCE = 1e-6;
    /** 16 leading eigenpairs where the spectrum is not the point. */
    static final KernelMetrics.Options OPTIONS = new KernelMetrics.Options(16, false);

    /** One kernel under test with its labels, one-hot targets and a name for messages. */
    record Case(String name, KernelMatrix kernel, int[] labels, float[] y) {}

    static int[] labels(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int[] labels = new int[n];
        for (int i = 0; i < n; i++) {
            labels[i] = i < 2 * CLASSES ? i % CLASSES : r.nextInt(CLASSES);
        }
        return labels;
    }

    /** A classification set of {@code labels.length} samples with these labels (no features: the metrics read none). */
    static LabelledSet labelled(int[] labels) {
        return new LabelledSet("labels", new float[labels.length], new int[] {1}, labels, CLASSES);
    }

    /** X Xᵀ for an n × d Gaussian X owned by {@code m}: a random positive semi-definite kernel of rank d. */
    static NDArray gram(NDManager m, int n, int d) {
        NDArray x = m.randomNormal(new Shape(n, d));
        return x.matMul(x.transpose());
    }

    static float[] oneHot(int[] labels, int c) {
        float[] y = new float[labels.length * c];
        for (int i = 0; i < labels.length; i++) {
            y[i * c + labels[i]] = 1;
        }
        return y;
    }

    /** The NTK of a 20-64-64-4 ReLU MLP with biases on N Gaussian inputs. */
    static KernelMatrix mlpKernel(NDManager m, Mode mode, DataType type) {
        ModelSpec s = ModelSpec.parse(
                "{\"arch\":\"mlp\",\"input\":[20],\"widths\":[64,64],\"outputs\":" + CLASSES
                        + ",\"activation\":\"relu\"}",
                "engine-metrics-test");
        try (Network net = Network.build(s, 5, m, type)) {
            double[] xs = new double[N * 20];
            SplittableRandom r = new SplittableRandom(2);
            for (int i = 0; i < xs.length; i++) {
                xs[i] = r.nextGaussian();
            }
            try (NDArray x = m.create(xs, new Shape(N, 20)).toType(type, true).duplicate()) {
                Ntk ntk = Ntk.of(net).mode(mode);
                if (type == DataType.FLOAT64) {
                    ntk.float64();
                }
                return ntk.compute(x).total();
            }
        }
    }

    /** c·11ᵀ + A Aᵀ (A: N × 160 Gaussian), float64: a constant mode {@code c}·N against a spread of ~160. */
    static KernelMatrix constantModeKernel(int n, double c, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[][] a = new double[n][160];
        for (double[] row : a) {
            for (int j = 0; j < 160; j++) {
                row[j] = r.nextGaussian();
            }
        }
        double[] block = new double[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double s = c;
                for (int q = 0; q < 160; q++) {
                    s += a[i][q] * a[j][q];
                }
                block[i * n + j] = s;
            }
        }
        KernelMatrix k = new KernelMatrix(n, n, Mode.TRACE, 1, true);
        k.addBlock(0, 0, n, n, block, false);
        return k;
    }

    static List<Case> cases(NDManager m) {
        List<Case> out = new ArrayList<>();
        int[] labels = labels(N, 3);
        float[] y = oneHot(labels, CLASSES);
        for (DataType type : new DataType[] {DataType.FLOAT64, DataType.FLOAT32}) {
            for (Mode mode : new Mode[] {Mode.TRACE, Mode.FULL, Mode.DIAGONAL}) {
                out.add(new Case("mlp " + mode + " " + type, mlpKernel(m, mode, type), labels, y));
            }
        }
        int[] odd = labels(257, 4);
        out.add(new Case("constant mode 1e3", constantModeKernel(257, 1e3, 6), odd, oneHot(odd, CLASSES)));
        return out;
    }

    static void assertRelative(double expected, double actual, double tol, String what) {
        double err = Math.abs(actual - expected) / Math.max(Math.abs(expected), Double.MIN_NORMAL);
        assertTrue(err <= tol, what + ": " + actual + " vs " + expected + " (relative " + err + ")");
    }

    @Test
    void sameValuesAsTheHostLoopsAndTheExactSpectrum() {
        try (NDManager m = NDManager.newBaseManager()) {
            for (Case c : cases(m)) {
                double[][] traced = c.kernel().traced();
                try (TracedKernel t = TracedKernel.of(m, c.kernel())) {
                    Alignment.Values a = Alignment.of(t, c.y(), CLASSES);
                    assertRelative(LegacyMetrics.alignment(traced, c.y(), CLASSES), a.plain(), TOLERANCE, c.name());
                    assertRelative(
                            LegacyMetrics.centeredAlignment(traced, c.y(), CLASSES), a.centred(), TOLERANCE, c.name());
                    double[] la = LegacyMetrics.labelAwareness(traced, c.labels());
                    LabelAwareness l = LabelAwareness.of(t, c.labels());
                    assertRelative(la[0], l.thetaD(), TOLERANCE, c.name() + " Θ̄_d");
                    assertRelative(la[1], l.thetaC(), TOLERANCE, c.name() + " Θ̄_c");
                    assertRelative(la[2], l.thetaN(), TOLERANCE, c.name() + " Θ̄_n");
                    if (c.kernel().mode() == Mode.FULL) {
                        double[] bs = LegacyMetrics.blockStructure(c.kernel(), c.labels());
                        BlockStructure b = BlockStructure.of(t, c.labels());
                        assertRelative(bs[0], b.gammaD(), TOLERANCE, c.name() + " γ_d");
                        assertRelative(bs[1], b.gammaC(), TOLERANCE, c.name() + " γ_c");
                        assertRelative(bs[2], b.gammaN(), TOLERANCE, c.name() + " γ_n");
                        assertRelative(bs[3], b.offDiagonal(), TOLERANCE, c.name() + " off-diagonal");
                    }
                    KernelSpectrum exact = KernelSpectrum.of(traced);
                    assertRelative(exact.effectiveRank(), KernelSpectrum.effectiveRank(t), TOLERANCE, c.name());
                    LeadingSpectrum lead = LeadingSpectrum.of(t, KernelMetrics.MAX_EIGENVALUES);
                    assertTrue(lead.converged(), c.name() + " converged in " + lead.passes() + " passes");
                    double[] ev = exact.eigenvalues();
                    double[] got = lead.eigenvalues();
                    assertEquals(KernelMetrics.MAX_EIGENVALUES, got.length);
                    for (int i = 0; i < got.length; i++) {
                        assertRelative(ev[i], got[i], TOLERANCE, c.name() + " λ_" + (i + 1));
                    }
                    assertRelative(
                            exact.cumulativeTargetPower(c.y(), CLASSES)[CLASSES - 1],
                            lead.cumulativeTargetPower(c.y(), CLASSES)[CLASSES - 1],
                            TOLERANCE,
                            c.name() + " target power");
                }
            }
        }
    }

    /** The residual the iteration reports is ‖T v − λ v‖ recomputed on the host from the returned pairs. */
    @Test
    void reportedResidualsAreTheTrueOnes() {
        try (NDManager m = NDManager.newBaseManager()) {
            KernelMatrix k = mlpKernel(m, Mode.TRACE, DataType.FLOAT32);
            double[][] traced = k.traced();
            try (TracedKernel t = TracedKernel.of(m, k)) {
                LeadingSpectrum lead = LeadingSpectrum.of(t, 16);
                double[] ev = lead.eigenvalues();
                double worst = 0;
                for (int i = 0; i < ev.length; i++) {
                    double[] v = lead.eigenvector(i);
                    double r = 0;
                    double norm = 0;
                    for (int a = 0; a < N; a++) {
                        double tv = 0;
                        for (int b = 0; b < N; b++) {
                            tv += traced[a][b] * v[b];
                        }
                        r += (tv - ev[i] * v[a]) * (tv - ev[i] * v[a]);
                        norm += v[a] * v[a];
                    }
                    assertEquals(1, norm, 1e-12, "unit eigenvector " + i);
                    assertEquals(Math.sqrt(r), lead.residuals()[i], 1e-9 * ev[0], "residual " + i);
                    worst = Math.max(worst, Math.sqrt(r) / ev[0]);
                }
                assertEquals(worst, lead.backwardError(), 1e-9);
                assertTrue(lead.backwardError() <= LeadingSpectrum.TOLERANCE, "" + lead.backwardError());
            }
        }
    }

    /** An engine array, the engine copy of a host kernel and the host stream give the same metrics. */
    @Test
    void theThreeHoldersAgree() {
        try (NDManager m = NDManager.newBaseManager()) {
            int[] labels = labels(N, 3);
            LabelledSet data = labelled(labels);
            for (Mode mode : new Mode[] {Mode.TRACE, Mode.FULL}) {
                KernelMatrix k = mlpKernel(m, mode, DataType.FLOAT32);
                Map<String, Object> copy;
                try (TracedKernel t = TracedKernel.of(m, k)) {
                    copy = KernelMetrics.of(t, data, N, OPTIONS);
                }
                Map<String, Object> stream;
                try (TracedKernel t = TracedKernel.streamed(m, k)) {
                    stream = KernelMetrics.of(t, data, N, OPTIONS);
                }
                Map<String, Object> engine;
                try (NDArray a =
                        m.create(k.toFloatArray(), new Shape(k.shape())).duplicate()) {
                    engine = KernelMetrics.of(a, data, N, OPTIONS);
                }
                assertEquals(copy.keySet(), engine.keySet());
                for (Map<String, Object> other : List.of(stream, engine)) {
                    for (Map.Entry<String, Object> e : copy.entrySet()) {
                        Object v = other.get(e.getKey());
                        if (e.getValue() instanceof Double d) {
                            assertRelative(d, (Double) v, 1e-12, mode + " " + e.getKey());
                        } else if (e.getValue() instanceof double[] ev) {
                            double[] w = (double[]) v;
                            for (int i = 0; i < ev.length; i++) {
                                assertRelative(ev[i], w[i], 1e-12, mode + " " + e.getKey() + "[" + i + "]");
                            }
                        } else {
                            assertEquals(e.getValue(), v, mode + " " + e.getKey());
                        }
                    }
                }
                assertEquals(mode == Mode.FULL, copy.containsKey("gamma_d"));
            }
        }
    }

    /**
     * A kernel on the engine sends O(N·k) numbers to the host, never its N² entries: the count of every copy equals
     * a bound with no N² term (moments 3N, alignment 2·N·2C, label awareness 2·N·K, the Gaussian start N·l, the
     * eigenvectors N·k, and per pass the l × l Rayleigh quotient, its eigenvectors and two Cholesky rounds).
     */
    @Test
    void anEngineKernelStaysOnTheEngine() {
        int n = 2000;
        try (NDManager m = NDManager.newBaseManager();
                NDArray x = m.randomNormal(new Shape(n, 30));
                NDArray k = x.matMul(x.transpose()).add(m.full(new Shape(), 3f))) {
            int[] labels = labels(n, 9);
            float[] y = oneHot(labels, CLASSES);
            try (TracedKernel t = TracedKernel.of(k)) {
                Alignment.of(t, y, CLASSES);
                LabelAwareness.of(t, labels);
                KernelSpectrum.effectiveRank(t);
                LeadingSpectrum lead = LeadingSpectrum.of(t, 16);
                int l = lead.block();
                long passes = lead.passes();
                long bound = 8L
                        * (n * (3L + 4 * CLASSES + 2 * CLASSES + l + 16)
                                + (passes + 1) * (6L * l * l + 4L * l)
                                + 8L * t.passes());
                assertTrue(t.hostBytes() <= bound, t.hostBytes() + " host bytes > " + bound);
                assertTrue(bound < 4L * n * n / 2, "the bound is below half the kernel's bytes");
                assertEquals(passes + 2, t.passes(), "alignment (taking the moments), label awareness, one per T Q");
            }
        }
    }

    /** Metrics at N above the old 4096 cut-off: computed, not skipped. */
    @Test
    void largeKernelsGetTheirMetrics() {
        int n = 4500;
        LabelledSet data = labelled(labels(n, 11));
        try (NDManager m = NDManager.newBaseManager();
                NDArray k = gram(m, n, 12).add(m.full(new Shape(), 2f))) {
            Map<String, Object> r = KernelMetrics.of(k, data, n, new KernelMetrics.Options(8, false));
            assertFalse(r.containsKey("skipped"));
            for (String key : new String[] {"alignment", "centered_alignment", "theta_c_over_d", "effective_rank"}) {
                assertTrue(Double.isFinite((Double) r.get(key)), key + " " + r);
            }
            assertEquals(8, ((double[]) r.get(KernelMetrics.EIGENVALUES)).length);
            assertEquals(Boolean.TRUE, r.get(KernelMetrics.EIGEN_CONVERGED), r.toString());
        }
    }

    /**
     * A kernel with non-finite entries (a float32 overflow): no metrics, "skipped" with the count of non-finite traced
     * entries — whether the eigen-solve fails on it (a NaN or an infinity among many finite entries) or every step
     * runs on NaNs (--eigenvalues 0) — and a finite kernel of the same shape keeps its metrics.
     */
    @Test
    void aKernelWithNonFiniteEntriesHasNoMetrics() {
        int n = 200;
        LabelledSet data = labelled(labels(n, 13));
        try (NDManager m = NDManager.newBaseManager();
                NDArray k = gram(m, n, 12)) {
            for (KernelMetrics.Options options :
                    List.of(KernelMetrics.Options.DEFAULT, new KernelMetrics.Options(0, false))) {
                assertFalse(KernelMetrics.of(k, data, n, options).containsKey("skipped"), "finite: " + options);
                try (NDArray bad = k.duplicate()) {
                    bad.set(new ai.djl.ndarray.index.NDIndex("3, 7"), Float.NaN);
                    bad.set(new ai.djl.ndarray.index.NDIndex("7, 3"), Float.NaN);
                    bad.set(new ai.djl.ndarray.index.NDIndex("11, 11"), Float.POSITIVE_INFINITY);
                    Map<String, Object> r = KernelMetrics.of(bad, data, n, options);
                    assertEquals(3L, r.get(KernelMetrics.NON_FINITE_ENTRIES), r.toString());
                    assertTrue(
                            ((String) r.get("skipped")).startsWith("not computed: 3 of the kernel's 40000"),
                            r.toString());
                    assertFalse(r.containsKey(KernelMetrics.ALIGNMENT), r.toString());
                }
            }
        }
    }

    /**
     * A constant kernel (a ReLU network whose units all died keeps only its last bias: Θ = c_b²): HKH = 0, so the
     * centred alignment is 0/0 — NaN, not the ±∞ that the rounding left in ⟨HKH, HYYᵀH⟩ gave — while the plain
     * alignment A(c·11ᵀ, YYᵀ) = ‖Yᵀ1‖² / (n ‖YᵀY‖_F) stays defined.
     */
    @Test
    void aConstantKernelHasNoCentredAlignment() {
        int n = 100;
        int[] labels = labels(n, 17);
        float[] y = oneHot(labels, CLASSES);
        double[][] k = new double[n][n];
        for (double[] row : k) {
            java.util.Arrays.fill(row, 10.0);
        }
        Alignment.Values v = TracedKernel.onHost(k, t -> Alignment.of(t, y, CLASSES));
        assertTrue(Double.isNaN(v.centred()), "centred " + v.centred());
        double[] counts = new double[CLASSES];
        for (int l : labels) {
            counts[l]++;
        }
        double ones = 0;
        double gram = 0;
        for (double c : counts) {
            ones += c * c; // ‖Yᵀ1‖²
            gram += c * c; // YᵀY = diag(counts): ‖YᵀY‖_F² = Σ counts²
        }
        assertRelative(ones / (n * Math.sqrt(gram)), v.plain(), 1e-12, "plain alignment of a constant kernel");
        double[] flat = new double[n * CLASSES];
        for (int i = 0; i < n; i++) {
            flat[i * CLASSES + labels[i]] = 1;
        }
        double[][] full = new double[n * CLASSES][n * CLASSES];
        for (double[] row : full) {
            java.util.Arrays.fill(row, 10.0);
        }
        assertTrue(Double.isNaN(LayerCka.of(full, flat)), "layer CKA (Eq. 5) of a constant kernel");
    }

    /** A kernel almost constant: ‖HKH‖² cancels in the moment formula, and the second pass recovers it. */
    @Test
    void nearlyConstantKernelIsCentredExactly() {
        int n = 120;
        KernelMatrix k = constantModeKernel(n, 1e7, 8);
        int[] labels = labels(n, 5);
        float[] y = oneHot(labels, CLASSES);
        double[][] traced = k.traced();
        Function<TracedKernel, Double> centred =
                t -> Alignment.of(t, y, CLASSES).centred();
        double got = TracedKernel.onHost(k, centred);
        assertRelative(LegacyMetrics.centeredAlignment(traced, y, CLASSES), got, 1e-6, "centred, constant 1e7");
    }

    /** Kernel change on engine arrays against the host loops. */
    @Test
    void kernelChangeOnTheEngine() {
        SplittableRandom r = new SplittableRandom(12);
        double[][] a = new double[50][50];
        double[][] b = new double[50][50];
        for (int i = 0; i < 50; i++) {
            for (int j = 0; j < 50; j++) {
                a[i][j] = r.nextGaussian();
                b[i][j] = a[i][j] + 0.1 * r.nextGaussian();
            }
        }
        double[] old = LegacyMetrics.change(b, a);
        assertRelative(old[0], KernelChange.relativeChange(b, a), 1e-12, "relative change");
        assertRelative(old[1], KernelChange.distance(b, a), 1e-12, "distance");
    }
}
