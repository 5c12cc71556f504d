package org.ntk4j.experiment.ntkregime;

import ai.djl.ndarray.NDManager;
import io.soabase.recordbuilder.core.RecordBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.NormOps_DDRM;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;
import org.ntk4j.experiment.support.Paper;
import org.ntk4j.experiment.support.Scale;
import org.ntk4j.experiment.support.Stats;
import org.ntk4j.experiment.support.Study;
import org.ntk4j.experiment.support.StudyBuilder;
import org.ntk4j.experiment.support.StudyReport;
import org.ntk4j.experiment.support.Verdicts;
import org.ntk4j.experiment.support.Verdicts.Verdict;
import org.ntk4j.report.Chart;
import org.ntk4j.report.Files2;
import org.ntk4j.spec.Specs;
import org.ntk4j.theory.BlockNtk;
import org.ntk4j.theory.Rk4;

/**
 * Seleznova et al., "Neural (Tangent Kernel) Collapse" (Seleznova's thesis §3.3), Thm 5.2: under a block-structured
 * NTK (Assumption 3.2, feature kernel (κ_d, κ_c, κ_n)) the gradient flow of the last-layer features and weights is
 * eq. (25) ({@link BlockNtk#dynamics}); when the features are centred (⟨h⟩ = 0) and the invariant E of eq. (26) is
 * zero, the flow ends in neural collapse: H₂ → 0 (NC1), the centred class means form a simplex ETF (NC2), the
 * classifier aligns with them (NC3), with b = 1/C, WWᵀ → √(m/μ_class)(I − 11ᵀ/C) and H₁ᵀH₁ → √(μ_class/m)(I −
 * 11ᵀ/C). With E = 0 the end-of-training dynamics are hyperbolic (the eigenvalues c_k of the end-of-training invariant
 * vanish), so the within-class variation decays algebraically, ‖H₂H₂ᵀ‖ ∝ 1/t, not exponentially.
 *
 * <p>The flow is integrated by RK4 (step 0.0005 + 0.005t up to the settings' dt) from two initialisations: one meeting the theorem's conditions (an
 * n × C orthonormal U; H₁ = UA₁ with centred columns, H₂ = UA₂; W = √m Λ^{1/2}Vᵀ from the top-C eigenpairs of
 * (1/μ_class)H₁(I − α11ᵀ)H₁ᵀ + (1/μ_single)H₂H₂ᵀ, so (1/m)WᵀW equals it and E = 0; b = 1/C), and a generic random one
 * (E ≠ 0) for contrast: the loss still falls, but nothing forces a collapse.
 */
public final class CollapseFlow {
    /**
     * Settings.
     *
     * @param features n, the feature dimension (n &gt; C)
     * @param classes  C
     * @param perClass m
     * @param kappaD   κ_d
     * @param kappaC   κ_c
     * @param kappaN   κ_n
     * @param scale    the init's entry scale
     * @param time     integration horizon
     * @param dt       largest RK4 step
     * @param samples  log-spaced sample times
     * @param seed     seed
     */
    @RecordBuilder
    @RecordBuilder.Options(builderMode = RecordBuilder.BuilderMode.STAGED)
    public record Settings(
            int features,
            int classes,
            int perClass,
            double kappaD,
            double kappaC,
            double kappaN,
            double scale,
            double time,
            double dt,
            int samples,
            long seed) {
        /** {@link #quick()} for the tests, {@link #cpu()} (the default), {@link #paper()}. */
        public static Settings of(Scale scale) {
            return scale.choose(Settings::quick, Settings::cpu, Settings::paper);
        }

        /** n = 6, C = 3, m = 4, κ = (1, 0.6, 0.1), t ≤ 300. */
        public static Settings quick() {
            return CollapseFlowSettingsBuilder.builder(cpu())
                    .features(6)
                    .classes(3)
                    .perClass(4)
                    .time(300)
                    .samples(40)
                    .build();
        }

        /** n = 12, C = 4, m = 5, κ = (1, 0.6, 0.1), t ≤ 3000 (a decade and a half of the 1/t tail). */
        public static Settings cpu() {
            return CollapseFlowSettingsBuilder.builder()
                    .features(12)
                    .classes(4)
                    .perClass(5)
                    .kappaD(1)
                    .kappaC(0.6)
                    .kappaN(0.1)
                    .scale(0.3)
                    .time(3000)
                    .dt(0.02)
                    .samples(80)
                    .seed(0)
                    .build();
        }

        /**
         * Thm 5.2 is a statement about the flow, not about a trained network; the thesis integrates nothing, so the
         * paper scale runs the CPU settings (already seconds).
         */
        public static Settings paper() {
            return cpu();
        }
    }

    /** One trajectory: its name and per sample time the loss, the NC metrics, |b − 1/C|, ‖E(t) − E(0)‖ and the limit gap. */
    public record Run(
            String init,
            double invariantNorm,
            double[] times,
            double[] loss,
            double[] nc1,
            double[] nc1Relative,
            double[] nc2,
            double[] nc3,
            double[] biasGap,
            double[] invariantDrift,
            double[] limitGap) {
        int last() {
            return times.length - 1;
        }
    }

    private CollapseFlow() {}

    /** The study as {@code ntk4j reproduce ntk-collapse-flow} runs it. */
    public static final Study STUDY = StudyBuilder.builder()
            .name("ntk-collapse-flow")
            .paper(Paper.SELEZNOVA_THESIS)
            .figures("§3.3 Thm 5.2, eqs. (25)-(30)")
            .claim("with a block-structured NTK, centred features and E = 0 the gradient flow (25) ends in neural"
                    + " collapse NC1-NC3, within-class variation decaying as 1/t")
            .summary(
                    "Seleznova's thesis §3.3, Thm 5.2: integrates the block-structured gradient flow (25) from an E = 0,"
                            + " centred init (and a generic one for contrast): NC1 ||H2 H2^T|| ~ 1/t, NC2/NC3 to 0, b = 1/C,"
                            + " WW^T against its closed-form limit, E conserved (~10 s)")
            .runner((scale, out, manager) -> {
                List<Run> runs = run(Settings.of(scale), out, manager);
                StringBuilder t = new StringBuilder(String.format(
                        "%-16s %8s %10s %10s %10s %10s %10s %10s%n",
                        "init", "||E||", "loss", "NC1", "NC2", "NC3", "|b-1/C|", "limit gap"));
                for (Run r : runs) {
                    int k = r.last();
                    t.append(String.format(
                            Locale.ROOT,
                            "%-16s %8.3g %10.3g %10.3g %10.3g %10.3g %10.3g %10.3g%n",
                            r.init(),
                            r.invariantNorm(),
                            r.loss()[k],
                            r.nc1()[k],
                            r.nc2()[k],
                            r.nc3()[k],
                            r.biasGap()[k],
                            r.limitGap()[k]));
                }
                return t + "\n" + Verdicts.text(verdicts(runs));
            })
            .build();

    /** Both initialisations integrated; writes the plots, results.json and report.html. */
    public static List<Run> run(Settings set, Path out, NDManager manager) {
        List<Run> runs = List.of(
                integrate(set, "E = 0, centred", zeroInvariantInit(set)), integrate(set, "generic", genericInit(set)));
        write(set, out, runs);
        return runs;
    }

    /** The theorem's initialisation: centred class means, E = 0, b = 1/C. */
    static BlockNtk.State zeroInvariantInit(Settings set) {
        int n = set.features();
        int c = set.classes();
        int m = set.perClass();
        SplittableRandom rng = new SplittableRandom(set.seed());
        DMatrixRMaj u = orthonormal(n, c, rng);
        DMatrixRMaj a1 = random(c, c, set.scale(), rng);
        for (int j = 0; j < c; j++) { // centred: every row of A₁ sums to 0, so H₁1 = 0
            double mean = 0;
            for (int k = 0; k < c; k++) {
                mean += a1.get(j, k) / c;
            }
            for (int k = 0; k < c; k++) {
                a1.add(j, k, -mean);
            }
        }
        DMatrixRMaj a2 = random(c, c * (m - 1), set.scale(), rng);
        DMatrixRMaj h1 = new DMatrixRMaj(n, c);
        CommonOps_DDRM.mult(u, a1, h1);
        DMatrixRMaj h2 = new DMatrixRMaj(n, c * (m - 1));
        CommonOps_DDRM.mult(u, a2, h2);
        BlockNtk.State noW = new BlockNtk.State(new DMatrixRMaj(c, n), h1, h2, constant(c, 1.0 / c));
        // (1/m)WᵀW must equal S = −E(W = 0): E(W = 0) = −S
        DMatrixRMaj s = BlockNtk.invariant(noW, set.kappaD(), set.kappaC(), set.kappaN(), m);
        CommonOps_DDRM.scale(-1, s);
        EigenDecomposition_F64<DMatrixRMaj> evd = DecompositionFactory_DDRM.eig(n, true, true);
        if (!evd.decompose(s.copy())) {
            throw new IllegalStateException("eigendecomposition failed");
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(
                order,
                (x, y) -> Double.compare(
                        evd.getEigenvalue(y).getReal(), evd.getEigenvalue(x).getReal()));
        DMatrixRMaj w = new DMatrixRMaj(c, n);
        for (int k = 0; k < c; k++) {
            double lam = Math.max(0, evd.getEigenvalue(order[k]).getReal());
            DMatrixRMaj v = evd.getEigenVector(order[k]);
            for (int j = 0; j < n; j++) {
                w.set(k, j, Math.sqrt(m * lam) * v.get(j, 0));
            }
        }
        return new BlockNtk.State(w, h1, h2, constant(c, 1.0 / c));
    }

    /** Random W, H₁, H₂, b of the same scale: E ≠ 0, features not centred. */
    static BlockNtk.State genericInit(Settings set) {
        int n = set.features();
        int c = set.classes();
        SplittableRandom rng = new SplittableRandom(set.seed() + 1);
        return new BlockNtk.State(
                random(c, n, set.scale(), rng),
                random(n, c, set.scale(), rng),
                random(n, c * (set.perClass() - 1), set.scale(), rng),
                random(c, 1, set.scale(), rng));
    }

    /** RK4 on eq. (25) from {@code s0}, sampled at log-spaced times. */
    static Run integrate(Settings set, String name, BlockNtk.State s0) {
        int m = set.perClass();
        double[] times = logTimes(set.time(), set.samples());
        DMatrixRMaj e0 = BlockNtk.invariant(s0, set.kappaD(), set.kappaC(), set.kappaN(), m);
        int k = times.length;
        double[][] series = new double[8][k];
        double[] y = flatten(s0);
        double t = 0;
        for (int i = 0; i < k; i++) {
            while (times[i] > t) {
                // a step that starts small for the fast initial transient and grows to dt
                double h = Math.min(Math.min(set.dt(), 0.0005 + 0.005 * t), times[i] - t);
                double from = t;
                y = Rk4.integrate(
                        (tt, yy, dy) -> {
                            BlockNtk.State d =
                                    BlockNtk.dynamics(unflatten(yy, s0), set.kappaD(), set.kappaC(), set.kappaN(), m);
                            System.arraycopy(flatten(d), 0, dy, 0, dy.length);
                        },
                        y,
                        from,
                        from + h,
                        1);
                t = times[i] - t <= h ? times[i] : from + h;
            }
            BlockNtk.State s = unflatten(y, s0);
            double[] mtr = metrics(set, s, e0);
            for (int j = 0; j < mtr.length; j++) {
                series[j][i] = mtr[j];
            }
        }
        return new Run(
                name,
                NormOps_DDRM.normF(e0),
                times,
                series[0],
                series[1],
                series[2],
                series[3],
                series[4],
                series[5],
                series[6],
                series[7]);
    }

    /**
     * {loss, NC1 = ‖H₂H₂ᵀ‖_F, tr(H₂H₂ᵀ)/tr(H̄₁H̄₁ᵀ), NC2, NC3, max|b − 1/C|, ‖E − E₀‖_F, ‖WWᵀ − √(m/μ_class)(I −
     * 11ᵀ/C)‖_F relative to the limit}; loss = (m/2)(‖R₁‖² + ‖WH₂‖²) = ½‖WH + b1ᵀ − Y‖²_F.
     */
    static double[] metrics(Settings set, BlockNtk.State s, DMatrixRMaj e0) {
        int c = set.classes();
        int n = set.features();
        int m = set.perClass();
        DMatrixRMaj r1 = new DMatrixRMaj(c, c);
        CommonOps_DDRM.mult(s.w(), s.h1(), r1);
        for (int i = 0; i < c; i++) {
            for (int j = 0; j < c; j++) {
                r1.add(i, j, s.b().get(i) - (i == j ? 1 : 0));
            }
        }
        DMatrixRMaj wh2 = new DMatrixRMaj(c, s.h2().numCols);
        CommonOps_DDRM.mult(s.w(), s.h2(), wh2);
        double loss = m / 2.0 * (sq(NormOps_DDRM.normF(r1)) + sq(NormOps_DDRM.normF(wh2)));
        DMatrixRMaj h2h2 = new DMatrixRMaj(n, n);
        CommonOps_DDRM.multTransB(s.h2(), s.h2(), h2h2);
        // centred, normalised class means M
        DMatrixRMaj mm = s.h1().copy();
        for (int r = 0; r < n; r++) {
            double g = 0;
            for (int j = 0; j < c; j++) {
                g += mm.get(r, j) / c;
            }
            for (int j = 0; j < c; j++) {
                mm.add(r, j, -g);
            }
        }
        double centred = sq(NormOps_DDRM.normF(mm));
        for (int j = 0; j < c; j++) {
            double norm = 0;
            for (int r = 0; r < n; r++) {
                norm += sq(mm.get(r, j));
            }
            for (int r = 0; r < n; r++) {
                mm.set(r, j, mm.get(r, j) / Math.sqrt(norm));
            }
        }
        DMatrixRMaj mtm = new DMatrixRMaj(c, c);
        CommonOps_DDRM.multTransA(mm, mm, mtm);
        DMatrixRMaj etf = new DMatrixRMaj(c, c);
        for (int i = 0; i < c; i++) {
            for (int j = 0; j < c; j++) {
                etf.set(i, j, (double) c / (c - 1) * ((i == j ? 1 : 0) - 1.0 / c));
            }
        }
        double nc2 = frobeniusGap(mtm, etf);
        DMatrixRMaj wt = new DMatrixRMaj(n, c);
        CommonOps_DDRM.transpose(s.w(), wt);
        double nc3 = frobeniusGap(wt, mm);
        double bias = 0;
        for (int i = 0; i < c; i++) {
            bias = Math.max(bias, Math.abs(s.b().get(i) - 1.0 / c));
        }
        DMatrixRMaj e = BlockNtk.invariant(s, set.kappaD(), set.kappaC(), set.kappaN(), m);
        DMatrixRMaj drift = new DMatrixRMaj(n, n);
        CommonOps_DDRM.subtract(e, e0, drift);
        DMatrixRMaj wwt = new DMatrixRMaj(c, c);
        CommonOps_DDRM.multTransB(s.w(), s.w(), wwt);
        double muClass = BlockNtk.muClass(set.kappaD(), set.kappaC(), set.kappaN(), m);
        DMatrixRMaj limit = etf.copy();
        CommonOps_DDRM.scale(Math.sqrt(m / muClass) * (c - 1.0) / c, limit); // √(m/μ_class)(I − 11ᵀ/C)
        DMatrixRMaj gap = new DMatrixRMaj(c, c);
        CommonOps_DDRM.subtract(wwt, limit, gap);
        return new double[] {
            loss,
            NormOps_DDRM.normF(h2h2),
            sq(NormOps_DDRM.normF(s.h2())) / centred,
            nc2,
            nc3,
            bias,
            NormOps_DDRM.normF(drift),
            NormOps_DDRM.normF(gap) / NormOps_DDRM.normF(limit)
        };
    }

    /** ‖A/‖A‖_F − B/‖B‖_F‖_F. */
    static double frobeniusGap(DMatrixRMaj a, DMatrixRMaj b) {
        double na = NormOps_DDRM.normF(a);
        double nb = NormOps_DDRM.normF(b);
        double s = 0;
        for (int i = 0; i < a.data.length; i++) {
            s += sq(a.data[i] / na - b.data[i] / nb);
        }
        return Math.sqrt(s);
    }

    private static double sq(double x) {
        return x * x;
    }

    static double[] flatten(BlockNtk.State s) {
        DMatrixRMaj[] parts = {s.w(), s.h1(), s.h2(), s.b()};
        int len = 0;
        for (DMatrixRMaj p : parts) {
            len += p.data.length;
        }
        double[] y = new double[len];
        int at = 0;
        for (DMatrixRMaj p : parts) {
            System.arraycopy(p.data, 0, y, at, p.data.length);
            at += p.data.length;
        }
        return y;
    }

    static BlockNtk.State unflatten(double[] y, BlockNtk.State shape) {
        DMatrixRMaj[] parts = {
            shape.w().createLike(),
            shape.h1().createLike(),
            shape.h2().createLike(),
            shape.b().createLike()
        };
        int at = 0;
        for (DMatrixRMaj p : parts) {
            System.arraycopy(y, at, p.data, 0, p.data.length);
            at += p.data.length;
        }
        return new BlockNtk.State(parts[0], parts[1], parts[2], parts[3]);
    }

    static DMatrixRMaj random(int rows, int cols, double scale, SplittableRandom rng) {
        DMatrixRMaj a = new DMatrixRMaj(rows, cols);
        for (int i = 0; i < a.data.length; i++) {
            a.data[i] = scale * rng.nextGaussian();
        }
        return a;
    }

    /** An n × c matrix with orthonormal columns (Gram–Schmidt of a Gaussian one). */
    static DMatrixRMaj orthonormal(int n, int c, SplittableRandom rng) {
        DMatrixRMaj a = random(n, c, 1, rng);
        for (int j = 0; j < c; j++) {
            for (int k = 0; k < j; k++) {
                double d = 0;
                for (int i = 0; i < n; i++) {
                    d += a.get(i, j) * a.get(i, k);
                }
                for (int i = 0; i < n; i++) {
                    a.add(i, j, -d * a.get(i, k));
                }
            }
            double norm = 0;
            for (int i = 0; i < n; i++) {
                norm += sq(a.get(i, j));
            }
            for (int i = 0; i < n; i++) {
                a.set(i, j, a.get(i, j) / Math.sqrt(norm));
            }
        }
        return a;
    }

    static DMatrixRMaj constant(int c, double v) {
        DMatrixRMaj b = new DMatrixRMaj(c, 1);
        CommonOps_DDRM.fill(b, v);
        return b;
    }

    /** 0 and k − 1 log-spaced times from 0.1 to t. */
    static double[] logTimes(double t, int k) {
        double[] out = new double[k];
        for (int i = 1; i < k; i++) {
            out[i] = 0.1 * Math.pow(t / 0.1, (i - 1.0) / (k - 2));
        }
        return out;
    }

    /** The log–log slope of a series over its last decade of time. */
    static double lateSlope(double[] times, double[] v) {
        double end = times[times.length - 1];
        List<double[]> pts = new ArrayList<>();
        for (int i = 1; i < times.length; i++) {
            if (times[i] >= end / 10 && v[i] > 0) {
                pts.add(new double[] {Math.log(times[i]), Math.log(v[i])});
            }
        }
        double[] x = pts.stream().mapToDouble(p -> p[0]).toArray();
        double[] y = pts.stream().mapToDouble(p -> p[1]).toArray();
        return Stats.ols(x, y)[0];
    }

    /**
     * Verdicts (the E = 0 run): E conserved by the integration (‖E(t) − E(0)‖ ≤ 1e-8); NC1 decaying as 1/t, the
     * log–log slope of ‖H₂H₂ᵀ‖ over the last decade within 0.1 of −1 (0.25 partly); NC2 ≤ 1e-3 (1e-2 partly) and
     * NC3 ≤ 0.05 (0.2 partly) at the end; b = 1/C throughout (≤ 1e-10); WWᵀ within 1% of √(m/μ_class)(I − 11ᵀ/C) (5%
     * partly). The generic run: the loss falls by 1e3 or more while NC1 stays above 10% of its value at the start of
     * the last decade (no collapse without the theorem's conditions).
     */
    static List<Verdict> verdicts(List<Run> runs) {
        List<Verdict> v = new ArrayList<>();
        Run z = runs.get(0);
        int k = z.last();
        double drift = java.util.Arrays.stream(z.invariantDrift()).max().orElse(Double.NaN);
        v.add(new Verdict(
                "invariant E conserved (eq. 26)",
                String.format(Locale.ROOT, "max ‖E(t) − E(0)‖ %.1e", drift),
                "Ė = 0",
                Verdicts.grade(drift <= 1e-8, drift <= 1e-5),
                "RK4 along the whole flow"));
        double slope = lateSlope(z.times(), z.nc1());
        v.add(new Verdict(
                "NC1: ‖H₂H₂ᵀ‖ decays as 1/t",
                String.format(Locale.ROOT, "slope %.3f; %.2e at t = %.0f", slope, z.nc1()[k], z.times()[k]),
                "−1 (algebraic)",
                Verdicts.grade(Math.abs(slope + 1) <= 0.1, Math.abs(slope + 1) <= 0.25),
                "log–log slope over the last decade of t, within 0.1 of −1 (E = 0: the c_k vanish, so no exponential"
                        + " decay)"));
        v.add(new Verdict(
                "NC2: centred class means a simplex ETF",
                String.format(Locale.ROOT, "%.2e", z.nc2()[k]),
                "→ 0",
                Verdicts.grade(z.nc2()[k] <= 1e-3, z.nc2()[k] <= 1e-2),
                "‖MᵀM/‖MᵀM‖ − Φ/‖Φ‖‖_F at the end, ≤ 1e-3"));
        v.add(new Verdict(
                "NC3: classifier aligned with the class means",
                String.format(Locale.ROOT, "%.3f (slope %.2f)", z.nc3()[k], lateSlope(z.times(), z.nc3())),
                "→ 0",
                Verdicts.grade(z.nc3()[k] <= 0.05, z.nc3()[k] <= 0.2),
                "‖Wᵀ/‖W‖ − M/‖M‖‖_F at the end, ≤ 0.05 (it converges as t^−1/2)"));
        double bias = java.util.Arrays.stream(z.biasGap()).max().orElse(Double.NaN);
        double limit = z.limitGap()[k];
        v.add(new Verdict(
                "b = 1/C and WWᵀ → √(m/μ_class)(I − 11ᵀ/C)",
                String.format(Locale.ROOT, "|b − 1/C| ≤ %.1e; WWᵀ off by %.2f%%", bias, 100 * limit),
                "the limit",
                Verdicts.grade(bias <= 1e-10 && limit <= 0.01, bias <= 1e-6 && limit <= 0.05),
                "b stays at 1/C; WWᵀ within 1% of the closed-form limit at the end"));
        if (runs.size() > 1) {
            Run g = runs.get(1);
            int kg = g.last();
            double lossDrop = g.loss()[1] / g.loss()[kg];
            int decade = 1;
            while (decade < kg && g.times()[decade] < g.times()[kg] / 10) {
                decade++;
            }
            double kept = g.nc1Relative()[kg] / g.nc1Relative()[decade];
            v.add(new Verdict(
                    "no collapse without E = 0 (generic init)",
                    String.format(
                            Locale.ROOT, "loss ÷ %.0e; NC1 kept %.0f%% over the last decade", lossDrop, 100 * kept),
                    "NTK alignment without NC",
                    Verdicts.grade(lossDrop >= 1e3 && kept >= 0.1, lossDrop >= 10 && kept >= 0.01),
                    String.format(
                            Locale.ROOT,
                            "‖E‖ = %.2f: the loss falls, the within-class variation tr(H₂H₂ᵀ)/tr(H̄₁H̄₁ᵀ) stays at %.3g",
                            g.invariantNorm(),
                            g.nc1Relative()[kg])));
        }
        return v;
    }

    private static void write(Settings set, Path out, List<Run> runs) {
        Chart c = new Chart("Neural collapse along the block-structured flow (25)", "t", "metric")
                .logX()
                .logY();
        for (Run r : runs) {
            double[] t = java.util.Arrays.copyOfRange(r.times(), 1, r.times().length);
            c.line("NC1 ‖H₂H₂ᵀ‖, " + r.init(), t, tail(r.nc1()));
            c.line("NC2, " + r.init(), t, floor(tail(r.nc2())));
            c.line("NC3, " + r.init(), t, floor(tail(r.nc3())));
            c.line("loss, " + r.init(), t, floor(tail(r.loss())));
        }
        Run z = runs.get(0);
        double[] t = java.util.Arrays.copyOfRange(z.times(), 1, z.times().length);
        double ref = z.nc1()[z.last()] * z.times()[z.last()];
        c.line("c/t", t, java.util.Arrays.stream(t).map(x -> ref / x).toArray());
        c.save(out.resolve("collapse.png"));
        List<Verdict> v = verdicts(runs);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("settings", set);
        json.put("runs", runs);
        json.put("verdicts", v);
        Files2.writeString(out.resolve("results.json"), Specs.toJson(json) + "\n");
        Map<String, String> summary = new LinkedHashMap<>();
        for (Run r : runs) {
            int k = r.last();
            summary.put(
                    r.init(),
                    String.format(
                            Locale.ROOT,
                            "‖E‖ = %.3g; at t = %.0f: loss %.3g, NC1 %.3g (relative %.3g), NC2 %.3g, NC3 %.3g, |b − 1/C|"
                                    + " %.2g, WWᵀ limit gap %.3g",
                            r.invariantNorm(),
                            r.times()[k],
                            r.loss()[k],
                            r.nc1()[k],
                            r.nc1Relative()[k],
                            r.nc2()[k],
                            r.nc3()[k],
                            r.biasGap()[k],
                            r.limitGap()[k]));
        }
        new StudyReport("Seleznova's thesis §3.3, Thm 5.2: neural collapse from the block-structured gradient flow")
                .summary(summary)
                .notes(List.of(String.format(
                        Locale.ROOT,
                        "Eq. (25) with (κ_d, κ_c, κ_n) = (%s, %s, %s), n = %d features, C = %d classes, m = %d per"
                                + " class (μ_single = %.3g, μ_class = %.3g); RK4 with step %s up to t = %s. NC1 here is"
                                + " ‖H₂H₂ᵀ‖_F (H₂ = 0 ⇔ NC1); NC2 ‖MᵀM/‖MᵀM‖ − Φ/‖Φ‖‖_F with Φ the simplex ETF; NC3"
                                + " ‖Wᵀ/‖W‖ − M/‖M‖‖_F.",
                        set.kappaD(),
                        set.kappaC(),
                        set.kappaN(),
                        set.features(),
                        set.classes(),
                        set.perClass(),
                        BlockNtk.muSingle(set.kappaD(), set.kappaC()),
                        BlockNtk.muClass(set.kappaD(), set.kappaC(), set.kappaN(), set.perClass()),
                        set.dt(),
                        set.time())))
                .verdicts(v)
                .write(out);
    }

    private static double[] tail(double[] v) {
        return java.util.Arrays.copyOfRange(v, 1, v.length);
    }

    /** Values clipped below at 1e-16 (for a log axis). */
    private static double[] floor(double[] v) {
        return java.util.Arrays.stream(v).map(x -> Math.max(x, 1e-16)).toArray();
    }
}
