package org.ntk4j.theory;

import java.util.Locale;
import java.util.function.DoubleUnaryOperator;

/**
 * A pointwise nonlinearity φ together with the two Gaussian expectations that drive every
 * infinite-width recursion (seed 003 eqs. (2.27)–(2.31), notes/003.md §2.10; seed 000 App. A.1):
 *
 * <pre>
 *   V(q11,q12,q22) = E[φ(u) φ(v)],    V'(q11,q12,q22) = E[φ'(u) φ'(v)],
 *   (u,v) ~ N(0, [[q11, q12], [q12, q22]]).
 * </pre>
 *
 * Closed forms: ReLU (arc-cosine kernels of degree 1 and 0), erf (Williams 1997; notes/003.md §2.10
 * "erf closed forms", the a = variance, b = covariance form), identity. Any other φ uses a 2-D Gauss–Hermite
 * product rule ({@link GaussHermite#expect2}).
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

    /** True when the expectations are exact closed forms (not quadrature). */
    public abstract boolean closedForm();

    @Override
    public String toString() {
        return name;
    }

    /** Rectified linear unit; arc-cosine closed forms (Cho &amp; Saul 2009; notes/003.md §3.1 pseudo-code). */
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

    /** φ = erf (the unscaled error function); closed forms of Williams (1997), notes/003.md §2.10. */
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

    /** tanh by Gauss–Hermite quadrature (no closed form exists). */
    public static final Activation TANH = numerical("tanh", Math::tanh, x -> {
        double c = Math.cosh(x);
        return 1 / (c * c);
    }, 64);

    /**
     * Any activation, its expectations by an {@code order}-point Gauss–Hermite product rule (order² function
     * evaluations per expectation). Use order ≥ 40 for smooth φ.
     */
    public static Activation numerical(String name, DoubleUnaryOperator phi, DoubleUnaryOperator dphi, int order) {
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
                if (q11 == q12 && q12 == q22) {
                    // diagonal: the product rule collapses to the 1-D rule (same nodes, order instead of order²)
                    double s = Math.sqrt(Math.max(q11, 0));
                    return gh.expect(z -> {
                        double v = phi.applyAsDouble(s * z);
                        return v * v;
                    });
                }
                return gh.expect2(q11, q12, q22, (u, v) -> phi.applyAsDouble(u) * phi.applyAsDouble(v));
            }

            @Override
            public double expectedDerivativeProduct(double q11, double q12, double q22) {
                if (q11 == q12 && q12 == q22) {
                    double s = Math.sqrt(Math.max(q11, 0));
                    return gh.expect(z -> {
                        double v = dphi.applyAsDouble(s * z);
                        return v * v;
                    });
                }
                return gh.expect2(q11, q12, q22, (u, v) -> dphi.applyAsDouble(u) * dphi.applyAsDouble(v));
            }

            @Override
            public boolean closedForm() {
                return false;
            }
        };
    }

    /** relu, erf, tanh, linear (case-insensitive); anything else is a user mistake. */
    public static Activation byName(String name) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "relu":
                return RELU;
            case "erf":
                return ERF;
            case "tanh":
                return TANH;
            case "linear":
            case "identity":
                return LINEAR;
            default:
                throw new org.ntk4j.UserException("unknown activation '" + name + "': expected relu, erf, tanh or linear");
        }
    }
}
