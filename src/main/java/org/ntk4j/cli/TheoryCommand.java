package org.ntk4j.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.ntk4j.UserException;
import org.ntk4j.io.Csv;
import org.ntk4j.spec.Parameterization;
import org.ntk4j.theory.Activation;
import org.ntk4j.theory.MlpKernel;
import org.ntk4j.theory.PhaseClassifier;
import org.ntk4j.theory.Predictions;
import org.ntk4j.theory.SolvableModel;
import org.ntk4j.theory.Table;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ntk4j theory ...}: closed-form predictions ({@link Predictions}) as tables, CSV and PNG; each sub-command
 * parses its options, asks {@link Predictions} for the table and shows it ({@link TheoryOutput}).
 */
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
                option + " must be a finite number " + (open ? "> " : ">= ") + org.ntk4j.util.Numbers.compact(lo)
                        + " (got " + v + ")");
    }

    /** A real option: finite. */
    static void finite(String option, double v) {
        require(Double.isFinite(v), option + " must be a finite number (got " + v + ")");
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
            parent.output()
                    .show(Predictions.ntkVsAngle(mlp(), angles)
                            .requireFinite("--sigma-w " + sigmaW + ", --sigma-b " + sigmaB + ", --depth " + depth));
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

        Predictions.Mlp mlp() {
            Parameterization p;
            try {
                p = Parameterization.valueOf(parameterization.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new UserException("--parameterization must be ntk or standard, got '" + parameterization + "'");
            }
            return new Predictions.Mlp(Activation.byName(activation), depth, sigmaW, sigmaB, p, width);
        }

        void matrices() {
            MlpKernel k = mlp().kernel();
            double[][] x = Csv.read(inputs);
            MlpKernel.Kernels train = k.kernels(x);
            TheoryOutput o = parent.output();
            System.out.println(Predictions.trainSummary(x, train));
            o.csv(Predictions.matrix("nngp_train", train.nngp()));
            o.csv(Predictions.matrix("ntk_train", train.ntk()));
            if (testInputs == null) {
                require(targets == null, "--targets needs --test-inputs");
                return;
            }
            double[][] xs = Csv.read(testInputs);
            MlpKernel.Kernels cross = k.kernels(xs, x);
            o.csv(Predictions.matrix("ntk_test_train", cross.ntk()));
            if (targets == null) {
                return;
            }
            double[][] y = Csv.read(targets);
            double t = timeValue();
            Table pred = Predictions.regression(train, cross, y, t);
            List<double[]> rows = pred.rows();
            o.print(pred.header(), rows.subList(0, Math.min(rows.size(), 10)));
            if (rows.size() > 10) {
                System.out.println("... (" + rows.size() + " test predictions)");
            }
            o.csv(pred);
        }
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
            parent.output()
                    .show(Predictions.signal(Activation.byName(activation), sigmaW, sigmaB, depth, q0, c0)
                            .requireFinite("--sigma-w " + sigmaW + ", --sigma-b " + sigmaB + ", --q0 " + q0));
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
            parent.output()
                    .show(Predictions.dispersion(width, inputDim, depths, sigmaW2, limit, rho)
                            .requireFinite("--sigma-w2 " + java.util.Arrays.toString(sigmaW2) + ", --depths "
                                    + java.util.Arrays.toString(depths)));
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
            parent.output()
                    .show(Predictions.equilibrium(depths, epsilon, constant)
                            .requireFinite("--epsilon " + epsilon + ", --constant " + constant));
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
            parent.output()
                    .show(Predictions.linear(depth, s, c0, tMax, points, rank)
                            .requireFinite("--s " + s + ", --c0 " + c0 + ", --t-max " + tMax));
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
            if (!golden) {
                checkInit();
            }
            SolvableModel m = golden
                    ? Predictions.goldenSolvable()
                    : new Predictions.SolvableInit(
                                    width,
                                    inputDim,
                                    sigmaU,
                                    sigmaWeight,
                                    kappa,
                                    etaU != null ? etaU : eta,
                                    etaW != null ? etaW : eta,
                                    y,
                                    seed)
                            .model();
            parent.output()
                    .show(Predictions.solvable(m, tMax, points)
                            .requireFinite("--sigma-u " + sigmaU + ", --sigma-w " + sigmaWeight + ", --kappa " + kappa
                                    + ", --eta " + eta + (etaU != null ? ", --eta-u " + etaU : "")
                                    + (etaW != null ? ", --eta-w " + etaW : "")
                                    + ", --y " + y + ", --t-max " + tMax));
        }

        /** The options of a drawn initialisation, before drawing {@code width × input-dim} weights. */
        private void checkInit() {
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
            checkExponents();
            if (cd != null) {
                PhaseClassifier.Exponents e = new PhaseClassifier.Exponents(
                        cd, ckappa, cu != null ? cu : ceta, cw != null ? cw : ceta, su, sw, zeroOutput);
                System.out.println(Predictions.phase(
                        e,
                        "--cd " + cd + ", --ckappa " + ckappa + ", --ceta " + ceta + ", --su " + su + ", --sw " + sw));
                return;
            }
            Predictions.PhaseTable t = Predictions.phaseTable();
            StringBuilder sb = new StringBuilder();
            for (String[] r : t.text()) {
                sb.setLength(0);
                for (String v : r) {
                    sb.append(String.format(Locale.ROOT, "%-12s", v));
                }
                System.out.println(sb);
            }
            parent.output().csv(t.numbers());
        }

        /** Exponents finite; without --cd (Table 1) no other exponent is given. */
        private void checkExponents() {
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
        }
    }
}
