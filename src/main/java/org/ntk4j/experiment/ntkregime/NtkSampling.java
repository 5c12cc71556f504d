package org.ntk4j.experiment.ntkregime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.SplittableRandom;
import java.util.function.ToDoubleFunction;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.spec.Arch;
import org.ntk4j.spec.InitializerKind;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Parameterization;
import org.ntk4j.theory.Activation;
import org.ntk4j.theory.MonteCarloNtk;

/**
 * Sampling the NTK of fully connected networks over initialisations, shared by the dispersion studies of Seleznova
 * &amp; Kutyniok ({@link NtkDispersion}, {@link DispersionLimits}, {@link NtkChangePhase}): constant-width MLPs in the
 * standard parameterisation (W ~ N(0, σ_w²/fan_in), b ~ N(0, σ_b²), biases trained even at σ_b = 0), one linear
 * output, unit-norm inputs. Two samplers of the same law: ntk4j's kernel engine (DJL, float64; the production path)
 * and the plain-Java oracle {@link MonteCarloNtk} (the backprop identity, eq. (19) of "NTK Beyond the Infinite-Width
 * Limit"), which is fast enough for the depths up to M/2 of its Figs 1–3. Also the statistics: mean, bootstrap
 * standard errors of the dispersion E[Θ²]/E[Θ]² (leave-one-out estimator, App. C.3 with the 1/N prefactor).
 */
final class NtkSampling {
    private NtkSampling() {}

    /** A Gaussian input normalised to ‖x‖ = 1 (the thesis' normalisation). */
    static double[] unitInput(int d, long seed) {
        SplittableRandom r = new SplittableRandom(seed ^ 0x9E3779B97F4A7C15L);
        double[] x = new double[d];
        for (int i = 0; i < d; i++) {
            x[i] = r.nextGaussian();
        }
        return normalise(x);
    }

    /**
     * A second unit input x̃ = ρ x + √(1 − ρ²) y with y ⟂ x a unit Gaussian direction, so ⟨x, x̃⟩ = ρ (the inputs of
     * §3.2 Fig. 3).
     */
    static double[] partner(double[] x, double rho, long seed) {
        double[] y = unitInput(x.length, seed + 0x51ED27L);
        double d = 0;
        for (int i = 0; i < x.length; i++) {
            d += x[i] * y[i];
        }
        for (int i = 0; i < x.length; i++) {
            y[i] -= d * x[i];
        }
        normalise(y);
        double[] z = new double[x.length];
        double c = Math.sqrt(Math.max(0, 1 - rho * rho));
        for (int i = 0; i < x.length; i++) {
            z[i] = rho * x[i] + c * y[i];
        }
        return z;
    }

    private static double[] normalise(double[] x) {
        double n = 0;
        for (double v : x) {
            n += v * v;
        }
        double s = Math.sqrt(n);
        for (int i = 0; i < x.length; i++) {
            x[i] /= s;
        }
        return x;
    }

    /** The MLP as a model spec: depth weight layers of width {@code width}, one output. */
    static ModelSpec mlp(int inputDim, int depth, int width, String activation, double sigmaW2, double sigmaB2) {
        int[] widths = new int[depth - 1];
        java.util.Arrays.fill(widths, width);
        return ModelSpec.builder()
                .name(activation + "-L" + depth)
                .arch(Arch.MLP)
                .input(new int[] {inputDim})
                .widths(widths)
                .outputs(1)
                .activation(activation)
                .sigmaW(Math.sqrt(sigmaW2))
                .sigmaB(Math.sqrt(sigmaB2))
                .initializer(InitializerKind.GAUSSIAN)
                .validate("ntk-sampling");
    }

    /** Θ(x, x) of {@code inits} networks built by the kernel engine in float64, seeds seed..seed+K−1. */
    static double[] engineDiagonal(ModelSpec spec, double[] x, int inits, long seed, NDManager manager) {
        double[] theta = new double[inits];
        for (int k = 0; k < inits; k++) {
            try (NDManager m = manager.newSubManager();
                    Network net = Network.build(spec, seed + k, m, DataType.FLOAT64)) {
                NDArray in =
                        m.create(x, new Shape(1, x.length)).duplicate(); // native copy: no Java buffer kept aliased
                theta[k] = Ntk.of(net).mode(Mode.TRACE).compute(in).total().get(0, 0);
            }
        }
        return theta;
    }

    /**
     * {Θ(x, x), Θ(x, x̃)} (x̃ may be null: the second entry is then NaN) of {@code inits} oracle networks, seeds
     * seed..seed+K−1 (a different stream from the engine's: the same law, not the same draws).
     */
    static double[][] oracle(
            int width,
            int depth,
            Activation activation,
            double sigmaW2,
            double sigmaB2,
            double[] x,
            double[] xt,
            int inits,
            long seed) {
        int[] widths = new int[depth + 1];
        java.util.Arrays.fill(widths, width);
        widths[0] = x.length;
        widths[depth] = 1;
        double[][] out = new double[2][inits];
        for (int k = 0; k < inits; k++) {
            MonteCarloNtk net = new MonteCarloNtk(
                    widths,
                    activation,
                    Parameterization.STANDARD,
                    Math.sqrt(sigmaW2),
                    Math.sqrt(sigmaB2),
                    true,
                    seed + k);
            MonteCarloNtk.Pass p = net.pass(x);
            out[0][k] = net.ntk(p, p);
            out[1][k] = xt == null ? Double.NaN : net.ntk(p, net.pass(xt));
        }
        return out;
    }

    static double mean(double[] v) {
        double s = 0;
        for (double e : v) {
            s += e;
        }
        return s / v.length;
    }

    static double variance(double[] v) {
        double m = mean(v);
        double s = 0;
        for (double e : v) {
            s += (e - m) * (e - m);
        }
        return s / (v.length - 1);
    }

    static double sd(double[] v) {
        return Math.sqrt(variance(v));
    }

    /** Bootstrap standard errors {SE(r̂), SE(mean)} from {@code b} resamples. */
    static double[] bootstrap(double[] theta, int b, long seed) {
        return new double[] {
            bootstrap(theta, b, seed, org.ntk4j.theory.FiniteWidthNtkMoments::dispersionLeaveOneOut),
            bootstrap(theta, b, seed, NtkSampling::mean)
        };
    }

    /** Bootstrap standard error of any statistic of the samples. */
    static double bootstrap(double[] theta, int b, long seed, ToDoubleFunction<double[]> stat) {
        SplittableRandom rng = new SplittableRandom(seed);
        double[] s = new double[b];
        double[] res = new double[theta.length];
        for (int k = 0; k < b; k++) {
            for (int i = 0; i < res.length; i++) {
                res[i] = theta[rng.nextInt(theta.length)];
            }
            s[k] = stat.applyAsDouble(res);
        }
        return sd(s);
    }
}
