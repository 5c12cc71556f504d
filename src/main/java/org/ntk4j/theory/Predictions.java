package org.ntk4j.theory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ntk4j.OptionException;
import org.ntk4j.OptionKey;
import org.ntk4j.spec.Parameterization;
import org.ntk4j.util.Numbers;

/**
 * The closed-form predictions of this package as tables ({@link Table}): what {@code ntk4j theory} prints, writes
 * as CSV and plots, one method per prediction. Each checks its settings (a bad one is a one-line {@link
 * OptionException} naming it) and computes; the front end reads files and shows the tables.
 */
public final class Predictions {
    private Predictions() {}

    /** The settings the checks name. */
    public enum Option implements OptionKey {
        DEPTH,
        DEPTHS,
        ANGLES,
        Q0,
        C0,
        WIDTH,
        INPUT_DIM,
        RHO,
        EPSILON,
        S,
        POINTS,
        T_MAX,
        TIME,
        INPUTS,
        TARGETS
    }

    /**
     * An infinite-width MLP in neural-tangents' {@code stax.Dense(W_std, b_std)} convention.
     *
     * @param activation φ
     * @param depth weight layers L (L − 1 hidden layers)
     * @param sigmaW W_std = σ_w
     * @param sigmaB b_std = σ_b
     * @param parameterization NTK or standard
     * @param width the hidden width the standard parameterisation needs (else ignored)
     */
    public record Mlp(
            Activation activation,
            int depth,
            double sigmaW,
            double sigmaB,
            Parameterization parameterization,
            int width) {
        /** Its kernels ({@link MlpKernel}). */
        public MlpKernel kernel() {
            return MlpKernel.builder()
                    .activation(activation)
                    .depth(depth)
                    .sigmaW(sigmaW)
                    .sigmaB(sigmaB)
                    .parameterization(parameterization)
                    .hiddenWidth(width)
                    .build();
        }
    }

    /**
     * The NNGP and NTK of {@code mlp} on two unit-norm inputs of R² at {@code angles} angles from 0 to π (columns
     * angle, cos, nngp, ntk, ntk/ntk(0)), after the network and its signal-propagation summary (q*, χ₁, phase, ξ_q,
     * ξ_c; {@link SignalPropagation}).
     */
    public static Table ntkVsAngle(Mlp mlp, int angles) {
        check(mlp.depth() >= 1, Option.DEPTH, " must be >= 1, got " + mlp.depth());
        check(angles >= 2, Option.ANGLES, " must be >= 2, got " + angles);
        MlpKernel k = mlp.kernel();
        double sw = mlp.sigmaW();
        double sb = mlp.sigmaB();
        SignalPropagation sp = new SignalPropagation(mlp.activation(), sw * sw, sb * sb);
        double qStar = sp.fixedPointLength(sw * sw / 2 + sb * sb);
        List<String> before = new ArrayList<>();
        before.add(String.format(
                Locale.ROOT,
                "MLP %s, L=%d, σ_w=%.4g, σ_b=%.4g, %s parameterisation (inputs: unit norm in R^2)",
                mlp.activation(),
                mlp.depth(),
                sw,
                sb,
                mlp.parameterization().name().toLowerCase(Locale.ROOT)));
        if (Double.isNaN(qStar)) {
            before.add(String.format(
                    Locale.ROOT,
                    "signal propagation: the length map reaches no fixed point q* (diverges or converges only"
                            + " algebraically); χ₁ at q=1: %.6g",
                    sp.chi1(1)));
        } else {
            before.add("signal propagation: " + fixedPoint(sp, qStar));
        }
        String[] header = {"angle", "cos", "nngp", "ntk", "ntk/ntk(0)"};
        List<double[]> rows = new ArrayList<>();
        double diag = 0;
        for (int i = 0; i < angles; i++) {
            double th = Math.PI * i / (angles - 1);
            double[] x = {1, 0};
            double[] y = {Math.cos(th), Math.sin(th)};
            double[] kv = k.pair(x, y);
            if (i == 0) {
                diag = kv[1];
            }
            rows.add(new double[] {th, Math.cos(th), kv[0], kv[1], kv[1] / diag});
        }
        return new Table(
                "ntk", "Infinite-width kernels vs angle", header, rows, 0, new int[] {2, 3}, before, List.of());
    }

    /** The summary line of the train×train kernels of {@code x}: inputs, their dimension, the NTK's mean diagonal. */
    public static String trainSummary(double[][] x, MlpKernel.Kernels train) {
        return String.format(
                Locale.ROOT,
                "%d training inputs of dimension %d; NTK diagonal mean %.6g",
                x.length,
                x[0].length,
                CommonOps_DDRM.trace(train.ntk()) / train.ntk().numRows);
    }

    /** A kernel matrix as a table {@code name}, its columns named {@code x0, x1, ...}. */
    public static Table matrix(String name, DMatrixRMaj m) {
        return Table.of(name, columnNames("x", m.numCols), rowsOf(m));
    }

    /**
     * Infinite-width kernel regression of the test inputs (Seleznova, NTK thesis, eqs. (2.59)–(2.61)): gradient flow
     * on ℒ = ½Σ‖f − y‖² with η = 1 and f₀ = 0 for time {@code t} (∞ for the limit), from the train×train and
     * test×train NTKs; a table {@code predictions} of the outputs f0, f1, ... per test input.
     */
    public static Table regression(MlpKernel.Kernels train, MlpKernel.Kernels cross, double[][] y, double t) {
        int n = train.ntk().numRows;
        if (y.length != n) {
            throw new OptionException(Option.TARGETS, " has " + y.length + " rows but ", Option.INPUTS, " has " + n);
        }
        check(t >= 0, Option.TIME, " must be >= 0");
        DMatrixRMaj pred =
                new KernelRegression(train.ntk()).testPrediction(cross.ntk(), new DMatrixRMaj(y), null, null, 1.0, t);
        return Table.of("predictions", columnNames("f", y[0].length), rowsOf(pred));
    }

    /**
     * Mean-field signal propagation of two inputs with first-layer variance {@code q0} and correlation {@code c0}
     * through {@code depth} layers (Seleznova &amp; Kutyniok, Can We Trust NTK Theory?, eqs. (5)–(9); Lou, Mingard
     * &amp; Hayou, Equilibrium Hypothesis, App. A.1): per layer q, c, χ₁(q) and the gradient-norm ratio, after the
     * fixed point's summary.
     */
    public static Table signal(Activation act, double sigmaW, double sigmaB, int depth, double q0, double c0) {
        check(depth >= 1, Option.DEPTH, " must be >= 1");
        if (!(q0 > 0 && Math.abs(c0) <= 1)) {
            throw new OptionException("need ", Option.Q0, " > 0 and ", Option.C0, " in [-1, 1]");
        }
        SignalPropagation sp = new SignalPropagation(act, sigmaW * sigmaW, sigmaB * sigmaB);
        double[] q = sp.lengths(q0, depth - 1);
        double[] c = sp.correlations(q0, q0, c0, depth - 1);
        String[] header = {"layer", "q", "c", "chi1(q)", "grad_ratio"};
        List<double[]> rows = new ArrayList<>();
        double[] grad = sp.gradientNormRatios(q0, depth);
        for (int l = 0; l < depth; l++) {
            rows.add(new double[] {l + 1, q[l], c[l], sp.chi1(q[l]), grad[l]});
        }
        double qStar = sp.fixedPointLength(q0);
        List<String> before = Double.isNaN(qStar) ? List.of() : List.of(fixedPoint(sp, qStar));
        return new Table(
                "signal", "Signal propagation (" + act + ")", header, rows, 0, new int[] {1, 2}, before, List.of());
    }

    private static String fixedPoint(SignalPropagation sp, double qStar) {
        return String.format(
                Locale.ROOT,
                "q*=%.6g  χ₁=%.6g  phase=%s  ξ_q=%.4g  ξ_c=%.4g",
                qStar,
                sp.chi1(qStar),
                sp.phase(qStar, 1e-9),
                sp.lengthDepthScale(qStar),
                sp.correlationDepthScale(qStar));
    }

    /**
     * The finite-width NTK dispersion E[Θ²]/E²[Θ] of ReLU MLPs of width {@code width} per depth and σ_w² (Seleznova
     * &amp; Kutyniok, NTK Beyond the Infinite-Width Limit, Thm 3.2, with the second moment of its proofs; {@link
     * FiniteWidthNtkMoments}); with {@code limit} also the λ = L/M limit (Thm 3.1), with {@code rho} also the
     * ordered-phase estimate eq. (18) of E[Θ(x,x̃)]/E[Θ(x,x)] for ⟨x,x̃⟩ = ρ.
     *
     * @param inputDim n₀; {@code <= 0} = the width (α₀ = 1)
     */
    public static Table dispersion(int width, int inputDim, int[] depths, double[] sigmaW2, boolean limit, Double rho) {
        check(width >= 1, Option.WIDTH, " must be >= 1");
        int n0 = inputDim > 0 ? inputDim : width;
        int cols = sigmaW2.length * (1 + (limit ? 1 : 0) + (rho != null ? 1 : 0));
        int offRho = sigmaW2.length * (limit ? 2 : 1);
        check(rho == null || Math.abs(rho) <= 1, Option.RHO, " must be in [-1, 1]");
        String[] header = new String[1 + cols];
        header[0] = "L";
        for (int s = 0; s < sigmaW2.length; s++) {
            header[1 + s] = "r(σw²=" + Numbers.compact(sigmaW2[s]) + ")";
            if (limit) {
                header[1 + sigmaW2.length + s] = "lim(σw²=" + Numbers.compact(sigmaW2[s]) + ")";
            }
            if (rho != null) {
                header[1 + offRho + s] = "off(σw²=" + Numbers.compact(sigmaW2[s]) + ")";
            }
        }
        List<double[]> rows = new ArrayList<>();
        for (int depth : depths) {
            check(depth >= 1, Option.DEPTHS, " must be >= 1, got " + depth);
            double[] r = new double[1 + cols];
            r[0] = depth;
            for (int s = 0; s < sigmaW2.length; s++) {
                r[1 + s] = FiniteWidthNtkMoments.constantWidth(width, depth, n0, sigmaW2[s])
                        .dispersion();
                if (limit) {
                    r[1 + sigmaW2.length + s] = FiniteWidthNtkMoments.limitDispersion(
                            sigmaW2[s], (double) depth / width, (double) n0 / width);
                }
                if (rho != null) {
                    r[1 + offRho + s] = FiniteWidthNtkMoments.offDiagonalRatio(depth, sigmaW2[s], rho);
                }
            }
            rows.add(r);
        }
        int[] ys = new int[sigmaW2.length];
        for (int s = 0; s < ys.length; s++) {
            ys[s] = 1 + s;
        }
        return new Table(
                "dispersion",
                "NTK dispersion vs depth (M=" + width + ")",
                header,
                rows,
                0,
                ys,
                List.of(String.format(Locale.ROOT, "NTK dispersion, ReLU, width M=%d, n0=%d", width, n0)),
                List.of());
    }

    /**
     * The equilibrium layer l_eq(L) of a He-initialised ReLU net per depth beside the Cor. 5 scaling L^{3/5} (Lou,
     * Mingard &amp; Hayou, Equilibrium Hypothesis; {@link EquilibriumHypothesis}): the first l with D_f(l) ≤ C·D_b(l,
     * L), c₁ = 1 − ε; with two depths or more, the OLS slope of log l_eq on log L after the table.
     */
    public static Table equilibrium(int[] depths, double epsilon, double constant) {
        check(epsilon > 0 && epsilon < 2, Option.EPSILON, " must be in (0, 2)");
        String[] header = {"L", "l_eq", "L^0.6", "D_f(l_eq)", "D_b(l_eq,L)"};
        List<double[]> rows = new ArrayList<>();
        for (int depth : depths) {
            check(depth >= 2, Option.DEPTHS, " must be >= 2, got " + depth);
            int l = EquilibriumHypothesis.equilibriumLayer(depth, epsilon, constant);
            rows.add(new double[] {
                depth,
                l,
                EquilibriumHypothesis.predictedMostAlignedLayer(depth),
                EquilibriumHypothesis.forwardDeficit(l),
                EquilibriumHypothesis.backwardProduct(1 - epsilon, l, depth)
            });
        }
        List<String> after = depths.length >= 2
                ? List.of(String.format(
                        Locale.ROOT,
                        "OLS slope of log l_eq on log L: %.4f (Cor. 5: 3/5 as L → ∞)",
                        EquilibriumHypothesis.equilibriumSlope(depths, epsilon, constant)))
                : List.of();
        return new Table(
                "equilibrium", "Equilibrium layer vs depth", header, rows, 0, new int[] {1, 2}, List.of(), after);
    }

    /**
     * A deep linear network on whitened data under gradient flow with equal learning rates (Atanasov, Bordelon
     * &amp; Pehlevan, Silent Alignment, eqs. 39 and 42 in corrected form; {@link LinearNetworks}): the scale c(t)
     * (and for two layers q(t), r(t)) and the loss at {@code points} times up to {@code tMax}, after the half-loss (two
     * layers) or blow-up time, the final NTK and its alignment for data of rank {@code rank}.
     */
    public static Table linear(int depth, double s, double c0, double tMax, int points, int rank) {
        check(depth >= 2, Option.DEPTH, " must be >= 2");
        if (!(s > 0 && c0 > 0 && c0 < s)) {
            throw new OptionException("need 0 < ", Option.C0, " < ", Option.S);
        }
        if (!(points >= 2 && tMax > 0)) {
            throw new OptionException("need ", Option.POINTS, " >= 2 and ", Option.T_MAX, " > 0");
        }
        boolean two = depth == 2;
        String[] header = two ? new String[] {"t", "c", "q", "r", "loss"} : new String[] {"t", "c", "loss"};
        List<double[]> rows = new ArrayList<>();
        for (int i = 0; i < points; i++) {
            double t = tMax * i / (points - 1);
            double c = LinearNetworks.deepScale(t, s, c0, depth, Math.max(200, (int) (200 * t)));
            if (two) {
                double[] qr = LinearNetworks.twoLayerOrderParameters(t, s, 2 * c0);
                rows.add(new double[] {t, c, qr[0], qr[1], LinearNetworks.twoLayerLoss(s, qr[1])});
            } else {
                rows.add(new double[] {t, c, 0.5 * (s - c) * (s - c)});
            }
        }
        double[] etas = new double[depth];
        Arrays.fill(etas, 1);
        List<String> before = new ArrayList<>();
        before.add(String.format(
                Locale.ROOT, "linear network L=%d, s=%.4g, c0=%.3g (equal learning rates)", depth, s, c0));
        if (two) {
            before.add(String.format(Locale.ROOT, "half-loss time t½ = %.6g", LinearNetworks.halfLossTime(s, c0)));
        } else {
            before.add(String.format(
                    Locale.ROOT, "small-c blow-up time t* = %.6g", LinearNetworks.deepBlowUpTime(c0, s, depth)));
        }
        double[] ab = LinearNetworks.finalNtkCoefficients(etas);
        before.add(String.format(
                Locale.ROOT,
                "final NTK K∞ = %.6g·xᵀ[%.4g ββᵀ + %.4g I]x'; final alignment (rank %d) = %.6g",
                LinearNetworks.finalScale(s, etas),
                ab[0],
                ab[1],
                rank,
                LinearNetworks.finalAlignment(depth, rank)));
        return new Table(
                "linear",
                "Linear network, L=" + depth,
                header,
                rows,
                0,
                two ? new int[] {1, 3, 4} : new int[] {1, 2},
                before,
                List.of());
    }

    /**
     * A random instance of Xu &amp; Ziyin's solvable model f = κ uᵀWx (When Does Feature Learning Happen?): u ~
     * N(0, σ_u²), W ~ N(0, σ_W²) of width d over d₀ inputs, drawn from {@code seed}, x = e₁, target y.
     *
     * @param width d
     * @param inputDim d₀
     * @param sigmaU σ_u
     * @param sigmaW σ_W
     * @param kappa the output multiplier κ
     * @param etaU η_u
     * @param etaW η_W
     * @param y the target
     * @param seed the initialisation seed
     */
    public record SolvableInit(
            int width,
            int inputDim,
            double sigmaU,
            double sigmaW,
            double kappa,
            double etaU,
            double etaW,
            double y,
            long seed) {
        /** The model: its weights drawn, its settings checked. */
        public SolvableModel model() {
            if (!(width >= 1 && inputDim >= 1)) {
                throw new OptionException(Option.WIDTH, " and ", Option.INPUT_DIM, " must be >= 1");
            }
            SplittableRandom r = new SplittableRandom(seed);
            double[] u = new double[width];
            double[][] w = new double[width][inputDim];
            for (int i = 0; i < width; i++) {
                u[i] = sigmaU * r.nextGaussian();
                for (int j = 0; j < inputDim; j++) {
                    w[i][j] = sigmaW * r.nextGaussian();
                }
            }
            double[] x = new double[inputDim];
            x[0] = 1;
            if (!(etaU > 0 && etaW > 0 && kappa != 0)) {
                throw new org.ntk4j.UserException("need positive learning rates and κ ≠ 0");
            }
            return new SolvableModel(u, w, x, y, kappa, etaU, etaW);
        }
    }

    /** The fixed reference instance of the solvable model: d = 3, d₀ = 2, x = (1, 0.5), y = 1, κ = 1, η_u = 1, η_W = 0.5. */
    public static SolvableModel goldenSolvable() {
        return new SolvableModel(
                new double[] {0.5, -0.3, 0.8},
                new double[][] {{0.2, 0.1}, {-0.4, 0.3}, {0.1, -0.2}},
                new double[] {1.0, 0.5},
                1.0,
                1.0,
                1.0,
                0.5);
    }

    /**
     * The closed-form trajectory of a solvable model (Xu &amp; Ziyin, When Does Feature Learning Happen?, Thm 1; {@link
     * SolvableModel}) at {@code points} times up to {@code tMax} ({@code <= 0}: 5τ): f, NTK, alignment ζ and z, after
     * the conserved quantities and the initial and final NTK and alignment.
     */
    public static Table solvable(SolvableModel m, double tMax, int points) {
        if (!(m.bigP() > 0 && m.bigQ() > 0)) {
            throw new org.ntk4j.UserException("degenerate initialisation (p₀ = 0 or q₀ = 0): see Prop. 1");
        }
        double end = tMax > 0 ? tMax : 5 * m.tau();
        List<String> before = List.of(
                String.format(
                        Locale.ROOT,
                        "P=%.6g Q=%.6g C=%.6g  z+=%.6g z-=%.6g  τ=%.6g",
                        m.bigP(),
                        m.bigQ(),
                        m.bigC(),
                        m.zPlus(),
                        m.zMinus(),
                        m.tau()),
                String.format(
                        Locale.ROOT,
                        "f0=%.6g  ζ0=%.6g → ζ∞=%.6g  Θ0=%.6g → Θ∞=%.6g (relative change %.4g)",
                        m.initialOutput(),
                        m.alignment(0),
                        m.finalAlignment(),
                        m.ntk(0),
                        m.ntk(Double.POSITIVE_INFINITY),
                        m.relativeNtkChange()));
        String[] header = {"t", "f", "ntk", "zeta", "z"};
        List<double[]> rows = new ArrayList<>();
        for (int i = 0; i < points; i++) {
            double t = end * i / (points - 1);
            rows.add(new double[] {t, m.output(t), m.ntk(t), m.alignment(t), m.z(t)});
        }
        return new Table(
                "solvable", "Solvable model trajectory", header, rows, 0, new int[] {1, 2, 3}, before, List.of());
    }

    /**
     * The phase of one set of scaling exponents (Xu &amp; Ziyin, {@link PhaseClassifier}): {@code t1=.. t2=.. phase=..};
     * exponents so large that t1 or t2 is not finite are refused in one line naming the settings {@code given}.
     */
    public static String phase(PhaseClassifier.Exponents e, String given) {
        if (!Double.isFinite(PhaseClassifier.t1(e)) || !Double.isFinite(PhaseClassifier.t2(e))) {
            throw new org.ntk4j.UserException("exponents this large give no finite t1, t2 (" + given + ")");
        }
        return String.format(
                Locale.ROOT,
                "t1=%s t2=%s phase=%s",
                Numbers.compact(PhaseClassifier.t1(e)),
                Numbers.compact(PhaseClassifier.t2(e)),
                PhaseClassifier.classify(e));
    }

    /**
     * Xu &amp; Ziyin's Table 1: per preset (NTK, mean field, Xavier, Kaiming, lazy) the plain setting and
     * Cor. 1–3, with t1, t2 and the phase.
     *
     * @param text the rows as printed: column, setting, c_kappa, c_eta, t1, t2, phase
     * @param numbers the rows as numbers (the CSV): column and setting indices, exponents, t1, t2, phase ordinal
     */
    public record PhaseTable(List<String[]> text, Table numbers) {}

    /** {@link PhaseTable} of Table 1. */
    public static PhaseTable phaseTable() {
        List<String[]> text = new ArrayList<>();
        text.add(new String[] {"column", "setting", "c_kappa", "c_eta", "t1", "t2", "phase"});
        List<double[]> csvRows = new ArrayList<>();
        int col = 0;
        for (var entry : PhaseClassifier.table1Presets().entrySet()) {
            PhaseClassifier.Exponents base = entry.getValue();
            PhaseClassifier.Exponents[] settings = {
                base,
                PhaseClassifier.corollary1(base),
                PhaseClassifier.corollary2(base),
                PhaseClassifier.corollary3(base, PhaseClassifier.table1Corollary3Kappa(entry.getKey()))
            };
            String[] names = {"plain", "cor1", "cor2", "cor3"};
            for (int i = 0; i < 4; i++) {
                PhaseClassifier.Exponents e = settings[i];
                PhaseClassifier.Phase ph = PhaseClassifier.classify(e);
                text.add(new String[] {
                    entry.getKey(),
                    names[i],
                    Numbers.compact(e.cKappa()),
                    Numbers.compact(e.cU()),
                    Numbers.compact(PhaseClassifier.t1(e)),
                    Numbers.compact(PhaseClassifier.t2(e)),
                    ph.name().toLowerCase(Locale.ROOT)
                });
                csvRows.add(new double[] {
                    col, i, e.cKappa(), e.cU(), PhaseClassifier.t1(e), PhaseClassifier.t2(e), ph.ordinal()
                });
            }
            col++;
        }
        String[] header = {
            "column_index",
            "setting_index",
            "c_kappa",
            "c_eta",
            "t1",
            "t2",
            "phase_ordinal(0=frozen,1=unstable,2=kernel,3=feature_learning)"
        };
        return new PhaseTable(text, Table.of("phase", header, csvRows));
    }

    static String[] columnNames(String prefix, int n) {
        String[] h = new String[n];
        for (int i = 0; i < n; i++) {
            h[i] = prefix + i;
        }
        return h;
    }

    static List<double[]> rowsOf(DMatrixRMaj m) {
        List<double[]> rows = new ArrayList<>();
        for (int i = 0; i < m.numRows; i++) {
            double[] r = new double[m.numCols];
            for (int j = 0; j < m.numCols; j++) {
                r[j] = m.get(i, j);
            }
            rows.add(r);
        }
        return rows;
    }

    private static void check(boolean ok, Option option, String text) {
        if (!ok) {
            throw new OptionException(option, text);
        }
    }
}
