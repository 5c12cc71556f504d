package org.ntk4j.experiment.ntkregime;

import ai.djl.ndarray.NDManager;
import io.soabase.recordbuilder.core.RecordBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
import org.ntk4j.spec.Parameterization;
import org.ntk4j.spec.Specs;
import org.ntk4j.theory.Activation;
import org.ntk4j.theory.FiniteWidthNtkMoments;
import org.ntk4j.theory.MonteCarloNtk;

/**
 * Seleznova &amp; Kutyniok, "Neural Tangent Kernel Beyond the Infinite-Width Limit: Effects of Depth and
 * Initialization" (Seleznova's thesis §3.2) beyond α₀ = n₀/M = 1: the NTK dispersion r = E[Θ²]/E²[Θ] of ReLU nets
 * (standard parameterisation, σ_b = 0, biases trained) over initialisations.
 * <ul>
 *   <li>Fig. 2: constant width M, α₀ ∈ {2, 0.5, 0.1}, σ_w² up to the edge of chaos, against depth, sampled and by
 *   Thm 3.2 (proof form, {@link FiniteWidthNtkMoments}): in the ordered phase the dispersion grows as σ_w² → 2, and
 *   for α₀ &lt; 1 it peaks at some depth and then decreases.</li>
 *   <li>Figs 7 and 8 (App. C.1): the dispersion of the off-diagonal entries E[Θ²(x, x̃)]/E²[Θ(x, x̃)] for ⟨x, x̃⟩ ∈
 *   {0.1, 0.5, 0.9} on the same networks: like the diagonal's (close to Thm 3.2's diagonal prediction), whatever the
 *   angle.</li>
 *   <li>Fig. 5 (App. B.1, theory): the edge-of-chaos limit of Thm 3.1 (eq. 9) approaches the chaotic one (eq. 8) as
 *   α₀ → 0.</li>
 *   <li>Fig. 6 (App. B.2, theory): three width profiles with the same mean width, n_ℓ rising from M₁ to M₂, constant
 *   (M₁ + M₂)/2, falling from M₂ to M₁, by Thm 3.2: the rising nets have the lowest dispersion, peaking at a shallow
 *   depth; the falling nets' dispersion only increases with depth.</li>
 * </ul>
 * Sampling: the plain-Java exact NTK ({@link MonteCarloNtk}), the same oracle as {@link DispersionLimits}; r by the
 * leave-one-out estimator with bootstrap standard errors.
 */
public final class DispersionProfiles {
    /**
     * Settings.
     *
     * @param width      M
     * @param alphas     α₀ = n₀/M
     * @param sigmaW2    σ_w² values (≤ 2: ordered up to the edge of chaos)
     * @param depths     depths L (weight layers)
     * @param rhos       ⟨x, x̃⟩ of the off-diagonal entries
     * @param inits      initialisations per cell
     * @param bootstrap  bootstrap resamples
     * @param profileM1  Fig. 6's M₁
     * @param profileM2  Fig. 6's M₂
     * @param profileSigmaW2 Fig. 6's σ_w² values
     * @param maxProfileDepth Fig. 6's largest depth
     * @param seed       seed
     */
    @RecordBuilder
    @RecordBuilder.Options(builderMode = RecordBuilder.BuilderMode.STAGED)
    public record Settings(
            int width,
            double[] alphas,
            double[] sigmaW2,
            int[] depths,
            double[] rhos,
            int inits,
            int bootstrap,
            int profileM1,
            int profileM2,
            double[] profileSigmaW2,
            int maxProfileDepth,
            long seed) {
        /** {@link #quick()} for the tests, {@link #cpu()} (the default), {@link #paper()}. */
        public static Settings of(Scale scale) {
            return scale.choose(Settings::quick, Settings::cpu, Settings::paper);
        }

        /** M = 30, α₀ ∈ {2, 0.1}, σ_w² ∈ {1, 2}, depths 2…24, 200 initialisations; Fig. 6 at M₁ = 20, M₂ = 100. */
        public static Settings quick() {
            return DispersionProfilesSettingsBuilder.builder(paper())
                    .width(30)
                    .alphas(new double[] {2, 0.1})
                    .sigmaW2(new double[] {1, 2})
                    .depths(new int[] {2, 6, 12, 24})
                    .rhos(new double[] {0.1, 0.9})
                    .inits(200)
                    .bootstrap(100)
                    .profileM1(20)
                    .profileM2(100)
                    .profileSigmaW2(new double[] {1.5, 1.8})
                    .maxProfileDepth(60)
                    .build();
        }

        /** M = 100 (the thesis: 200), depths 2…50, 400 initialisations (the thesis: 500). */
        public static Settings cpu() {
            return DispersionProfilesSettingsBuilder.builder(paper())
                    .width(100)
                    .sigmaW2(new double[] {1.5, 1.8, 2})
                    .depths(new int[] {2, 5, 10, 20, 35, 50})
                    .inits(400)
                    .bootstrap(200)
                    .build();
        }

        /** The thesis's M = 200, 500 initialisations, depths up to M/2. */
        public static Settings paper() {
            return DispersionProfilesSettingsBuilder.builder()
                    .width(200)
                    .alphas(new double[] {2, 0.5, 0.1})
                    .sigmaW2(new double[] {1.5, 1.8, 1.9, 2})
                    .depths(new int[] {2, 5, 10, 20, 40, 60, 80, 100})
                    .rhos(new double[] {0.1, 0.5, 0.9})
                    .inits(500)
                    .bootstrap(500)
                    .profileM1(100)
                    .profileM2(500)
                    .profileSigmaW2(new double[] {1.5, 1.8, 1.9, 2})
                    .maxProfileDepth(300)
                    .seed(0)
                    .build();
        }
    }

    /**
     * One (α₀, σ_w², L): the sampled diagonal dispersion and its SE, Thm 3.2's, and per ⟨x, x̃⟩ the sampled
     * off-diagonal dispersion and SE.
     */
    public record Cell(
            double alpha,
            double sigmaW2,
            int depth,
            double dispersion,
            double se,
            double theory,
            double[] offDiagonal,
            double[] offDiagonalSe) {}

    /** Fig. 6: per profile and σ_w², Thm 3.2's dispersion against depth. */
    public record Profile(String shape, double sigmaW2, double[] depths, double[] dispersion) {}

    /** Fig. 5: per α₀ the edge-of-chaos limit against λ, and the chaotic limit. */
    public record Limits(double[] lambdas, double[] alphas, double[][] edgeOfChaos, double[] chaotic) {}

    /** Everything measured and predicted. */
    public record Result(List<Cell> cells, List<Profile> profiles, Limits limits) {}

    private DispersionProfiles() {}

    /** The study as {@code ntk4j reproduce dispersion-profiles} runs it. */
    public static final Study STUDY = StudyBuilder.builder()
            .name("dispersion-profiles")
            .paper(Paper.SELEZNOVA_THESIS)
            .figures("§3.2 Figs 2, 5-8")
            .claim("NTK dispersion with alpha0 != 1 (peak then fall for alpha0 < 1, growth as sigma_w^2 -> 2),"
                    + " off-diagonal entries like the diagonal, width profiles; sampled against Thm 3.1/3.2")
            .summary("Seleznova's thesis §3.2 Figs 2, 5-8: NTK dispersion of ReLU nets for input ratios alpha0 = 2,"
                    + " 0.5, 0.1 against depth (sampled vs Thm 3.2), off-diagonal dispersion, the EOC limit as"
                    + " alpha0 -> 0 and rising/constant/falling width profiles (~3 min)")
            .runner((scale, out, manager) -> {
                Result r = run(Settings.of(scale), out, manager);
                return table(r) + "\n" + Verdicts.text(verdicts(r));
            })
            .build();

    /** Samples every cell, evaluates the theory, writes the plots, results.json and report.html. */
    public static Result run(Settings set, Path out, NDManager manager) {
        try {
            java.nio.file.Files.createDirectories(out);
        } catch (java.io.IOException e) {
            throw new org.ntk4j.UserException(out + ": cannot create the output folder (" + e.getMessage() + ")");
        }
        List<Cell> cells = new ArrayList<>();
        for (double alpha : set.alphas()) {
            int n0 = (int) Math.round(alpha * set.width());
            double[] x = NtkSampling.unitInput(n0, set.seed());
            double[][] partners = new double[set.rhos().length][];
            for (int k = 0; k < partners.length; k++) {
                partners[k] = NtkSampling.partner(x, set.rhos()[k], set.seed() + 31 * k);
            }
            for (double s2 : set.sigmaW2()) {
                for (int depth : set.depths()) {
                    cells.add(cell(set, alpha, n0, s2, depth, x, partners));
                }
            }
        }
        Result r = new Result(cells, profiles(set), limits(set));
        write(set, out, r);
        return r;
    }

    /** One cell: Θ(x, x) and Θ(x, x̃_ρ) of the same {@code inits} networks. */
    static Cell cell(Settings set, double alpha, int n0, double s2, int depth, double[] x, double[][] partners) {
        int[] widths = new int[depth + 1];
        java.util.Arrays.fill(widths, set.width());
        widths[0] = n0;
        widths[depth] = 1;
        double[] diag = new double[set.inits()];
        double[][] off = new double[partners.length][set.inits()];
        long base = set.seed() + 1_000_003L * depth + (long) (s2 * 1000) * 7919 + (long) (alpha * 1000);
        for (int k = 0; k < set.inits(); k++) {
            MonteCarloNtk net = new MonteCarloNtk(
                    widths, Activation.RELU, Parameterization.STANDARD, Math.sqrt(s2), 0, true, base + k);
            MonteCarloNtk.Pass p = net.pass(x);
            diag[k] = net.ntk(p, p);
            for (int j = 0; j < partners.length; j++) {
                off[j][k] = net.ntk(p, net.pass(partners[j]));
            }
        }
        double[] offR = new double[partners.length];
        double[] offSe = new double[partners.length];
        for (int j = 0; j < partners.length; j++) {
            offR[j] = FiniteWidthNtkMoments.dispersionLeaveOneOut(off[j]);
            offSe[j] = NtkSampling.bootstrap(off[j], set.bootstrap(), base + 11 * j)[0];
        }
        return new Cell(
                alpha,
                s2,
                depth,
                FiniteWidthNtkMoments.dispersionLeaveOneOut(diag),
                NtkSampling.bootstrap(diag, set.bootstrap(), base)[0],
                FiniteWidthNtkMoments.constantWidth(set.width(), depth, n0, s2).dispersion(),
                offR,
                offSe);
    }

    /** Fig. 6's three profiles (same mean width), Thm 3.2 against depth. */
    static List<Profile> profiles(Settings set) {
        int m1 = set.profileM1();
        int m2 = set.profileM2();
        List<Profile> out = new ArrayList<>();
        int[] ls = profileDepths(set.maxProfileDepth());
        for (double s2 : set.profileSigmaW2()) {
            for (String shape : new String[] {"rising", "constant", "falling"}) {
                double[] r = new double[ls.length];
                for (int i = 0; i < ls.length; i++) {
                    int depth = ls[i];
                    int[] w = new int[depth];
                    for (int l = 0; l < depth; l++) {
                        w[l] = switch (shape) {
                            case "rising" -> m1 + (int) Math.ceil((double) l * (m2 - m1) / depth);
                            case "falling" -> m2 + (int) Math.ceil((double) l * (m1 - m2) / depth);
                            default -> (int) Math.ceil((m1 + m2) / 2.0);
                        };
                    }
                    r[i] = new FiniteWidthNtkMoments(w, s2, 1.0).dispersion();
                }
                out.add(new Profile(
                        shape, s2, java.util.Arrays.stream(ls).asDoubleStream().toArray(), r));
            }
        }
        return out;
    }

    private static int[] profileDepths(int max) {
        List<Integer> d = new ArrayList<>();
        for (int l = 2; l <= max; l += l < 20 ? 2 : l < 100 ? 5 : 20) {
            d.add(l);
        }
        return d.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Fig. 5: eq. (9) for α₀ ∈ {1, 0.5, 0.1, 0.01} and eq. (8), λ ∈ (0, 1]. */
    static Limits limits(Settings set) {
        double[] lambdas = {0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1};
        double[] alphas = {1, 0.5, 0.1, 0.01};
        double[][] eoc = new double[alphas.length][lambdas.length];
        double[] chaos = new double[lambdas.length];
        for (int j = 0; j < lambdas.length; j++) {
            chaos[j] = FiniteWidthNtkMoments.chaoticLimit(lambdas[j]);
            for (int i = 0; i < alphas.length; i++) {
                eoc[i][j] = FiniteWidthNtkMoments.edgeOfChaosLimit(lambdas[j], alphas[i]);
            }
        }
        return new Limits(lambdas, alphas, eoc, chaos);
    }

    static String table(Result r) {
        StringBuilder t = new StringBuilder(String.format(
                "%-6s %-7s %-5s %18s %9s   %s%n",
                "alpha0", "sigma^2", "L", "r sampled ± SE", "Thm 3.2", "off-diagonal r (per <x,x~>)"));
        for (Cell c : r.cells()) {
            StringBuilder off = new StringBuilder();
            for (int j = 0; j < c.offDiagonal().length; j++) {
                off.append(String.format(Locale.ROOT, "%.3f±%.3f ", c.offDiagonal()[j], c.offDiagonalSe()[j]));
            }
            t.append(String.format(
                    Locale.ROOT,
                    "%-6s %-7s %-5d %9.4f ± %6.4f %9.4f   %s%n",
                    c.alpha(),
                    c.sigmaW2(),
                    c.depth(),
                    c.dispersion(),
                    c.se(),
                    c.theory(),
                    off.toString().strip()));
        }
        return t.toString();
    }

    /**
     * Verdicts: the sampled diagonal dispersion within 3 SE of Thm 3.2 in ≥ 90% of the cells (70% partly; heavy
     * tails at the edge of chaos make single cells' SE unreliable); Fig. 2's growth towards σ_w² = 2 (at every α₀ and
     * the deepest L, each step up in σ_w² raises the sampled r by more than 2 SE); Fig. 2's peak for α₀ &lt; 1 in the
     * ordered phase (for every α₀ &lt; 1 and σ_w² &lt; 2, Thm 3.2 peaks inside the depth range and the sampled r falls
     * after its peak by more than 2 SE); Figs 7–8, the off-diagonal dispersion following the diagonal one (Spearman
     * correlation of the angle-averaged off-diagonal r with Thm 3.2's diagonal r over the cells ≥ 0.9, 0.7 partly) and
     * not depending on the angle (the spread over ⟨x, x̃⟩ within 3 SE in ≥ 90% of the cells, 70% partly); Fig. 5, the
     * EOC limit approaching the chaotic one monotonically as α₀ falls at every λ; Fig. 6 in the ordered phase (σ_w²
     * &lt; 2), the rising profile peaking in the first third of the depth range and lowest of the three at the deepest
     * depth, the falling profile non-decreasing in depth.
     */
    static List<Verdict> verdicts(Result r) {
        List<Cell> cells = r.cells();
        return List.of(
                theoryFit(cells),
                growsTowardsEdgeOfChaos(cells),
                peaksThenFalls(cells),
                offDiagonalFollows(cells),
                angleFree(cells),
                edgeOfChaosLimit(r.limits()),
                widthProfiles(r));
    }

    /** Thm 3.2 against the sampled r, cell by cell. */
    private static Verdict theoryFit(List<Cell> cells) {
        long within = cells.stream()
                .filter(c -> Math.abs(c.dispersion() - c.theory()) <= 3 * c.se())
                .count();
        double frac = (double) within / cells.size();
        return new Verdict(
                "sampled r against Thm 3.2 (α₀ ≠ 1 included)",
                within + " of " + cells.size() + " cells within 3 SE",
                "Thm 3.2",
                Verdicts.grade(frac >= 0.9, frac >= 0.7),
                "≥ 90% of the (α₀, σ_w², L) cells within 3 bootstrap SE");
    }

    /** Fig. 2: r grows with σ_w² at the deepest depth, for every α₀. */
    private static Verdict growsTowardsEdgeOfChaos(List<Cell> cells) {
        double[] s2s =
                cells.stream().mapToDouble(Cell::sigmaW2).distinct().sorted().toArray();
        double[] alphas = cells.stream().mapToDouble(Cell::alpha).distinct().toArray();
        int deepest = cells.stream().mapToInt(Cell::depth).max().orElse(0);
        int steps = 0;
        int up = 0;
        for (double a : alphas) {
            for (int i = 1; i < s2s.length; i++) {
                Cell lo = find(cells, a, s2s[i - 1], deepest);
                Cell hi = find(cells, a, s2s[i], deepest);
                steps++;
                up += hi.dispersion() - lo.dispersion() > 2 * (hi.se() + lo.se()) ? 1 : 0;
            }
        }
        return new Verdict(
                "Fig. 2: r grows as σ_w² → 2",
                up + " of " + steps + " steps up by > 2 SE (L = " + deepest + ")",
                "grows towards the EOC",
                Verdicts.grade(up == steps, up > steps / 2),
                "each step up in σ_w² at every α₀, deepest L");
    }

    /** Fig. 2: for α₀ &lt; 1 in the ordered phase, r peaks inside the depth range, then falls. */
    private static Verdict peaksThenFalls(List<Cell> cells) {
        double[] s2s =
                cells.stream().mapToDouble(Cell::sigmaW2).distinct().sorted().toArray();
        double[] alphas = cells.stream().mapToDouble(Cell::alpha).distinct().toArray();
        int combos = 0;
        int peaked = 0;
        StringBuilder where = new StringBuilder();
        for (double a : alphas) {
            for (double s2 : s2s) {
                if (a >= 1 || s2 >= 2) {
                    continue;
                }
                List<Cell> line = cells.stream()
                        .filter(c -> c.alpha() == a && c.sigmaW2() == s2)
                        .sorted((x, y) -> Integer.compare(x.depth(), y.depth()))
                        .toList();
                Cell peak = line.stream()
                        .max((x, y) -> Double.compare(x.dispersion(), y.dispersion()))
                        .orElseThrow();
                Cell peakTheory = line.stream()
                        .max((x, y) -> Double.compare(x.theory(), y.theory()))
                        .orElseThrow();
                Cell last = line.get(line.size() - 1);
                boolean theoryInterior = peakTheory != last && peakTheory != line.get(0);
                boolean falls = peak != last && peak.dispersion() - last.dispersion() > 2 * (peak.se() + last.se());
                combos++;
                peaked += theoryInterior && falls ? 1 : 0;
                where.append(String.format(
                        Locale.ROOT,
                        "%sα₀ %s σ_w² %s: %.3f at L %d → %.3f at L %d",
                        where.length() > 0 ? "; " : "",
                        a,
                        s2,
                        peak.dispersion(),
                        peak.depth(),
                        last.dispersion(),
                        last.depth()));
            }
        }
        return new Verdict(
                "Fig. 2: α₀ < 1 peaks, then falls with depth (ordered)",
                peaked + " of " + combos + " (α₀, σ_w²)",
                "a peak, then a fall",
                Verdicts.grade(combos > 0 && peaked == combos, peaked > 0),
                "Thm 3.2 peaks inside the depth range and the sampled r falls by > 2 SE after its peak; " + where);
    }

    /** Figs 7–8: the off-diagonal r ranks the cells as Thm 3.2's diagonal r does. */
    private static Verdict offDiagonalFollows(List<Cell> cells) {
        double[] offMean = cells.stream()
                .mapToDouble(
                        c -> java.util.Arrays.stream(c.offDiagonal()).average().orElse(Double.NaN))
                .toArray();
        double[] theory = cells.stream().mapToDouble(Cell::theory).toArray();
        double rho = Stats.spearman(offMean, theory);
        return new Verdict(
                "Figs 7-8: off-diagonal r follows the diagonal's",
                String.format(Locale.ROOT, "Spearman %.3f over %d cells", rho, cells.size()),
                "behaves like the diagonal",
                Verdicts.grade(rho >= 0.9, rho >= 0.7),
                "rank correlation of the angle-averaged off-diagonal r with Thm 3.2's diagonal r, ≥ 0.9");
    }

    /** Figs 7–8: r does not depend on the angle between the two inputs. */
    private static Verdict angleFree(List<Cell> cells) {
        long sameAngle = 0;
        for (Cell c : cells) {
            double lo = java.util.Arrays.stream(c.offDiagonal()).min().orElse(0);
            double hi = java.util.Arrays.stream(c.offDiagonal()).max().orElse(0);
            double se = java.util.Arrays.stream(c.offDiagonalSe()).max().orElse(0);
            sameAngle += hi - lo <= 3 * se ? 1 : 0;
        }
        double fSame = (double) sameAngle / cells.size();
        return new Verdict(
                "Figs 7-8: the angle does not matter",
                sameAngle + " of " + cells.size() + " cells",
                "no significant dependence",
                Verdicts.grade(fSame >= 0.9, fSame >= 0.7),
                "spread of r over ⟨x, x̃⟩ within 3 SE (the largest) in ≥ 90% of the cells");
    }

    /** Fig. 5: the EOC limit approaches the chaotic one as α₀ falls. */
    private static Verdict edgeOfChaosLimit(Limits lim) {
        boolean monotone = true;
        for (int j = 0; j < lim.lambdas().length; j++) {
            for (int i = 1; i < lim.alphas().length; i++) {
                monotone &= Math.abs(lim.edgeOfChaos()[i][j] - lim.chaotic()[j])
                        < Math.abs(lim.edgeOfChaos()[i - 1][j] - lim.chaotic()[j]);
            }
        }
        int lastA = lim.alphas().length - 1;
        int lastL = lim.lambdas().length - 1;
        return new Verdict(
                "Fig. 5: EOC limit → chaotic limit as α₀ → 0",
                String.format(
                        Locale.ROOT,
                        "λ = 1: %.2f (α₀ = 1) … %.2f (α₀ = %s) vs %.2f",
                        lim.edgeOfChaos()[0][lastL],
                        lim.edgeOfChaos()[lastA][lastL],
                        lim.alphas()[lastA],
                        lim.chaotic()[lastL]),
                "approaches",
                Verdicts.grade(monotone, false),
                "eq. (9) closer to eq. (8) at every λ for each smaller α₀");
    }

    /** Fig. 6: the rising, constant and falling width profiles in the ordered phase. */
    private static Verdict widthProfiles(Result r) {
        int ordered = 0;
        int ok = 0;
        StringBuilder eoc = new StringBuilder();
        for (double s2 :
                r.profiles().stream().mapToDouble(Profile::sigmaW2).distinct().toArray()) {
            Profile rise = profile(r, "rising", s2);
            Profile flat = profile(r, "constant", s2);
            Profile fall = profile(r, "falling", s2);
            int k = rise.depths().length - 1;
            if (s2 >= 2) {
                eoc.append(String.format(
                        Locale.ROOT,
                        "; at σ_w² = %s (not graded) L = %.0f: rising %.2f, constant %.2f, falling %.2f",
                        s2,
                        rise.depths()[k],
                        rise.dispersion()[k],
                        flat.dispersion()[k],
                        fall.dispersion()[k]));
                continue;
            }
            ordered++;
            int argmax = 0;
            for (int i = 1; i <= k; i++) {
                argmax = rise.dispersion()[i] > rise.dispersion()[argmax] ? i : argmax;
            }
            boolean shallowPeak = argmax > 0 && rise.depths()[argmax] <= rise.depths()[k] / 3;
            boolean lowest = rise.dispersion()[k] < flat.dispersion()[k] && rise.dispersion()[k] < fall.dispersion()[k];
            boolean rises = true;
            for (int i = 1; i <= k; i++) {
                rises &= fall.dispersion()[i] >= fall.dispersion()[i - 1] - 1e-12;
            }
            ok += shallowPeak && lowest && rises ? 1 : 0;
        }
        return new Verdict(
                "Fig. 6: rising width lowest, peaking shallow; falling only rises",
                ok + " of " + ordered + " ordered σ_w²",
                "as described",
                Verdicts.grade(ordered > 0 && ok == ordered, ok > 0),
                "Thm 3.2, n_ℓ from M₁ to M₂ / constant / from M₂ to M₁ (same mean width): the rising profile's peak in"
                        + " the first third of the depths, lowest at the deepest, the falling one non-decreasing"
                        + eoc);
    }

    private static Cell find(List<Cell> cells, double alpha, double s2, int depth) {
        return cells.stream()
                .filter(c -> c.alpha() == alpha && c.sigmaW2() == s2 && c.depth() == depth)
                .findFirst()
                .orElseThrow();
    }

    private static Profile profile(Result r, String shape, double s2) {
        return r.profiles().stream()
                .filter(p -> p.shape().equals(shape) && p.sigmaW2() == s2)
                .findFirst()
                .orElseThrow();
    }

    /** Fig. 2 per α₀: the sampled diagonal and off-diagonal r against depth, with Thm 3.2. */
    private static void depthFigures(Settings set, Path out, Result r) {
        for (double alpha : set.alphas()) {
            Chart c = new Chart(
                    String.format(
                            Locale.ROOT,
                            "Fig. 2: NTK dispersion against depth, M = %d, α₀ = %s (± 1 SE; lines Thm 3.2)",
                            set.width(),
                            alpha),
                    "depth L",
                    "r = E[Θ²]/E²[Θ]");
            for (double s2 : set.sigmaW2()) {
                List<Cell> line = r.cells().stream()
                        .filter(x -> x.alpha() == alpha && x.sigmaW2() == s2)
                        .toList();
                double[] d = line.stream().mapToDouble(Cell::depth).toArray();
                c.scatter(
                        "σ_w² = " + s2 + " sampled",
                        d,
                        line.stream().mapToDouble(Cell::dispersion).toArray(),
                        line.stream().mapToDouble(Cell::se).toArray());
                c.line(
                        "σ_w² = " + s2 + " Thm 3.2",
                        d,
                        line.stream().mapToDouble(Cell::theory).toArray());
                for (int j = 0; j < set.rhos().length; j++) {
                    final int jj = j;
                    c.scatter(
                            "σ_w² = " + s2 + " off-diagonal, ⟨x, x̃⟩ = " + set.rhos()[j],
                            d,
                            line.stream().mapToDouble(x -> x.offDiagonal()[jj]).toArray(),
                            line.stream()
                                    .mapToDouble(x -> x.offDiagonalSe()[jj])
                                    .toArray());
                }
            }
            c.save(out.resolve(String.format(Locale.ROOT, "dispersion-alpha0-%s.png", alpha)));
        }
    }

    /** Figs 5 and 6: the closed-form limits as α₀ falls and the width profiles. */
    private static void limitFigures(Settings set, Path out, Result r) {
        Limits lim = r.limits();
        Chart f5 = new Chart("Fig. 5: Thm 3.1 edge-of-chaos limit as α₀ → 0, and the chaotic limit", "λ = L/M", "r")
                .logY();
        for (int i = 0; i < lim.alphas().length; i++) {
            f5.line("EOC, α₀ = " + lim.alphas()[i], lim.lambdas(), lim.edgeOfChaos()[i]);
        }
        f5.line("chaotic", lim.lambdas(), lim.chaotic());
        f5.save(out.resolve("limits-alpha0.png"));
        Chart f6 = new Chart(
                        String.format(
                                Locale.ROOT,
                                "Fig. 6: Thm 3.2 for width profiles M₁ = %d ↔ M₂ = %d",
                                set.profileM1(),
                                set.profileM2()),
                        "depth L",
                        "r")
                .logY();
        for (Profile p : r.profiles()) {
            f6.line(p.shape() + ", σ_w² = " + p.sigmaW2(), p.depths(), p.dispersion());
        }
        f6.save(out.resolve("width-profiles.png"));
    }

    private static void write(Settings set, Path out, Result r) {
        depthFigures(set, out, r);
        limitFigures(set, out, r);
        List<Verdict> v = verdicts(r);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("settings", set);
        json.put("result", r);
        json.put("verdicts", v);
        Files2.writeString(out.resolve("results.json"), Specs.toJson(json) + "\n");
        Map<String, String> summary = new LinkedHashMap<>();
        for (double alpha : set.alphas()) {
            for (double s2 : set.sigmaW2()) {
                StringBuilder b = new StringBuilder();
                for (Cell c : r.cells()) {
                    if (c.alpha() == alpha && c.sigmaW2() == s2) {
                        b.append(String.format(
                                Locale.ROOT,
                                "L %d: %.3f±%.3f (%.3f); ",
                                c.depth(),
                                c.dispersion(),
                                c.se(),
                                c.theory()));
                    }
                }
                summary.put("α₀ = " + alpha + ", σ_w² = " + s2, b.toString().strip());
            }
        }
        new StudyReport("Seleznova's thesis §3.2: NTK dispersion for α₀ ≠ 1, off-diagonal entries and width profiles")
                .summary(summary)
                .notes(List.of(String.format(
                        Locale.ROOT,
                        "ReLU MLPs of width M = %d, n₀ = α₀M inputs (unit norm), standard parameterisation, σ_b = 0 with"
                                + " trainable biases, %d initialisations per cell (exact NTK in plain Java), r by the"
                                + " leave-one-out estimator (App. C.3) with %d bootstrap resamples; off-diagonal pairs"
                                + " x̃ = ρx + √(1 − ρ²)y. Theory: Thm 3.2 (proof form) for the diagonal, Thm 3.1 eqs."
                                + " (8)–(9) for Fig. 5.",
                        set.width(),
                        set.inits(),
                        set.bootstrap())))
                .verdicts(v)
                .write(out);
    }
}
