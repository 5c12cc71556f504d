package org.ntk4j.theory;

import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;

/**
 * Infinite-width (linearised) training dynamics under gradient flow on the squared loss
 * ℒ = ½ Σ_i ‖f(x_i) − y_i‖², learning rate η (Seleznova, NTK thesis, eqs. (2.59)–(2.61), and
 * Seleznova &amp; Kutyniok, Can We Trust NTK Theory?, eq. (10), with the normalisation made explicit: the thesis's
 * (2.60) drops the 1/N of (2.59); Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, eq. (1)):
 * <pre>
 *   ḟ(X) = −η Θ(X,X) (f(X) − Y)
 *   f_t(X)  = Y + e^{−ηΘt} (f₀(X) − Y)
 *   f_t(x*) = f₀(x*) + Θ(x*,X) Θ⁻¹ (I − e^{−ηΘt}) (Y − f₀(X))
 *   t → ∞:   f_∞(x*) = f₀(x*) + Θ(x*,X) Θ⁺ (Y − f₀(X))
 * </pre>
 * Computed from the eigendecomposition Θ = V Λ Vᵀ: Θ⁻¹(I − e^{−ηΘt}) = V diag((1 − e^{−ηλt})/λ) Vᵀ, whose
 * λ → 0 limit ηt keeps the formula finite for singular Θ; at t = ∞ eigenvalues below
 * {@code rcond·λ_max} are dropped (pseudo-inverse). For a mean-loss ℒ = (1/2N)Σ use η/N. With the NNGP in
 * place of Θ and t = ∞ this is the NNGP posterior mean. The mean prediction over initialisations in the
 * NTK regime is the f₀ = 0 case.
 */
public final class KernelRegression {
    private final DMatrixRMaj v;
    private final double[] lambda;
    private final double rcond;

    /** Eigendecomposes the symmetric train×train kernel {@code thetaTrain} (N × N). */
    public KernelRegression(DMatrixRMaj thetaTrain) {
        this(thetaTrain, 1e-12);
    }

    public KernelRegression(DMatrixRMaj thetaTrain, double rcond) {
        int n = thetaTrain.numRows;
        if (thetaTrain.numCols != n) {
            throw new org.ntk4j.UserException("train kernel must be square, got " + n + "x" + thetaTrain.numCols);
        }
        EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(n, true, true);
        if (!eig.decompose(thetaTrain.copy())) {
            throw new org.ntk4j.UserException(
                    "the eigendecomposition of the train kernel failed (entries too large, or not a symmetric kernel)");
        }
        v = new DMatrixRMaj(n, n);
        lambda = new double[n];
        for (int i = 0; i < n; i++) {
            lambda[i] = eig.getEigenvalue(i).getReal();
            DMatrixRMaj col = eig.getEigenVector(i);
            double norm = Math.sqrt(CommonOps_DDRM.dot(col, col));
            for (int r = 0; r < n; r++) {
                v.set(r, i, col.get(r) / norm);
            }
        }
        this.rcond = rcond;
    }

    /** Eigenvalues of Θ(X,X), in the order of the decomposition. */
    public double[] eigenvalues() {
        return lambda.clone();
    }

    /** Orthonormal eigenvectors (columns). */
    public DMatrixRMaj eigenvectors() {
        return v.copy();
    }

    private double maxAbs() {
        double m = 0;
        for (double l : lambda) {
            m = Math.max(m, Math.abs(l));
        }
        return m;
    }

    /** V diag(g(λ)) Vᵀ r. */
    private DMatrixRMaj spectral(java.util.function.DoubleUnaryOperator g, DMatrixRMaj r) {
        DMatrixRMaj proj = new DMatrixRMaj(v.numCols, r.numCols);
        CommonOps_DDRM.multTransA(v, r, proj);
        for (int i = 0; i < lambda.length; i++) {
            double gi = g.applyAsDouble(lambda[i]);
            for (int c = 0; c < r.numCols; c++) {
                proj.set(i, c, proj.get(i, c) * gi);
            }
        }
        DMatrixRMaj out = new DMatrixRMaj(v.numRows, r.numCols);
        CommonOps_DDRM.mult(v, proj, out);
        return out;
    }

    private java.util.function.DoubleUnaryOperator filter(double eta, double t) {
        if (Double.isInfinite(t)) {
            double cut = rcond * maxAbs();
            return l -> Math.abs(l) <= cut ? 0 : 1 / l;
        }
        double s = eta * t;
        return l -> {
            double x = l * s;
            return Math.abs(x) < 1e-8 ? s * (1 - x / 2) : -Math.expm1(-x) / l;
        };
    }

    /** Train outputs f_t(X) = Y + e^{−ηΘt}(f₀ − Y); {@code f0} may be null (zero). */
    public DMatrixRMaj trainPrediction(DMatrixRMaj y, DMatrixRMaj f0, double eta, double t) {
        DMatrixRMaj r = residual(y, f0);
        DMatrixRMaj decayed = Double.isInfinite(t)
                ? spectral(l -> Math.abs(l) <= rcond * maxAbs() ? 1 : 0, r)
                : spectral(l -> Math.exp(-eta * l * t), r);
        DMatrixRMaj out = y.copy();
        CommonOps_DDRM.addEquals(out, decayed);
        return out;
    }

    /**
     * Test outputs f_t(x*) = f₀(x*) + Θ(x*,X) Θ⁻¹(I − e^{−ηΘt})(Y − f₀(X)); {@code thetaTestTrain} is
     * N* × N; {@code f0Test}, {@code f0Train} may be null. {@code t} may be {@link Double#POSITIVE_INFINITY}.
     */
    public DMatrixRMaj testPrediction(
            DMatrixRMaj thetaTestTrain, DMatrixRMaj y, DMatrixRMaj f0Train, DMatrixRMaj f0Test, double eta, double t) {
        DMatrixRMaj r = residual(y, f0Train);
        CommonOps_DDRM.changeSign(r);
        DMatrixRMaj coef = spectral(filter(eta, t), r);
        DMatrixRMaj out = new DMatrixRMaj(thetaTestTrain.numRows, y.numCols);
        CommonOps_DDRM.mult(thetaTestTrain, coef, out);
        if (f0Test != null) {
            CommonOps_DDRM.addEquals(out, f0Test);
        }
        return out;
    }

    /** f₀ − Y. */
    private static DMatrixRMaj residual(DMatrixRMaj y, DMatrixRMaj f0) {
        DMatrixRMaj r = f0 == null ? new DMatrixRMaj(y.numRows, y.numCols) : f0.copy();
        CommonOps_DDRM.subtractEquals(r, y);
        return r;
    }
}
