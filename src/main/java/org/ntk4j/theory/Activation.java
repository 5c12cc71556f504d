package org.ntk4j.theory;

import java.util.function.DoubleUnaryOperator;
import org.ntk4j.spec.ActivationKind;

/**
 * A pointwise nonlinearity φ together with the two Gaussian expectations that drive every
 * infinite-width recursion (Seleznova, NTK thesis, eqs. (2.27)–(2.31); Lou, Mingard &amp; Hayou, Equilibrium
 * Hypothesis, App. A.1):
 *
 * <pre>
 *   V(q11,q12,q22) = E[φ(u) φ(v)],    V'(q11,q12,q22) = E[φ'(u) φ'(v)],
 *   (u,v) ~ N(0, [[q11, q12], [q12, q22]]).
 * </pre>
 *
 * Closed forms: ReLU (arc-cosine kernels of degree 1 and 0), erf (Williams 1997, in the a = variance,
 * b = covariance form), identity. Any other φ (tanh included) uses error-controlled adaptive Gauss–Kronrod quadrature
 * on the conditional form of the bivariate Gaussian ({@link GaussianExpectation}; absolute error ≲ 1e-12). A fixed
 * Gauss–Hermite rule is still available as {@link #gaussHermite} for comparisons, but it is not accurate for tanh at
 * large variance (a 64-point rule puts the depth-2 tanh NTK 9.4% off at σ_w = 2, σ_b = 0.5).
 */
public abstract class Activation {
    private final String name;

    protected Activation(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    public abstract double apply(double x);

    public abstract double derivative(double x);

    /** E[φ(u)φ(v)] for (u,v) ~ N(0, [[q11,q12],[q12,q22]]). */
    public abstract double expectedProduct(double q11, double q12, double q22);

    /** E[φ'(u)φ'(v)] for (u,v) ~ N(0, [[q11,q12],[q12,q22]]). */
    public abstract double expectedDerivativeProduct(double q11, double q12, double q22);

    /**
     * {E[φ(u)φ(v)], E[φ'(u)φ'(v)]} together (quadrature activations share one set of nodes between the two).
     */
    public double[] expectedProducts(double q11, double q12, double q22) {
        return new double[] {expectedProduct(q11, q12, q22), expectedDerivativeProduct(q11, q12, q22)};
    }

    /** True when the expectations are exact closed forms (not quadrature). */
    public abstract boolean closedForm();

    @Override
    public String toString() {
        return name;
    }

    /** Rectified linear unit; arc-cosine closed forms (Cho &amp; Saul 2009). */
    public static final Activation RELU = new Activation("relu") {
        @Override
        public double apply(double x) {
            return x > 0 ? x : 0;
        }

        @Override
        public double derivative(double x) {
            return x > 0 ? 1 : 0;
        }

        /** √(q11 q22)/(2π) · (√(1−c²) + (π − arccos c) c). */
        @Override
        public double expectedProduct(double q11, double q12, double q22) {
            double n = Math.sqrt(q11 * q22);
            if (n == 0) {
                return 0;
            }
            double c = GaussHermite.clamp(q12 / n);
            return n / (2 * Math.PI) * (Math.sqrt(1 - c * c) + (Math.PI - Math.acos(c)) * c);
        }

        /** (π − arccos c)/(2π). */
        @Override
        public double expectedDerivativeProduct(double q11, double q12, double q22) {
            double n = Math.sqrt(q11 * q22);
            if (n == 0) {
                return 0.25;
            }
            double c = GaussHermite.clamp(q12 / n);
            return (Math.PI - Math.acos(c)) / (2 * Math.PI);
        }

        @Override
        public boolean closedForm() {
            return true;
        }
    };

    /** φ = erf (the unscaled error function); closed forms of Williams (1997). */
    public static final Activation ERF = new Activation("erf") {
        @Override
        public double apply(double x) {
            return Special.erf(x);
        }

        @Override
        public double derivative(double x) {
            return 2 / Math.sqrt(Math.PI) * Math.exp(-x * x);
        }

        /** (2/π) arcsin(2 q12 / √((1+2q11)(1+2q22))). */
        @Override
        public double expectedProduct(double q11, double q12, double q22) {
            return 2 / Math.PI * Math.asin(GaussHermite.clamp(2 * q12 / Math.sqrt((1 + 2 * q11) * (1 + 2 * q22))));
        }

        /** (4/π) / √((1+2q11)(1+2q22) − 4 q12²). */
        @Override
        public double expectedDerivativeProduct(double q11, double q12, double q22) {
            return 4 / Math.PI / Math.sqrt((1 + 2 * q11) * (1 + 2 * q22) - 4 * q12 * q12);
        }

        @Override
        public boolean closedForm() {
            return true;
        }
    };

    /** Identity (deep linear networks): V = q12, V' = 1. */
    public static final Activation LINEAR = new Activation("linear") {
        @Override
        public double apply(double x) {
            return x;
        }

        @Override
        public double derivative(double x) {
            return 1;
        }

        @Override
        public double expectedProduct(double q11, double q12, double q22) {
            return q12;
        }

        @Override
        public double expectedDerivativeProduct(double q11, double q12, double q22) {
            return 1;
        }

        @Override
        public boolean closedForm() {
            return true;
        }
    };

    /**
     * tanh (no closed form exists) by adaptive quadrature ({@link GaussianExpectation}); tanh' = sech² is
     * evaluated as 4e/(1+e)², e = exp(−2|x|), which neither overflows nor cancels.
     */
    public static final Activation TANH =
            numerical("tanh", Math::tanh, Activation::sech2, new GaussianExpectation.PhiPair() {
                @Override
                public void eval(double x, double[] out) {
                    // one expm1 for both: em = e^{−2|x|} − 1, tanh|x| = −em/(2 + em), sech² x = 4e/(1 + e)²
                    double em = Math.expm1(-2 * Math.abs(x));
                    double t = -em / (2 + em);
                    out[0] = x < 0 ? -t : t;
                    double e = em + 1;
                    double d = 1 + e;
                    out[1] = 4 * e / (d * d);
                }

                @Override
                public boolean odd() {
                    return true;
                }
            });

    static double sech2(double x) {
        double e = Math.exp(-2 * Math.abs(x));
        double d = 1 + e;
        return 4 * e / (d * d);
    }

    /**
     * Any activation, its expectations by error-controlled adaptive Gauss–Kronrod quadrature of the
     * conditional form of the bivariate Gaussian ({@link GaussianExpectation}; throws rather than return a
     * value that missed the tolerance). Expectations are cached per (q11, q12, q22) for repeated arguments.
     */
    public static Activation numerical(String name, DoubleUnaryOperator phi, DoubleUnaryOperator dphi) {
        return numerical(name, phi, dphi, (x, out) -> {
            out[0] = phi.applyAsDouble(x);
            out[1] = dphi.applyAsDouble(x);
        });
    }

    private static Activation numerical(
            String name, DoubleUnaryOperator phi, DoubleUnaryOperator dphi, GaussianExpectation.PhiPair pair) {
        return new Activation(name) {
            private final java.util.Map<Key, double[]> cache =
                    java.util.Collections.synchronizedMap(new java.util.LinkedHashMap<>(256, 0.75f, true) {
                        @Override
                        protected boolean removeEldestEntry(java.util.Map.Entry<Key, double[]> e) {
                            return size() > 100_000;
                        }
                    });

            @Override
            public double apply(double x) {
                return phi.applyAsDouble(x);
            }

            @Override
            public double derivative(double x) {
                return dphi.applyAsDouble(x);
            }

            @Override
            public double[] expectedProducts(double q11, double q12, double q22) {
                Key key = new Key(q11, q12, q22);
                double[] v = cache.get(key);
                if (v == null) {
                    v = GaussianExpectation.expectedProducts(pair, q11, q12, q22);
                    cache.put(key, v);
                }
                return v.clone();
            }

            @Override
            public double expectedProduct(double q11, double q12, double q22) {
                return expectedProducts(q11, q12, q22)[0];
            }

            @Override
            public double expectedDerivativeProduct(double q11, double q12, double q22) {
                return expectedProducts(q11, q12, q22)[1];
            }

            @Override
            public boolean closedForm() {
                return false;
            }
        };
    }

    private record Key(double q11, double q12, double q22) {}

    /**
     * Any activation, its expectations by a fixed {@code order}-point Gauss–Hermite product rule (order²
     * function evaluations). No error control: accurate only when φ is smooth on the scale of the variance
     * (e.g. erf, for comparisons); for tanh at q ≫ 1 it is not (see the class comment) — use
     * {@link #numerical(String, DoubleUnaryOperator, DoubleUnaryOperator)}.
     */
    public static Activation gaussHermite(String name, DoubleUnaryOperator phi, DoubleUnaryOperator dphi, int order) {
        GaussHermite gh = new GaussHermite(order);
        return new Activation(name) {
            @Override
            public double apply(double x) {
                return phi.applyAsDouble(x);
            }

            @Override
            public double derivative(double x) {
                return dphi.applyAsDouble(x);
            }

            @Override
            public double expectedProduct(double q11, double q12, double q22) {
                return gh.expect2(q11, q12, q22, (u, v) -> phi.applyAsDouble(u) * phi.applyAsDouble(v));
            }

            @Override
            public double expectedDerivativeProduct(double q11, double q12, double q22) {
                return gh.expect2(q11, q12, q22, (u, v) -> dphi.applyAsDouble(u) * dphi.applyAsDouble(v));
            }

            @Override
            public boolean closedForm() {
                return false;
            }
        };
    }

    /** The closed forms and quadratures of {@code kind}: relu, erf, tanh and linear; quadratic has none here. */
    public static Activation of(ActivationKind kind) {
        return switch (kind) {
            case RELU -> RELU;
            case ERF -> ERF;
            case TANH -> TANH;
            case LINEAR -> LINEAR;
            default -> throw new org.ntk4j.UserException(
                    "unknown activation '" + kind + "': expected relu, erf, tanh or linear");
        };
    }

    /** relu, erf, tanh, linear (or identity) by name (case-insensitive); anything else is a user mistake. */
    public static Activation byName(String name) {
        ActivationKind kind = "identity".equalsIgnoreCase(name) ? ActivationKind.LINEAR : ActivationKind.of(name);
        if (kind == null || kind == ActivationKind.QUADRATIC) {
            throw new org.ntk4j.UserException("unknown activation '" + name + "': expected relu, erf, tanh or linear");
        }
        return of(kind);
    }
}
