package org.ntk4j.experiment.ntkregime;

import ai.djl.ndarray.NDManager;
import io.soabase.recordbuilder.core.RecordBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.ntk4j.experiment.support.Paper;
import org.ntk4j.experiment.support.Scale;
import org.ntk4j.experiment.support.Study;
import org.ntk4j.experiment.support.StudyBuilder;
import org.ntk4j.experiment.support.StudyReport;
import org.ntk4j.experiment.support.Verdicts;
import org.ntk4j.experiment.support.Verdicts.Outcome;
import org.ntk4j.experiment.support.Verdicts.Verdict;
import org.ntk4j.report.Files2;
import org.ntk4j.report.Plots;
import org.ntk4j.theory.Activation;
import org.ntk4j.theory.FiniteWidthNtkMoments;
import org.ntk4j.theory.SignalPropagation;

/**
 * NTK dispersion r = E[Θ²(x,x)]/E²[Θ(x,x)] of deep fully connected networks over initialisations, in the regime
 * L ~ M of Seleznova &amp; Kutyniok:
 * <ul>
 * <li>"NTK Beyond the Infinite-Width Limit", Thm 3.1 / Fig. 1: ReLU, σ_b = 0, α₀ = n₀/M = 1, depth L = λM up to M/2,
 * against the infinite-depth-and-width limits (chaotic eq. (8): e^{5λ}/(2λ) − e^{5λ}/(8λ²) + e^{λ}/(8λ²); edge of
 * chaos eq. (9); ordered: 1; {@link FiniteWidthNtkMoments#limitDispersion}) and the finite-width Thm 3.2 (proof
 * form);</li>
 * <li>"Analyzing Finite Neural Networks: Can We Trust NTK Theory?", Fig. 2: ReLU (σ_w², σ_b²) ∈ {(1, 1), (1.5, 1),
 * (3, 1)} against L and L/M — ordered r ≈ 1; chaotic r a function of L/M, growing exponentially;</li>
 * <li>the same paper, Fig. 1: the (σ_w², L) map of r for ReLU and tanh with σ_b² = 1 in three zones (r ≤ 1.1: near
 * deterministic; 1.1 &lt; r ≤ 2: std comparable to the mean; r &gt; 2: std above the mean) beside the χ₁ = 1 line
 * ({@link SignalPropagation#chi1} at the length fixed point);</li>
 * <li>"NTK Beyond the Infinite-Width Limit", eq. (18) and Thm 3.3: E[Θ(x,x̃)]/E[Θ(x,x)] for ⟨x, x̃⟩ = ρ₀ against the
 * ordered-phase estimate ({@link FiniteWidthNtkMoments#offDiagonalRatio}, {@code ntk4j theory dispersion --rho}) and
 * the bounds 1/4 ≤ ratio ≤ 1.</li>
 * </ul>
 * Sampling: {@link NtkSampling} — the plain-Java oracle for the deep cells, cross-checked against ntk4j's kernel
 * engine (the sampler of {@link NtkDispersion}) on one cell.
 */
public final class DispersionLimits {
    /** One (σ_w², σ_b²) ReLU configuration of the depth sweep. */
    public record Config(double sigmaW2, double sigmaB2) {}

    /** Settings of the four parts and the engine cross-check. */
    @RecordBuilder
    @RecordBuilder.Options(builderMode = RecordBuilder.BuilderMode.STAGED)
    public record Settings(
            int[] widths,
            double[] lambdas,
            Config[] configs,
            int inits,
            int zoneWidth,
            int[] zoneDepths,
            double[] zoneSigmaW2,
            double zoneSigmaB2,
            int zoneInits,
            int offWidth,
            int[] offDepths,
            double[] offSigmaW2,
            double[] rhos,
            int offInits,
            int checkWidth,
            int checkDepth,
            int checkInits,
            int bootstrap,
            long seed) {
        /** The six (σ_w², σ_b²) ReLU configurations of the CPU and paper sweeps. */
        static Config[] sixConfigs() {
            return new Config[] {
                new Config(1.0, 0), new Config(2.0, 0), new Config(3.0, 0),
                new Config(1.0, 1), new Config(1.5, 1), new Config(3.0, 1)
            };
        }

        public static Settings of(Scale scale) {
            return scale.choose(Settings::quick, Settings::cpu, Settings::paper);
        }

        public static Settings quick() {
            return DispersionLimitsSettingsBuilder.builder(paper())
                    .widths(new int[] {20, 40})
                    .lambdas(new double[] {0.1, 0.3})
                    .configs(new Config[] {new Config(1.0, 0), new Config(3.0, 0)})
                    .inits(300)
                    .zoneWidth(30)
                    .zoneDepths(new int[] {2, 15})
                    .zoneSigmaW2(new double[] {1.0, 3.0})
                    .offWidth(40)
                    .offDepths(new int[] {10})
                    .offSigmaW2(new double[] {1.0, 3.0})
                    .rhos(new double[] {0.5})
                    .offInits(400)
                    .checkWidth(20)
                    .checkDepth(3)
                    .checkInits(200)
                    .bootstrap(100)
                    .build();
        }

        public static Settings cpu() {
            return DispersionLimitsSettingsBuilder.builder(paper())
                    .widths(new int[] {50, 100, 200})
                    .lambdas(new double[] {0.05, 0.1, 0.2, 0.3, 0.5})
                    .inits(200)
                    .zoneWidth(100)
                    .zoneDepths(new int[] {2, 5, 10, 20, 30, 50})
                    .offWidth(100)
                    .offDepths(new int[] {5, 10, 20})
                    .offSigmaW2(new double[] {1.0, 1.5, 3.0})
                    .rhos(new double[] {0.1, 0.5, 0.9})
                    .checkWidth(50)
                    .checkDepth(5)
                    .checkInits(300)
                    .bootstrap(200)
                    .build();
        }

        public static Settings paper() {
            return DispersionLimitsSettingsBuilder.builder()
                    .widths(new int[] {100, 200, 500})
                    .lambdas(new double[] {0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5})
                    .configs(sixConfigs())
                    .inits(500)
                    .zoneWidth(200)
                    .zoneDepths(new int[] {2, 5, 10, 20, 50, 100})
                    .zoneSigmaW2(new double[] {0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0})
                    .zoneSigmaB2(1)
                    .zoneInits(200)
                    .offWidth(200)
                    .offDepths(new int[] {5, 10, 20, 50, 100})
                    .offSigmaW2(new double[] {1.0, 1.5, 2.0, 3.0})
                    .rhos(new double[] {0.1, 0.3, 0.5, 0.7, 0.9})
                    .offInits(500)
                    .checkWidth(100)
                    .checkDepth(10)
                    .checkInits(500)
                    .bootstrap(500)
                    .seed(0)
                    .build();
        }
    }

    /** One depth-sweep cell: sampled r ± SE, the Thm 3.1 limit and Thm 3.2 (σ_b = 0 only; NaN otherwise). */
    public record Cell(
            int width,
            int depth,
            double lambda,
            double sigmaW2,
            double sigmaB2,
            double r,
            double rSe,
            double limit,
            double finite) {}

    /** One zone-map cell. */
    public record ZoneCell(String activation, int depth, double sigmaW2, double chi1, double r, int zone) {}

    /** One off-diagonal cell: sampled E[Θ(x,x̃)]/E[Θ(x,x)] ± SE against eq. (18). */
    public record OffCell(int depth, double sigmaW2, double rho, double ratio, double ratioSe, double estimate) {}

    /** The engine (DJL) vs oracle (plain Java) cross-check on one cell. */
    public record Check(
            double rEngine,
            double rEngineSe,
            double rOracle,
            double rOracleSe,
            double meanEngine,
            double meanEngineSe,
            double meanOracle,
            double meanOracleSe) {}

    public record Result(
            List<Cell> cells,
            List<ZoneCell> zones,
            Map<String, Double> edgeOfChaos,
            List<OffCell> off,
            Check check,
            List<Verdict> verdicts) {}

    private DispersionLimits() {}

    public static final Study STUDY = StudyBuilder.builder()
            .name("dispersion-limits")
            .paper(Paper.SELEZNOVA_THESIS)
            .figures("§3.1 Figs 1-2")
            .claim("dispersion at widths 100-500, depths up to M/2, against Thm 3.1 limits; ReLU and tanh zones")
            .summary(
                    "Seleznova & Kutyniok 2021 Figs 1-2, 2022 Thm 3.1 / Fig. 1 / eq. (18): NTK dispersion at L ~ M against the"
                            + " infinite-depth-and-width limits, the three zones for ReLU and tanh, off-diagonal ratio (~80 s)")
            .runner((scale, out, manager) -> {
                Result r = run(Settings.of(scale), out, manager);
                return table(r) + "\n" + Verdicts.text(r.verdicts());
            })
            .build();

    /** The zone of a dispersion: 0 (r ≤ 1.1), 1 (1.1 &lt; r ≤ 2), 2 (r &gt; 2). */
    static int zone(double r) {
        return r <= 1.1 ? 0 : r <= 2 ? 1 : 2;
    }

    /** χ₁ at the length fixed point (ReLU: σ_w²/2 exactly). */
    static double chi1(String activation, double sigmaW2, double sigmaB2) {
        return NtkChangePhase.chi1(activation, sigmaW2, sigmaB2);
    }

    /** σ_w² where χ₁ = 1 by bisection on [0.5, 10] (ReLU: 2). */
    static double edgeOfChaos(String activation, double sigmaB2) {
        double lo = 0.5;
        double hi = 10;
        for (int i = 0; i < 60; i++) {
            double mid = (lo + hi) / 2;
            if (chi1(activation, mid, sigmaB2) < 1) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return (lo + hi) / 2;
    }

    public static Result run(Settings set, Path out, NDManager manager) {
        try {
            java.nio.file.Files.createDirectories(out);
        } catch (java.io.IOException e) {
            throw new org.ntk4j.UserException(out + ": cannot create the output folder (" + e.getMessage() + ")");
        }
        long seed = set.seed();
        // 0. the kernel engine and the oracle sample the same law
        double[] xc = NtkSampling.unitInput(set.checkWidth(), seed);
        double[] te = NtkSampling.engineDiagonal(
                NtkSampling.mlp(set.checkWidth(), set.checkDepth(), set.checkWidth(), "relu", 2.0, 0),
                xc,
                set.checkInits(),
                seed,
                manager);
        double[] to = NtkSampling.oracle(
                set.checkWidth(),
                set.checkDepth(),
                Activation.RELU,
                2.0,
                0,
                xc,
                null,
                set.checkInits(),
                seed + 1_000_000)[0];
        double[] se = NtkSampling.bootstrap(te, set.bootstrap(), seed + 1);
        double[] so = NtkSampling.bootstrap(to, set.bootstrap(), seed + 2);
        Check check = new Check(
                FiniteWidthNtkMoments.dispersionLeaveOneOut(te),
                se[0],
                FiniteWidthNtkMoments.dispersionLeaveOneOut(to),
                so[0],
                NtkSampling.mean(te),
                se[1],
                NtkSampling.mean(to),
                so[1]);
        // 1. depth sweep at L = λM (α₀ = 1)
        List<Cell> cells = new ArrayList<>();
        for (int m : set.widths()) {
            double[] x = NtkSampling.unitInput(m, seed + m);
            for (double lam : set.lambdas()) {
                int depth = Math.max(2, (int) Math.round(lam * m));
                for (Config c : set.configs()) {
                    double[] th = NtkSampling.oracle(
                            m,
                            depth,
                            Activation.RELU,
                            c.sigmaW2(),
                            c.sigmaB2(),
                            x,
                            null,
                            set.inits(),
                            seed
                                    + 7919L * m
                                    + 104_729L * depth
                                    + (long) (c.sigmaW2() * 1000)
                                    + (long) (c.sigmaB2() * 10))[0];
                    double lamEff = (double) depth / m;
                    boolean theory = c.sigmaB2() == 0;
                    cells.add(new Cell(
                            m,
                            depth,
                            lamEff,
                            c.sigmaW2(),
                            c.sigmaB2(),
                            FiniteWidthNtkMoments.dispersionLeaveOneOut(th),
                            NtkSampling.bootstrap(
                                    th, set.bootstrap(), seed + depth, FiniteWidthNtkMoments::dispersionLeaveOneOut),
                            theory ? FiniteWidthNtkMoments.limitDispersion(c.sigmaW2(), lamEff, 1.0) : Double.NaN,
                            theory
                                    ? FiniteWidthNtkMoments.constantWidth(m, depth, m, c.sigmaW2())
                                            .dispersion()
                                    : Double.NaN));
                }
            }
        }
        // 2. zone map, ReLU and tanh
        List<ZoneCell> zones = new ArrayList<>();
        Map<String, Double> eoc = new LinkedHashMap<>();
        double[] xz = NtkSampling.unitInput(set.zoneWidth(), seed + 3);
        for (String act : new String[] {"relu", "tanh"}) {
            eoc.put(act, edgeOfChaos(act, set.zoneSigmaB2()));
            for (int depth : set.zoneDepths()) {
                for (double s2 : set.zoneSigmaW2()) {
                    double[] th = NtkSampling.oracle(
                            set.zoneWidth(),
                            depth,
                            Activation.byName(act),
                            s2,
                            set.zoneSigmaB2(),
                            xz,
                            null,
                            set.zoneInits(),
                            seed + 31L * depth + (long) (s2 * 1000) + ("tanh".equals(act) ? 50_000_000L : 0))[0];
                    double r = FiniteWidthNtkMoments.dispersionLeaveOneOut(th);
                    zones.add(new ZoneCell(act, depth, s2, chi1(act, s2, set.zoneSigmaB2()), r, zone(r)));
                }
            }
        }
        // 3. off-diagonal ratio against eq. (18)
        List<OffCell> off = new ArrayList<>();
        double[] xo = NtkSampling.unitInput(set.offWidth(), seed + 5);
        for (double rho : set.rhos()) {
            double[] xt = NtkSampling.partner(xo, rho, seed + 6);
            for (int depth : set.offDepths()) {
                for (double s2 : set.offSigmaW2()) {
                    double[][] th = NtkSampling.oracle(
                            set.offWidth(),
                            depth,
                            Activation.RELU,
                            s2,
                            0,
                            xo,
                            xt,
                            set.offInits(),
                            seed + 13L * depth + (long) (s2 * 1000) + (long) (rho * 1e6));
                    double ratio = NtkSampling.mean(th[1]) / NtkSampling.mean(th[0]);
                    double[] idx = new double[th[0].length];
                    for (int i = 0; i < idx.length; i++) {
                        idx[i] = i;
                    }
                    double ratioSe = NtkSampling.bootstrap(idx, set.bootstrap(), seed + depth, s -> {
                        double a = 0;
                        double b = 0;
                        for (double i : s) {
                            a += th[1][(int) i];
                            b += th[0][(int) i];
                        }
                        return a / b;
                    });
                    off.add(new OffCell(
                            depth, s2, rho, ratio, ratioSe, FiniteWidthNtkMoments.offDiagonalRatio(depth, s2, rho)));
                }
            }
        }
        Result r = new Result(cells, zones, eoc, off, check, null);
        r = new Result(cells, zones, eoc, off, check, verdicts(set, r));
        write(set, out, r);
        return r;
    }

    static List<Verdict> verdicts(Settings set, Result r) {
        List<Verdict> v = new ArrayList<>();
        Check c = r.check();
        double zr = Math.abs(c.rEngine() - c.rOracle()) / Math.hypot(c.rEngineSe(), c.rOracleSe());
        double zm = Math.abs(c.meanEngine() - c.meanOracle()) / Math.hypot(c.meanEngineSe(), c.meanOracleSe());
        v.add(new Verdict(
                "engine vs oracle sampler (M=" + set.checkWidth() + ", L=" + set.checkDepth() + ", σw²=2)",
                String.format(Locale.ROOT, "r %.3f vs %.3f (%.1f SE)", c.rEngine(), c.rOracle(), zr),
                "same law",
                Verdicts.grade(zr < 3 && zm < 3, zr < 4 && zm < 4),
                String.format(Locale.ROOT, "mean %.3g vs %.3g (%.1f SE)", c.meanEngine(), c.meanOracle(), zm)));
        int wMax = set.widths()[set.widths().length - 1];
        for (double s2 : new double[] {2.0, 3.0}) {
            List<Cell> cs = r.cells().stream()
                    .filter(x -> x.width() == wMax && x.sigmaW2() == s2 && x.sigmaB2() == 0)
                    .toList();
            if (cs.isEmpty()) {
                continue;
            }
            // within 3 SE of the finite-width Thm 3.2 (the exact finite-size prediction)
            long fin = cs.stream()
                    .filter(x -> Math.abs(x.r() - x.finite()) <= 3 * x.rSe())
                    .count();
            // Thm 3.1: relative deviation of r − 1 from the limit's r − 1
            double dev = cs.stream()
                    .mapToDouble(x -> Math.abs(x.r() - x.limit()) / (x.limit() - 1))
                    .max()
                    .orElse(Double.NaN);
            String phase = s2 == 2.0 ? "EOC" : "chaotic";
            v.add(new Verdict(
                    "Thm 3.1 " + phase + " limit, M=" + wMax,
                    String.format(Locale.ROOT, "max |r−r∞|/(r∞−1) %.2f", dev),
                    "accurate for deep, wide nets",
                    Verdicts.grade(dev < 0.15, dev < 0.4),
                    String.format(
                            Locale.ROOT,
                            "%d of %d cells within 3 SE of finite-width Thm 3.2; limit"
                                    + " reproduced below 15%% of r−1",
                            fin,
                            cs.size())));
        }
        double ordMax = r.cells().stream()
                .filter(x -> x.sigmaW2() < 2 && x.width() == wMax)
                .mapToDouble(Cell::r)
                .max()
                .orElse(Double.NaN);
        int wMin = set.widths()[0];
        double ordMaxSmall = r.cells().stream()
                .filter(x -> x.sigmaW2() < 2 && x.width() == wMin)
                .mapToDouble(Cell::r)
                .max()
                .orElse(Double.NaN);
        v.add(new Verdict(
                "ordered (σw² < 2): r ≈ 1 at every L/M, M=" + wMax,
                String.format(Locale.ROOT, "max r %.3f (M=%d: %.3f)", ordMax, wMin, ordMaxSmall),
                "r → 1, decreasing with M",
                Verdicts.grade(ordMax < 1.1 && ordMax <= ordMaxSmall, ordMax < 1.3),
                "reproduced below 1.1 (std ≤ 0.32 mean) and not above the narrowest width's"));
        // chaotic (3, 1): r depends on L/M — compare the widths at the largest common λ
        List<Cell> ch = r.cells().stream()
                .filter(x -> x.sigmaW2() == 3.0 && x.sigmaB2() == 1)
                .toList();
        if (!ch.isEmpty() && set.widths().length > 1) {
            double lam = set.lambdas()[set.lambdas().length - 1];
            double lo = Double.POSITIVE_INFINITY;
            double hi = 0;
            for (Cell x : ch) {
                if (Math.abs(x.lambda() - lam) < 0.02) {
                    lo = Math.min(lo, x.r());
                    hi = Math.max(hi, x.r());
                }
            }
            double first = ch.stream()
                    .filter(x -> x.width() == wMax)
                    .mapToDouble(Cell::r)
                    .findFirst()
                    .orElse(Double.NaN);
            double last = ch.stream()
                    .filter(x -> x.width() == wMax)
                    .mapToDouble(Cell::r)
                    .reduce((a, b) -> b)
                    .orElse(Double.NaN);
            v.add(new Verdict(
                    "chaotic (3, 1): r a function of L/M",
                    String.format(Locale.ROOT, "λ=%.2f: r %.2f–%.2f over M", lam, lo, hi),
                    "collapse on L/M",
                    Verdicts.grade(hi / lo < 1.25 && last > first, hi / lo < 1.6 && last > first),
                    String.format(
                            Locale.ROOT,
                            "M=%d: r %.2f → %.2f over λ; reproduced when widths agree within" + " 25%%",
                            wMax,
                            first,
                            last)));
        }
        // zones
        for (String act : new String[] {"relu", "tanh"}) {
            List<ZoneCell> z =
                    r.zones().stream().filter(x -> x.activation().equals(act)).toList();
            double ordZ = z.stream()
                    .filter(x -> x.chi1() <= 0.6)
                    .mapToDouble(ZoneCell::r)
                    .max()
                    .orElse(Double.NaN);
            int deep = set.zoneDepths()[set.zoneDepths().length - 1];
            double chDeep = z.stream()
                    .filter(x -> x.chi1() > 1 && x.depth() == deep)
                    .mapToDouble(ZoneCell::r)
                    .min()
                    .orElse(Double.NaN);
            v.add(new Verdict(
                    act + " σb²=" + set.zoneSigmaB2() + ": zones split at χ₁ = 1",
                    String.format(Locale.ROOT, "max r (χ₁≤0.6) %.3f; min r (χ₁>1, L=%d) %.2f", ordZ, deep, chDeep),
                    "≈1 ordered, >2 deep chaotic",
                    Verdicts.grade(ordZ <= 1.1 && chDeep > 2, ordZ <= 1.1 && chDeep > 1.1),
                    String.format(
                            Locale.ROOT, "EOC at σw² = %.3f", r.edgeOfChaos().get(act))));
        }
        double relu = r.edgeOfChaos().get("relu");
        double tanh = r.edgeOfChaos().get("tanh");
        v.add(new Verdict(
                "tanh boundary at larger σw² than ReLU",
                String.format(Locale.ROOT, "χ₁=1 at %.2f vs %.2f", tanh, relu),
                "tanh to the right",
                Verdicts.grade(tanh > relu, false),
                "mean-field χ₁ at the length fixed point, σb² = " + set.zoneSigmaB2()));
        // off-diagonal
        // eq. (18) is a deep-network estimate: the cells with L ≥ 10
        List<OffCell> ord = r.off().stream()
                .filter(x -> x.sigmaW2() == 1.0 && x.depth() >= 10)
                .toList();
        if (!ord.isEmpty()) {
            double dev = ord.stream()
                    .mapToDouble(x -> Math.abs(x.ratio() - x.estimate()))
                    .max()
                    .orElse(Double.NaN);
            v.add(new Verdict(
                    "eq. (18) ordered σw²=1, L ≥ 10: MC vs estimate",
                    String.format(Locale.ROOT, "max |Δ| %.3f over %d cells", dev, ord.size()),
                    "approximates well",
                    Verdicts.grade(dev < 0.03, dev < 0.08),
                    "reproduced within 0.03 absolute"));
        }
        long inBounds = r.off().stream()
                .filter(x -> x.ratio() >= 0.25 - 2 * x.ratioSe() && x.ratio() <= 1 + 2 * x.ratioSe())
                .count();
        v.add(new Verdict(
                "Thm 3.3: 1/4 ≤ E[Θ(x,x̃)]/E[Θ(x,x)] ≤ 1",
                inBounds + " of " + r.off().size() + " cells",
                "all phases",
                inBounds == r.off().size() ? Outcome.REPRODUCED : Outcome.NOT,
                "within 2 SE"));
        return v;
    }

    static String table(Result r) {
        StringBuilder t = new StringBuilder();
        Check c = r.check();
        t.append(String.format(
                Locale.ROOT,
                "engine vs oracle: r %.4f ± %.4f vs %.4f ± %.4f; E[Θ] %.4g ± %.2g vs %.4g ± %.2g%n%n",
                c.rEngine(),
                c.rEngineSe(),
                c.rOracle(),
                c.rOracleSe(),
                c.meanEngine(),
                c.meanEngineSe(),
                c.meanOracle(),
                c.meanOracleSe()));
        t.append(String.format(
                "%-5s %-4s %6s %6s %5s %16s %10s %10s%n",
                "M", "L", "L/M", "σw²", "σb²", "r ± SE", "Thm 3.1", "Thm 3.2"));
        for (Cell x : r.cells()) {
            t.append(String.format(
                    Locale.ROOT,
                    "%-5d %-4d %6.3f %6.2f %5.1f %8.4f ± %-6.4f %10.4f %10.4f%n",
                    x.width(),
                    x.depth(),
                    x.lambda(),
                    x.sigmaW2(),
                    x.sigmaB2(),
                    x.r(),
                    x.rSe(),
                    x.limit(),
                    x.finite()));
        }
        t.append(String.format("%nzones (r ≤ 1.1 / ≤ 2 / > 2): χ₁ = 1 at σw² %s%n", r.edgeOfChaos()));
        for (String act : new String[] {"relu", "tanh"}) {
            List<ZoneCell> z =
                    r.zones().stream().filter(x -> x.activation().equals(act)).toList();
            double[] s2s = z.stream().mapToDouble(ZoneCell::sigmaW2).distinct().toArray();
            t.append(String.format("%-5s L \\ σw² ", act));
            for (double s : s2s) {
                t.append(String.format(Locale.ROOT, "%7.2f", s));
            }
            t.append('\n');
            for (int d : z.stream().mapToInt(ZoneCell::depth).distinct().toArray()) {
                t.append(String.format("      %-8d", d));
                for (ZoneCell x : z) {
                    if (x.depth() == d) {
                        t.append(String.format(Locale.ROOT, "%7.2f", x.r()));
                    }
                }
                t.append('\n');
            }
        }
        t.append(String.format("%noff-diagonal: %-4s %6s %5s %16s %10s%n", "L", "σw²", "ρ₀", "ratio ± SE", "eq. (18)"));
        for (OffCell x : r.off()) {
            t.append(String.format(
                    Locale.ROOT,
                    "              %-4d %6.2f %5.2f %8.4f ± %-6.4f %10.4f%n",
                    x.depth(),
                    x.sigmaW2(),
                    x.rho(),
                    x.ratio(),
                    x.ratioSe(),
                    x.estimate()));
        }
        return t.toString();
    }

    private static void write(Settings set, Path out, Result r) {
        for (Config c : set.configs()) {
            Map<String, double[]> s = new LinkedHashMap<>();
            double[] lam = null;
            for (int m : set.widths()) {
                List<Cell> cs = r.cells().stream()
                        .filter(x -> x.width() == m && x.sigmaW2() == c.sigmaW2() && x.sigmaB2() == c.sigmaB2())
                        .toList();
                lam = cs.stream().mapToDouble(Cell::lambda).toArray();
                s.put("M = " + m, cs.stream().mapToDouble(Cell::r).toArray());
                if (c.sigmaB2() == 0) {
                    s.put(
                            "M = " + m + " Thm 3.2",
                            cs.stream().mapToDouble(Cell::finite).toArray());
                }
            }
            if (c.sigmaB2() == 0) {
                double[] l = lam;
                s.put(
                        "Thm 3.1 limit",
                        Arrays.stream(l)
                                .map(x -> FiniteWidthNtkMoments.limitDispersion(c.sigmaW2(), x, 1.0))
                                .toArray());
            }
            Plots.lines(
                    out.resolve(String.format(Locale.ROOT, "dispersion-sw%.1f-sb%.0f.png", c.sigmaW2(), c.sigmaB2())),
                    String.format(Locale.ROOT, "ReLU σw² = %.1f, σb² = %.0f: r against L/M", c.sigmaW2(), c.sigmaB2()),
                    "λ = L/M",
                    "E[Θ²]/E[Θ]²",
                    lam,
                    s,
                    true);
        }
        for (String act : new String[] {"relu", "tanh"}) {
            int n = set.zoneDepths().length;
            double[][] map = new double[n][];
            for (int i = 0; i < n; i++) {
                int d = set.zoneDepths()[n - 1 - i];
                map[i] = r.zones().stream()
                        .filter(x -> x.activation().equals(act) && x.depth() == d)
                        .mapToDouble(x -> x.zone())
                        .toArray();
            }
            Plots.heatmap(
                    out.resolve("zones-" + act + ".png"),
                    String.format(
                            Locale.ROOT,
                            "%s: zone (0: r≤1.1, 1: ≤2, 2: >2), rows L = %s (top = deepest), cols σw² = %s; χ₁=1 at %.2f",
                            act,
                            Arrays.toString(set.zoneDepths()),
                            Arrays.toString(set.zoneSigmaW2()),
                            r.edgeOfChaos().get(act)),
                    map);
        }
        Map<String, double[]> offPlot = new LinkedHashMap<>();
        for (double s2 : set.offSigmaW2()) {
            for (double rho : set.rhos()) {
                offPlot.put(
                        String.format(Locale.ROOT, "σw²=%.1f ρ=%.1f", s2, rho),
                        r.off().stream()
                                .filter(x -> x.sigmaW2() == s2 && x.rho() == rho)
                                .mapToDouble(OffCell::ratio)
                                .toArray());
                offPlot.put(
                        String.format(Locale.ROOT, "σw²=%.1f ρ=%.1f eq.18", s2, rho),
                        r.off().stream()
                                .filter(x -> x.sigmaW2() == s2 && x.rho() == rho)
                                .mapToDouble(OffCell::estimate)
                                .toArray());
            }
        }
        Plots.lines(
                out.resolve("off-diagonal.png"),
                "E[Θ(x,x̃)]/E[Θ(x,x)] against depth, M = " + set.offWidth(),
                "depth L",
                "ratio",
                Arrays.stream(set.offDepths()).asDoubleStream().toArray(),
                offPlot,
                false);
        Files2.writeString(
                out.resolve("results.json"),
                org.ntk4j.spec.Specs.toJson(org.ntk4j.spec.Specs.ordered(
                                "settings", set,
                                "cells", r.cells(),
                                "zones", r.zones(),
                                "edge_of_chaos", r.edgeOfChaos(),
                                "off_diagonal", r.off(),
                                "engine_check", r.check(),
                                "verdicts", r.verdicts()))
                        + "\n");
        Map<String, String> summary = new LinkedHashMap<>();
        for (Cell x : r.cells()) {
            summary.put(
                    String.format(
                            Locale.ROOT, "M=%d L=%d σw²=%.1f σb²=%.0f", x.width(), x.depth(), x.sigmaW2(), x.sigmaB2()),
                    String.format(
                            Locale.ROOT,
                            "r = %.4f ± %.4f (Thm 3.1 %.4f, Thm 3.2 %.4f)",
                            x.r(),
                            x.rSe(),
                            x.limit(),
                            x.finite()));
        }
        new StudyReport(
                        "Seleznova & Kutyniok: NTK dispersion at depth ~ width (Can We Trust NTK Theory? Figs 1–2; NTK Beyond"
                                + " the Infinite-Width Limit Thm 3.1, Fig. 1, eq. (18))")
                .summary(summary)
                .notes(List.of(String.format(
                        Locale.ROOT,
                        "Widths %s (paper 100–500), L = λM for λ in %s (depths up to M/2), %d initialisations per cell"
                                + " (paper 200 / 500), n₀ = M, unit-norm Gaussian input; zones at M = %d with %d"
                                + " initialisations and σb² = %s; off-diagonal at M = %d with %d initialisations."
                                + " Sampled with the plain-Java backprop-identity oracle (exact NTK, float64),"
                                + " cross-checked against the kernel engine on one cell.",
                        Arrays.toString(set.widths()),
                        Arrays.toString(set.lambdas()),
                        set.inits(),
                        set.zoneWidth(),
                        set.zoneInits(),
                        set.zoneSigmaB2(),
                        set.offWidth(),
                        set.offInits())))
                .verdicts(r.verdicts())
                .write(out);
    }
}
