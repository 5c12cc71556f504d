package org.ntk4j.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.ntk4j.UserException;
import org.ntk4j.theory.Activation;
import org.ntk4j.theory.EquilibriumHypothesis;
import org.ntk4j.theory.FiniteWidthNtkMoments;
import org.ntk4j.theory.LinearNetworks;
import org.ntk4j.theory.MlpKernel;
import org.ntk4j.theory.Parameterization;
import org.ntk4j.theory.PhaseClassifier;
import org.ntk4j.theory.SignalPropagation;
import org.ntk4j.theory.SolvableModel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code ntk4j theory ...}: closed-form predictions (package {@code org.ntk4j.theory}) as tables, CSV and PNG. */
@Command(
        name = "theory",
        mixinStandardHelpOptions = true,
        description = {
            "Closed-form theory beside the measurements.",
            "Infinite-width kernels, signal propagation, finite-width NTK dispersion, the equilibrium layer,",
            "linear networks and the solvable model.",
            "Tables go to stdout; with --out DIR also CSV and PNG files (written atomically)."
        },
        subcommands = {
            TheoryCommand.Ntk.class,
            TheoryCommand.Signal.class,
            TheoryCommand.Dispersion.class,
            TheoryCommand.Equilibrium.class,
            TheoryCommand.Linear.class,
            TheoryCommand.Solvable.class,
            TheoryCommand.Phase.class
        })
public final class TheoryCommand implements Runnable {

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "folder for CSV and PNG outputs (created if missing)",
            scope = picocli.CommandLine.ScopeType.INHERIT)
    Path out;

    @Override
    public void run() {
        new picocli.CommandLine(this).usage(System.out);
    }

    TheoryOutput output() {
        return new TheoryOutput(out, System.out);
    }

    static void require(boolean ok, String message) {
        if (!ok) {
            throw new UserException(message);
        }
    }

    /** A count option: an integer in [lo, hi] (the upper bound keeps a mistyped value from running for hours). */
    static void count(String option, int v, int lo, int hi) {
        require(v >= lo && v <= hi, option + " must be in " + lo + ".." + hi + " (got " + v + ")");
    }

    /** A real option: finite and at least {@code lo} ({@code open}: above it). */
    static void atLeast(String option, double v, double lo, boolean open) {
        require(
                Double.isFinite(v) && (open ? v > lo : v >= lo),
                option + " must be a finite number " + (open ? "> " : ">= ") + TheoryOutput.fmt(lo) + " (got " + v
                        + ")");
    }

    /** A real option: finite. */
    static void finite(String option, double v) {
        require(Double.isFinite(v), option + " must be a finite number (got " + v + ")");
    }

    /**
     * Refuses results that overflowed or are undefined (values this large make the recursions leave the doubles):
     * one line naming the options given, instead of a table of NaN.
     */
    static void finiteRows(String command, List<double[]> rows, String options) {
        for (double[] r : rows) {
            for (double v : r) {
                if (!Double.isFinite(v)) {
                    throw new UserException("theory " + command + ": the result is not finite (" + v + ") with "
                            + options + "; choose smaller values");
                }
            }
        }
    }

    @Command(
            name = "ntk",
            mixinStandardHelpOptions = true,
            description = {
                "Infinite-width NNGP and NTK of an MLP versus input angle.",
                "Convention: neural-tangents stax.Dense(W_std, b_std); two unit-norm inputs at angles 0..π;",
                "also prints the signal-propagation summary (q*, χ₁, phase, ξ_q, ξ_c).",
                "Example: ntk4j theory ntk --activation relu --depth 3 --sigma-w 1.414 --sigma-b 0.1"
            })
    static final class Ntk implements Runnable {
        @ParentCommand
        TheoryCommand parent;

        @Option(
                names = "--activation",
                defaultValue = "relu",
                description = "relu, erf, tanh or linear (default ${DEFAULT-VALUE})")
        String activation;

        @Option(
                names = "--depth",
                defaultValue = "3",
                description = "weight layers L (L-1 hidden layers; default ${DEFAULT-VALUE})")
        int depth;

        @Option(names = "--sigma-w", defaultValue = "1.4142135623730951", description = "W_std = σ_w (default √2)")
        double sigmaW;

        @Option(names = "--sigma-b", defaultValue = "0", description = "b_std = σ_b (default ${DEFAULT-VALUE})")
        double sigmaB;

        @Option(
                names = "--parameterization",
                defaultValue = "ntk",
                description = "ntk or standard (default ${DEFAULT-VALUE})")
        String parameterization;

        @Option(
                names = "--width",
                defaultValue = "-1",
                description = "hidden width, needed by the standard parameterisation")
        int width;

        @Option(
                names = "--angles",
                defaultValue = "13",
                description = "number of angles in [0, π] (default ${DEFAULT-VALUE})")
        int angles;

        @Option(
                names = "--inputs",
                paramLabel = "CSV",
                description = {
                    "training inputs, one sample per row: writes the",
                    "train×train NNGP and NTK (nngp_train.csv, ntk_train.csv) instead of the angle sweep"
                })
        Path inputs;

        @Option(
                names = "--test-inputs",
                paramLabel = "CSV",
                description = "test inputs: also writes ntk_test_train.csv")
        Path testInputs;

        @Option(
                names = "--targets",
                paramLabel = "CSV",
                description = {
                    "training targets (one row per sample):",
                    "infinite-width kernel regression of the test inputs, predictions.csv"
                })
        Path targets;

        @Option(
                names = "--time",
                defaultValue = "inf",
                description = {"gradient-flow time t (ℒ = ½Σ‖f−y‖², η = 1, f₀ = 0)", "or inf (default ${DEFAULT-VALUE})"
                })
        String time;

        @Override
        public void run() {
            count("--depth", depth, 1, 100_000);
            atLeast("--sigma-w", sigmaW, 0, true);
            atLeast("--sigma-b", sigmaB, 0, false);
            require(
                    width == -1 || width >= 1 && width <= 1_000_000_000,
                    "--width must be in 1..1000000000, or -1 for infinite width (got " + width + ")");
            timeValue();
            if (inputs == null) {
                require(testInputs == null && targets == null, "--test-inputs and --targets need --inputs");
            }
            if (inputs != null) {
                matrices();
                return;
            }
            count("--angles", angles, 2, 1_000_000);
            Activation act = Activation.byName(activation);
            Parameterization p;
            try {
                p = Parameterization.valueOf(parameterization.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new UserException("--parameterization must be ntk or standard, got '" + parameterization + "'");
            }
            MlpKernel k = MlpKernel.builder()
                    .activation(act)
                    .depth(depth)
                    .sigmaW(sigmaW)
                    .sigmaB(sigmaB)
                    .parameterization(p)
                    .hiddenWidth(width)
                    .build();
            SignalPropagation sp = new SignalPropagation(act, sigmaW * sigmaW, sigmaB * sigmaB);
            double qStar = sp.fixedPointLength(sigmaW * sigmaW / 2 + sigmaB * sigmaB);
            System.out.printf(
                    Locale.ROOT,
                    "MLP %s, L=%d, σ_w=%.4g, σ_b=%.4g, %s parameterisation (inputs: unit norm in R^2)%n",
                    act,
                    depth,
                    sigmaW,
                    sigmaB,
                    p.name().toLowerCase(Locale.ROOT));
            if (Double.isNaN(qStar)) {
                System.out.printf(
                        Locale.ROOT,
                        "signal propagation: the length map reaches no fixed point q* (diverges or converges only algebraically); χ₁ at q=1: %.6g%n",
                        sp.chi1(1));
            } else {
                System.out.printf(
                        Locale.ROOT,
                        "signal propagation: q*=%.6g  χ₁=%.6g  phase=%s  ξ_q=%.4g  ξ_c=%.4g%n",
                        qStar,
                        sp.chi1(qStar),
                        sp.phase(qStar, 1e-9),
                        sp.lengthDepthScale(qStar),
                        sp.correlationDepthScale(qStar));
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
            finiteRows("ntk", rows, "--sigma-w " + sigmaW + ", --sigma-b " + sigmaB + ", --depth " + depth);
            TheoryOutput o = parent.output();
            o.print(header, rows);
            o.csv("ntk", header, rows);
            o.plot("ntk", "Infinite-width kernels vs angle", header, rows, 0, new int[] {2, 3}, false);
        }

        /** --time: a finite time >= 0, or inf. */
        double timeValue() {
            if (time.equalsIgnoreCase("inf")) {
                return Double.POSITIVE_INFINITY;
            }
            double t;
            try {
                t = Double.parseDouble(time);
            } catch (NumberFormatException e) {
                throw new UserException("--time must be a number or inf, got '" + time + "'");
            }
            require(Double.isFinite(t) && t >= 0, "--time must be a finite number >= 0 or inf, got '" + time + "'");
            return t;
        }

        MlpKernel kernel() {
            Parameterization p;
            try {
                p = Parameterization.valueOf(parameterization.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new UserException("--parameterization must be ntk or standard, got '" + parameterization + "'");
            }
            return MlpKernel.builder()
                    .activation(Activation.byName(activation))
                    .depth(depth)
                    .sigmaW(sigmaW)
                    .sigmaB(sigmaB)
                    .parameterization(p)
                    .hiddenWidth(width)
                    .build();
        }

        void matrices() {
            MlpKernel k = kernel();
            double[][] x = readCsv(inputs);
            MlpKernel.Kernels train = k.kernels(x);
            TheoryOutput o = parent.output();
            System.out.printf(
                    Locale.ROOT,
                    "%d training inputs of dimension %d; NTK diagonal mean %.6g%n",
                    x.length,
                    x[0].length,
                    CommonOpsTrace.meanDiagonal(train.ntk()));
            o.csv("nngp_train", columnNames("x", x.length), rowsOf(train.nngp()));
            o.csv("ntk_train", columnNames("x", x.length), rowsOf(train.ntk()));
            if (testInputs == null) {
                require(targets == null, "--targets needs --test-inputs");
                return;
            }
            double[][] xs = readCsv(testInputs);
            MlpKernel.Kernels cross = k.kernels(xs, x);
            o.csv("ntk_test_train", columnNames("x", x.length), rowsOf(cross.ntk()));
            if (targets == null) {
                return;
            }
            double[][] y = readCsv(targets);
            require(y.length == x.length, "--targets has " + y.length + " rows but --inputs has " + x.length);
            double t = timeValue();
            org.ejml.data.DMatrixRMaj pred = new org.ntk4j.theory.KernelRegression(train.ntk())
                    .testPrediction(cross.ntk(), new org.ejml.data.DMatrixRMaj(y), null, null, 1.0, t);
            List<double[]> rows = rowsOf(pred);
            String[] header = columnNames("f", y[0].length);
            o.print(header, rows.subList(0, Math.min(rows.size(), 10)));
            if (rows.size() > 10) {
                System.out.println("... (" + rows.size() + " test predictions)");
            }
            o.csv("predictions", header, rows);
        }
    }

    /** Small helper: mean of a square matrix's diagonal. */
    static final class CommonOpsTrace {
        static double meanDiagonal(org.ejml.data.DMatrixRMaj m) {
            return org.ejml.dense.row.CommonOps_DDRM.trace(m) / m.numRows;
        }
    }

    static String[] columnNames(String prefix, int n) {
        String[] h = new String[n];
        for (int i = 0; i < n; i++) {
            h[i] = prefix + i;
        }
        return h;
    }

    static List<double[]> rowsOf(org.ejml.data.DMatrixRMaj m) {
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

    /** Numeric CSV, one sample per row; a first line that is not numeric is taken as a header. */
    static double[][] readCsv(Path file) {
        List<String> lines;
        try {
            lines = java.nio.file.Files.readAllLines(file);
        } catch (java.io.IOException e) {
            throw new UserException("cannot read " + file + ": " + e.getMessage(), e);
        }
        List<double[]> rows = new ArrayList<>();
        int width = -1;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split("[,;\\s]+");
            double[] r = new double[parts.length];
            try {
                for (int j = 0; j < parts.length; j++) {
                    r[j] = Double.parseDouble(parts[j]);
                }
            } catch (NumberFormatException e) {
                if (rows.isEmpty() && i == 0) {
                    continue;
                }
                throw new UserException(file + " line " + (i + 1) + ": not a number in '" + line + "'");
            }
            if (width >= 0 && r.length != width) {
                throw new UserException(file + " line " + (i + 1) + ": " + r.length + " columns, expected " + width);
            }
            width = r.length;
            rows.add(r);
        }
        if (rows.isEmpty()) {
            throw new UserException(file + ": no numeric rows");
        }
        return rows.toArray(new double[0][]);
    }

    @Command(
            name = "signal",
            mixinStandardHelpOptions = true,
            description = {
                "Mean-field signal propagation layer by layer: q_l, c_l and the gradient-norm ratio.",
                "Infinite width, W ~ N(0, σ_w²/n), b ~ N(0, σ_b²); two inputs with per-feature squared norm q₀ and",
                "correlation c₀ (Seleznova & Kutyniok, Can We Trust NTK Theory?, eqs. (5)–(9);",
                "Lou, Mingard & Hayou, Equilibrium Hypothesis, App. A.1).",
                "Example: ntk4j theory signal --activation tanh --sigma-w 1.5 --sigma-b 0.1 --depth 30 --c0 0.5"
            })
    static final class Signal implements Runnable {
        @ParentCommand
        TheoryCommand parent;

        @Option(
                names = "--activation",
                defaultValue = "relu",
                description = "relu, erf, tanh or linear (default ${DEFAULT-VALUE})")
        String activation;

        @Option(names = "--sigma-w", defaultValue = "1.4142135623730951", description = "σ_w (default √2)")
        double sigmaW;

        @Option(names = "--sigma-b", defaultValue = "0", description = "σ_b (default ${DEFAULT-VALUE})")
        double sigmaB;

        @Option(names = "--depth", defaultValue = "20", description = "layers to propagate (default ${DEFAULT-VALUE})")
        int depth;

        @Option(
                names = "--q0",
                defaultValue = "1",
                description = "first-layer pre-activation variance q₁ (default ${DEFAULT-VALUE})")
        double q0;

        @Option(
                names = "--c0",
                defaultValue = "0.5",
                description = "first-layer correlation c₁ (default ${DEFAULT-VALUE})")
        double c0;

        @Override
        public void run() {
            count("--depth", depth, 1, 100_000);
            atLeast("--sigma-w", sigmaW, 0, false);
            atLeast("--sigma-b", sigmaB, 0, false);
            atLeast("--q0", q0, 0, true);
            require(Math.abs(c0) <= 1, "--c0 must be in [-1, 1] (got " + c0 + ")");
            Activation act = Activation.byName(activation);
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
            if (!Double.isNaN(qStar)) {
                System.out.printf(
                        Locale.ROOT,
                        "q*=%.6g  χ₁=%.6g  phase=%s  ξ_q=%.4g  ξ_c=%.4g%n",
                        qStar,
                        sp.chi1(qStar),
                        sp.phase(qStar, 1e-9),
                        sp.lengthDepthScale(qStar),
                        sp.correlationDepthScale(qStar));
            }
            finiteRows("signal", rows, "--sigma-w " + sigmaW + ", --sigma-b " + sigmaB + ", --q0 " + q0);
            TheoryOutput o = parent.output();
            o.print(header, rows);
            o.csv("signal", header, rows);
            o.plot("signal", "Signal propagation (" + act + ")", header, rows, 0, new int[] {1, 2}, false);
        }
    }

    @Command(
            name = "dispersion",
            mixinStandardHelpOptions = true,
            description = {
                "Finite-width NTK dispersion E[Θ²]/E²[Θ] of ReLU MLPs vs depth and σ_w².",
                "Seleznova & Kutyniok 2022 (NTK Beyond the Infinite-Width Limit), Thm 3.2, with the second moment",
                "as derived in its proofs (the printed eq. (13) lacks a factor 2); standard param., σ_b=0, ‖x‖=1.",
                "Example: ntk4j theory dispersion --width 50 --depths 2,5,10,20 --sigma-w2 1,2,3"
            })
    static final class Dispersion implements Runnable {
        @ParentCommand
        TheoryCommand parent;

        @Option(names = "--width", defaultValue = "100", description = "hidden width M (default ${DEFAULT-VALUE})")
        int width;

        @Option(names = "--input-dim", defaultValue = "-1", description = "n₀ (default: = width, α₀ = 1)")
        int inputDim;

        @Option(
                names = "--depths",
                split = ",",
                defaultValue = "2,5,10,20",
                description = "depths L (default ${DEFAULT-VALUE})")
        int[] depths;

        @Option(
                names = "--sigma-w2",
                split = ",",
                defaultValue = "1,1.5,1.8,2,2.2,2.5,3",
                description = "σ_w² values (default ${DEFAULT-VALUE})")
        double[] sigmaW2;

        @Option(names = "--limit", description = "add the λ = L/M limit (Thm 3.1) for each σ_w²")
        boolean limit;

        @Option(
                names = "--rho",
                description = {
                    "also print the ordered-phase estimate eq. (18) of",
                    "E[Θ(x,x̃)]/E[Θ(x,x)] for inputs with ⟨x,x̃⟩ = RHO"
                })
        Double rho;

        @Override
        public void run() {
            count("--width", width, 1, 1_000_000_000);
            require(
                    inputDim == -1 || inputDim >= 1 && inputDim <= 1_000_000_000,
                    "--input-dim must be in 1..1000000000, or -1 for the width (got " + inputDim + ")");
            for (int d : depths) {
                count("--depths", d, 1, 1_000_000);
            }
            for (double v : sigmaW2) {
                atLeast("--sigma-w2", v, 0, true);
            }
            int n0 = inputDim > 0 ? inputDim : width;
            int cols = sigmaW2.length * (1 + (limit ? 1 : 0) + (rho != null ? 1 : 0));
            int offRho = sigmaW2.length * (limit ? 2 : 1);
            require(rho == null || Math.abs(rho) <= 1, "--rho must be in [-1, 1]");
            String[] header = new String[1 + cols];
            header[0] = "L";
            for (int s = 0; s < sigmaW2.length; s++) {
                header[1 + s] = "r(σw²=" + TheoryOutput.fmt(sigmaW2[s]) + ")";
                if (limit) {
                    header[1 + sigmaW2.length + s] = "lim(σw²=" + TheoryOutput.fmt(sigmaW2[s]) + ")";
                }
                if (rho != null) {
                    header[1 + offRho + s] = "off(σw²=" + TheoryOutput.fmt(sigmaW2[s]) + ")";
                }
            }
            List<double[]> rows = new ArrayList<>();
            for (int depth : depths) {
                require(depth >= 1, "--depths must be >= 1, got " + depth);
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
            finiteRows(
                    "dispersion",
                    rows,
                    "--sigma-w2 " + java.util.Arrays.toString(sigmaW2) + ", --depths "
                            + java.util.Arrays.toString(depths));
            System.out.printf(Locale.ROOT, "NTK dispersion, ReLU, width M=%d, n0=%d%n", width, n0);
            TheoryOutput o = parent.output();
            o.print(header, rows);
            o.csv("dispersion", header, rows);
            int[] ys = new int[sigmaW2.length];
            for (int s = 0; s < ys.length; s++) {
                ys[s] = 1 + s;
            }
            o.plot("dispersion", "NTK dispersion vs depth (M=" + width + ")", header, rows, 0, ys, false);
        }
    }

    @Command(
            name = "equilibrium",
            mixinStandardHelpOptions = true,
            description = {
                "Lou et al. (Equilibrium Hypothesis): equilibrium layer l_eq(L)"
                        + " next to the Cor. 5 scaling L^{3/5}.",
                "Forward deficit D_f(l) vs backward product D_b(l,L) of a He-initialised ReLU net;",
                "l_eq(L) = first l with D_f ≤ C·D_b (an operationalisation of Cor. 5).",
                "Example: ntk4j theory equilibrium --depths 10,20,50,100,1000 --epsilon 0.1 --constant 1"
            })
    static final class Equilibrium implements Runnable {
        @ParentCommand
        TheoryCommand parent;

        @Option(
                names = "--depths",
                split = ",",
                defaultValue = "10,20,30,40,50,60,70,80,90,100",
                description = "depths L (default ${DEFAULT-VALUE})")
        int[] depths;

        @Option(
                names = "--epsilon",
                defaultValue = "0.1",
                description = "c₁ = 1 − ε for the backward product (default ${DEFAULT-VALUE})")
        double epsilon;

        @Option(names = "--constant", defaultValue = "1", description = "C in D_f ≤ C·D_b (default ${DEFAULT-VALUE})")
        double constant;

        @Override
        public void run() {
            require(epsilon > 0 && epsilon < 2, "--epsilon must be in (0, 2) (got " + epsilon + ")");
            atLeast("--constant", constant, 0, true);
            for (int d : depths) {
                count("--depths", d, 2, 1_000_000);
            }
            String[] header = {"L", "l_eq", "L^0.6", "D_f(l_eq)", "D_b(l_eq,L)"};
            List<double[]> rows = new ArrayList<>();
            for (int depth : depths) {
                require(depth >= 2, "--depths must be >= 2, got " + depth);
                int l = EquilibriumHypothesis.equilibriumLayer(depth, epsilon, constant);
                rows.add(new double[] {
                    depth,
                    l,
                    EquilibriumHypothesis.predictedMostAlignedLayer(depth),
                    EquilibriumHypothesis.forwardDeficit(l),
                    EquilibriumHypothesis.backwardProduct(1 - epsilon, l, depth)
                });
            }
            finiteRows("equilibrium", rows, "--epsilon " + epsilon + ", --constant " + constant);
            TheoryOutput o = parent.output();
            o.print(header, rows);
            if (depths.length >= 2) {
                System.out.printf(
                        Locale.ROOT,
                        "OLS slope of log l_eq on log L: %.4f (Cor. 5: 3/5 as L → ∞)%n",
                        EquilibriumHypothesis.equilibriumSlope(depths, epsilon, constant));
            }
            o.csv("equilibrium", header, rows);
            o.plot("equilibrium", "Equilibrium layer vs depth", header, rows, 0, new int[] {1, 2}, false);
        }
    }

    @Command(
            name = "linear",
            mixinStandardHelpOptions = true,
            description = {
                "Atanasov et al. (Silent Alignment) linear networks: c(t), q(t), r(t), half-loss time,"
                        + " final NTK and alignment.",
                "Whitened data, gradient flow; eqs. 39 and 42 in corrected form (see theory.LinearNetworks).",
                "Example: ntk4j theory linear --depth 2 --s 1 --c0 1e-6 --t-max 15 --rank 25"
            })
    static final class Linear implements Runnable {
        @ParentCommand
        TheoryCommand parent;

        @Option(names = "--depth", defaultValue = "2", description = "weight layers L (default ${DEFAULT-VALUE})")
        int depth;

        @Option(names = "--s", defaultValue = "1", description = "teacher signal size s (default ${DEFAULT-VALUE})")
        double s;

        @Option(
                names = "--c0",
                defaultValue = "1e-6",
                description = "initial scale c₀ = q₀/2 (two layers) or u₀^L (default ${DEFAULT-VALUE})")
        double c0;

        @Option(names = "--t-max", defaultValue = "15", description = "end time (default ${DEFAULT-VALUE})")
        double tMax;

        @Option(names = "--points", defaultValue = "31", description = "time points (default ${DEFAULT-VALUE})")
        int points;

        @Option(
                names = "--rank",
                defaultValue = "25",
                description = "rank r of the whitened data, for the final alignment")
        int rank;

        @Override
        public void run() {
            count("--depth", depth, 2, 10_000);
            atLeast("--s", s, 0, true);
            require(c0 > 0 && c0 < s, "need 0 < --c0 < --s (got --c0 " + c0 + ", --s " + s + ")");
            count("--points", points, 2, 1_000_000);
            // the deep dynamics are integrated with 200 steps per unit of time
            require(tMax > 0 && tMax <= 1e6, "--t-max must be in (0, 1e6] (got " + tMax + ")");
            count("--rank", rank, 1, 1_000_000_000);
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
            java.util.Arrays.fill(etas, 1);
            System.out.printf(
                    Locale.ROOT, "linear network L=%d, s=%.4g, c0=%.3g (equal learning rates)%n", depth, s, c0);
            if (two) {
                System.out.printf(Locale.ROOT, "half-loss time t½ = %.6g%n", LinearNetworks.halfLossTime(s, c0));
            } else {
                System.out.printf(
                        Locale.ROOT, "small-c blow-up time t* = %.6g%n", LinearNetworks.deepBlowUpTime(c0, s, depth));
            }
            double[] ab = LinearNetworks.finalNtkCoefficients(etas);
            System.out.printf(
                    Locale.ROOT,
                    "final NTK K∞ = %.6g·xᵀ[%.4g ββᵀ + %.4g I]x'; final alignment (rank %d) = %.6g%n",
                    LinearNetworks.finalScale(s, etas),
                    ab[0],
                    ab[1],
                    rank,
                    LinearNetworks.finalAlignment(depth, rank));
            finiteRows("linear", rows, "--s " + s + ", --c0 " + c0 + ", --t-max " + tMax);
            TheoryOutput o = parent.output();
            o.print(header, rows);
            o.csv("linear", header, rows);
            o.plot(
                    "linear",
                    "Linear network, L=" + depth,
                    header,
                    rows,
                    0,
                    two ? new int[] {1, 3, 4} : new int[] {1, 2},
                    false);
        }
    }

    @Command(
            name = "solvable",
            mixinStandardHelpOptions = true,
            description = {
                "Xu & Ziyin 2024 solvable model f = κ uᵀWx: closed-form trajectory, NTK, alignment, τ.",
                "Gaussian init u ~ N(0,σ_u²), W ~ N(0,σ_W²), x = e₁, or a fixed reference instance (--golden).",
                "Example: ntk4j theory solvable --width 100 --kappa 0.01 --eta 100 --t-max 2"
            })
    static final class Solvable implements Runnable {
        @ParentCommand
        TheoryCommand parent;

        @Option(
                names = "--golden",
                description = "use a fixed reference instance" + " (d=3, d0=2, x=(1, 0.5), y=1, κ=1, η_u=1, η_W=0.5)")
        boolean golden;

        @Option(names = "--width", defaultValue = "100", description = "width d (default ${DEFAULT-VALUE})")
        int width;

        @Option(names = "--input-dim", defaultValue = "1", description = "d₀ (default ${DEFAULT-VALUE})")
        int inputDim;

        @Option(names = "--sigma-u", defaultValue = "1", description = "σ_u (default ${DEFAULT-VALUE})")
        double sigmaU;

        @Option(names = "--sigma-w", defaultValue = "1", description = "σ_W (default ${DEFAULT-VALUE})")
        double sigmaWeight;

        @Option(names = "--kappa", defaultValue = "0.1", description = "output multiplier κ (default ${DEFAULT-VALUE})")
        double kappa;

        @Option(
                names = "--eta",
                defaultValue = "1",
                description = "η_u = η_W unless set separately (default ${DEFAULT-VALUE})")
        double eta;

        @Option(names = "--eta-u", description = "η_u")
        Double etaU;

        @Option(names = "--eta-w", description = "η_W")
        Double etaW;

        @Option(names = "--y", defaultValue = "1", description = "target y (default ${DEFAULT-VALUE})")
        double y;

        @Option(names = "--seed", defaultValue = "0", description = "init seed (default ${DEFAULT-VALUE})")
        long seed;

        @Option(names = "--t-max", defaultValue = "-1", description = "end time (default 5τ)")
        double tMax;

        @Option(names = "--points", defaultValue = "21", description = "time points (default ${DEFAULT-VALUE})")
        int points;

        @Override
        public void run() {
            count("--points", points, 2, 1_000_000);
            require(
                    tMax == -1 || tMax > 0 && Double.isFinite(tMax),
                    "--t-max must be > 0, or -1 for 5τ (got " + tMax + ")");
            SolvableModel m;
            if (golden) {
                m = new SolvableModel(
                        new double[] {0.5, -0.3, 0.8},
                        new double[][] {{0.2, 0.1}, {-0.4, 0.3}, {0.1, -0.2}},
                        new double[] {1.0, 0.5},
                        1.0,
                        1.0,
                        1.0,
                        0.5);
            } else {
                count("--width", width, 1, 10_000_000);
                count("--input-dim", inputDim, 1, 10_000_000);
                require(
                        (long) width * inputDim <= 100_000_000L,
                        "--width × --input-dim must be at most 10^8 (got " + (long) width * inputDim + ")");
                atLeast("--sigma-u", sigmaU, 0, true);
                atLeast("--sigma-w", sigmaWeight, 0, true);
                finite("--kappa", kappa);
                atLeast("--eta", eta, 0, true);
                if (etaU != null) {
                    atLeast("--eta-u", etaU, 0, true);
                }
                if (etaW != null) {
                    atLeast("--eta-w", etaW, 0, true);
                }
                finite("--y", y);
                SplittableRandom r = new SplittableRandom(seed);
                double[] u = new double[width];
                double[][] w = new double[width][inputDim];
                for (int i = 0; i < width; i++) {
                    u[i] = sigmaU * r.nextGaussian();
                    for (int j = 0; j < inputDim; j++) {
                        w[i][j] = sigmaWeight * r.nextGaussian();
                    }
                }
                double[] x = new double[inputDim];
                x[0] = 1;
                double eu = etaU != null ? etaU : eta;
                double ew = etaW != null ? etaW : eta;
                require(eu > 0 && ew > 0 && kappa != 0, "need positive learning rates and κ ≠ 0");
                m = new SolvableModel(u, w, x, y, kappa, eu, ew);
            }
            require(m.bigP() > 0 && m.bigQ() > 0, "degenerate initialisation (p₀ = 0 or q₀ = 0): see Prop. 1");
            double end = tMax > 0 ? tMax : 5 * m.tau();
            System.out.printf(
                    Locale.ROOT,
                    "P=%.6g Q=%.6g C=%.6g  z+=%.6g z-=%.6g  τ=%.6g%n",
                    m.bigP(),
                    m.bigQ(),
                    m.bigC(),
                    m.zPlus(),
                    m.zMinus(),
                    m.tau());
            System.out.printf(
                    Locale.ROOT,
                    "f0=%.6g  ζ0=%.6g → ζ∞=%.6g  Θ0=%.6g → Θ∞=%.6g (relative change %.4g)%n",
                    m.initialOutput(),
                    m.alignment(0),
                    m.finalAlignment(),
                    m.ntk(0),
                    m.ntk(Double.POSITIVE_INFINITY),
                    m.relativeNtkChange());
            String[] header = {"t", "f", "ntk", "zeta", "z"};
            List<double[]> rows = new ArrayList<>();
            for (int i = 0; i < points; i++) {
                double t = end * i / (points - 1);
                rows.add(new double[] {t, m.output(t), m.ntk(t), m.alignment(t), m.z(t)});
            }
            finiteRows(
                    "solvable",
                    rows,
                    "--sigma-u " + sigmaU + ", --sigma-w " + sigmaWeight + ", --kappa " + kappa
                            + ", --eta " + eta + (etaU != null ? ", --eta-u " + etaU : "")
                            + (etaW != null ? ", --eta-w " + etaW : "")
                            + ", --y " + y + ", --t-max " + tMax);
            TheoryOutput o = parent.output();
            o.print(header, rows);
            o.csv("solvable", header, rows);
            o.plot("solvable", "Solvable model trajectory", header, rows, 0, new int[] {1, 2, 3}, false);
        }
    }

    @Command(
            name = "phase",
            mixinStandardHelpOptions = true,
            description = {
                "Xu & Ziyin 2024 phase (frozen/unstable/kernel/feature learning) from scaling exponents.",
                "Without exponents prints Table 1 (NTK, mean field, Xavier, Kaiming, lazy × plain, Cor. 1–3).",
                "Example: ntk4j theory phase --cd 1 --ckappa -0.5 --ceta 0 --su 0 --sw 0"
            })
    static final class Phase implements Runnable {
        @ParentCommand
        TheoryCommand parent;

        @Option(names = "--cd", description = "width exponent c_d")
        Double cd;

        @Option(names = "--ckappa", defaultValue = "0", description = "output-multiplier exponent c_κ")
        double ckappa;

        @Option(names = "--ceta", defaultValue = "0", description = "learning-rate exponent (both layers)")
        double ceta;

        @Option(names = "--cu", description = "η_u exponent (overrides --ceta)")
        Double cu;

        @Option(names = "--cw", description = "η_W exponent (overrides --ceta)")
        Double cw;

        @Option(names = "--su", defaultValue = "0", description = "σ_u² exponent s_u")
        double su;

        @Option(names = "--sw", defaultValue = "0", description = "σ_W² exponent s_W")
        double sw;

        @Option(names = "--zero-output", description = "initial output is exactly zero (lazy training)")
        boolean zeroOutput;

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            String[] options = {"--cd", "--ckappa", "--ceta", "--cu", "--cw", "--su", "--sw"};
            Double[] values = {cd, ckappa, ceta, cu, cw, su, sw};
            for (int i = 0; i < options.length; i++) {
                if (values[i] != null) {
                    finite(options[i], values[i]);
                }
            }
            if (cd == null) {
                for (int i = 1; i < options.length; i++) {
                    boolean given = spec.commandLine().getParseResult() != null
                            && spec.commandLine().getParseResult().hasMatchedOption(options[i]);
                    require(!given, options[i] + " needs --cd (without --cd the command prints Table 1)");
                }
                require(!zeroOutput, "--zero-output needs --cd (without --cd the command prints Table 1)");
            }
            if (cd != null) {
                PhaseClassifier.Exponents e = new PhaseClassifier.Exponents(
                        cd, ckappa, cu != null ? cu : ceta, cw != null ? cw : ceta, su, sw, zeroOutput);
                require(
                        Double.isFinite(PhaseClassifier.t1(e)) && Double.isFinite(PhaseClassifier.t2(e)),
                        "exponents this large give no finite t1, t2 (--cd " + cd + ", --ckappa " + ckappa + ", --ceta "
                                + ceta + ", --su " + su + ", --sw " + sw + ")");
                System.out.printf(
                        Locale.ROOT,
                        "t1=%s t2=%s phase=%s%n",
                        TheoryOutput.fmt(PhaseClassifier.t1(e)),
                        TheoryOutput.fmt(PhaseClassifier.t2(e)),
                        PhaseClassifier.classify(e));
                return;
            }
            String[] header = {"column", "setting", "c_kappa", "c_eta", "t1", "t2", "phase"};
            List<String[]> table = new ArrayList<>();
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
                    table.add(new String[] {
                        entry.getKey(),
                        names[i],
                        TheoryOutput.fmt(e.cKappa()),
                        TheoryOutput.fmt(e.cU()),
                        TheoryOutput.fmt(PhaseClassifier.t1(e)),
                        TheoryOutput.fmt(PhaseClassifier.t2(e)),
                        ph.name().toLowerCase(Locale.ROOT)
                    });
                    csvRows.add(new double[] {
                        col, i, e.cKappa(), e.cU(), PhaseClassifier.t1(e), PhaseClassifier.t2(e), ph.ordinal()
                    });
                }
                col++;
            }
            StringBuilder sb = new StringBuilder();
            for (String h : header) {
                sb.append(String.format(Locale.ROOT, "%-12s", h));
            }
            System.out.println(sb);
            for (String[] r : table) {
                sb.setLength(0);
                for (String v : r) {
                    sb.append(String.format(Locale.ROOT, "%-12s", v));
                }
                System.out.println(sb);
            }
            parent.output()
                    .csv(
                            "phase",
                            new String[] {
                                "column_index",
                                "setting_index",
                                "c_kappa",
                                "c_eta",
                                "t1",
                                "t2",
                                "phase_ordinal(0=frozen,1=unstable,2=kernel,3=feature_learning)"
                            },
                            csvRows);
        }
    }
}
