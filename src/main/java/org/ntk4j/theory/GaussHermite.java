package org.ntk4j.theory;

import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;

/**
 * Gauss–Hermite quadrature for expectations under the standard normal law,
 * {@code E[h(Z)] ≈ Σ_i w_i h(z_i)}, Z ~ N(0,1) (probabilists' weight e^{-z²/2}/√(2π), weights sum to 1).
 *
 * <p>Nodes and weights come from the Golub–Welsch algorithm: the nodes are the eigenvalues of the
 * symmetric Jacobi matrix of the probabilists' Hermite polynomials (off-diagonal entries √k), and each
 * weight is the squared first component of the normalised eigenvector. An n-point rule integrates
 * polynomials of degree ≤ 2n−1 exactly; for smooth integrands (tanh, erf, sigmoid, GELU) the error decays
 * faster than any power of n, for kinked ones (ReLU) only algebraically.
 */
public final class GaussHermite {
    private final double[] nodes;
    private final double[] weights;

    /** Builds an {@code n}-point rule (n ≥ 1). */
    public GaussHermite(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("Gauss–Hermite order must be >= 1, got " + n);
        }
        DMatrixRMaj jacobi = new DMatrixRMaj(n, n);
        for (int k = 1; k < n; k++) {
            double b = Math.sqrt(k);
            jacobi.set(k - 1, k, b);
            jacobi.set(k, k - 1, b);
        }
        EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(n, true, true);
        if (!eig.decompose(jacobi)) {
            throw new IllegalStateException("Golub–Welsch eigendecomposition failed for n=" + n);
        }
        nodes = new double[n];
        weights = new double[n];
        double total = 0;
        for (int i = 0; i < n; i++) {
            nodes[i] = eig.getEigenvalue(i).getReal();
            DMatrixRMaj v = eig.getEigenVector(i);
            double norm2 = 0;
            for (int j = 0; j < n; j++) {
                norm2 += v.get(j) * v.get(j);
            }
            weights[i] = v.get(0) * v.get(0) / norm2;
            total += weights[i];
        }
        for (int i = 0; i < n; i++) {
            weights[i] /= total;
        }
    }

    public int order() {
        return nodes.length;
    }

    public double node(int i) {
        return nodes[i];
    }

    public double weight(int i) {
        return weights[i];
    }

    /** E[h(Z)], Z ~ N(0,1). */
    public double expect(java.util.function.DoubleUnaryOperator h) {
        double s = 0;
        for (int i = 0; i < nodes.length; i++) {
            s += weights[i] * h.applyAsDouble(nodes[i]);
        }
        return s;
    }

    /**
     * E[h(U,V)] for a centred bivariate Gaussian with Var U = q11, Var V = q22, Cov(U,V) = q12, by the
     * product rule on U = √q11 Z1, V = √q22 (c Z1 + √(1−c²) Z2), c = q12/√(q11 q22).
     */
    public double expect2(double q11, double q12, double q22, java.util.function.DoubleBinaryOperator h) {
        double s1 = Math.sqrt(Math.max(q11, 0));
        double s2 = Math.sqrt(Math.max(q22, 0));
        double c = (s1 > 0 && s2 > 0) ? clamp(q12 / (s1 * s2)) : 0;
        double sc = Math.sqrt(Math.max(0, 1 - c * c));
        double s = 0;
        for (int i = 0; i < nodes.length; i++) {
            double u = s1 * nodes[i];
            double inner = 0;
            for (int j = 0; j < nodes.length; j++) {
                inner += weights[j] * h.applyAsDouble(u, s2 * (c * nodes[i] + sc * nodes[j]));
            }
            s += weights[i] * inner;
        }
        return s;
    }

    static double clamp(double c) {
        return Math.max(-1, Math.min(1, c));
    }
}
