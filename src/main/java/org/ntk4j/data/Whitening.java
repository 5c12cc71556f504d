package org.ntk4j.data;

import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.SingularOps_DDRM;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.SingularValueDecomposition_F64;
import org.ntk4j.UserException;

/**
 * SVD whitening and partial whitening fitted on a training matrix, applicable to new points
 * (Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, §5, Fig. 6, App. D.4).
 *
 * <p>With the training data as rows, X (n×d) = U S Vᵀ (thin SVD, singular values s_1 ≥ … ≥ s_m),
 * partial whitening with exponent γ is
 * <pre>  X_γ = c · U S^γ Vᵀ </pre>
 * γ = 0 whitens fully (all nonzero singular values equal), γ = 1 leaves the data unchanged (up to
 * c); equivalently the covariance eigenvalues λ_k become λ_k^γ up to scale. A point x (a row) is
 * mapped by the same linear map
 * <pre>  x ↦ c · x V S^{γ−1} Vᵀ </pre>
 * which sends every training row to its row of X_γ, since U S Vᵀ V S^{γ−1} Vᵀ = U S^γ Vᵀ.
 *
 * <p><b>Rank deficiency.</b> Only the r directions with s_k &gt; rcond·s_1 are kept (default
 * {@link #DEFAULT_RCOND}); V, S above mean the first r columns / values. Components of a point
 * outside the span of those r right singular vectors are mapped to 0 (for γ &lt; 1 they would be
 * amplified by s_k^{γ−1} → ∞). E.g. MNIST's always-zero pixels make rank(X) &lt; 784; the whitened
 * data then live in an r-dimensional subspace and X_0ᵀX_0 = c²·V_r V_rᵀ, a projector
 * (e.g. MNIST, whose always-zero pixels make rank(X) &lt; 784).
 *
 * <p><b>Scale c.</b> {@link Rescale#NONE}: c = 1 (so X_0 has singular values 1 and X_0ᵀX_0 = I
 * at full rank). {@link Rescale#UNIT_MEAN_EIGENVALUE}: c² = n·r / Σ_k s_k^{2γ}, so that
 * ‖X_γ‖_F² = n·r, the retained eigenvalues of X_γᵀX_γ/n average 1, and a fully whitened X has
 * X_0ᵀX_0/n = I (singular values √n, the scale the linear-network formulas assume,
 * Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, §3: X = √P U Vᵀ).
 *
 * <p>No centring is done here; centre first with {@link Standardizer} (mode CENTRE) if the data
 * should be zero-mean, as the paper assumes.
 */
public final class Whitening {
    /** Default relative cutoff on singular values: directions with s_k ≤ 1e-7·s_1 are dropped. */
    public static final double DEFAULT_RCOND = 1e-7;

    /** Choice of the overall scale c. */
    public enum Rescale {
        NONE,
        UNIT_MEAN_EIGENVALUE
    }

    private final double gamma;
    private final double scale;
    private final int d;
    private final int rank;
    private final double[] singularValues; // all min(n,d), descending
    private final DMatrixRMaj vr; // d×r
    private final float[] fittedTrain; // n×d, c·U_r S_r^γ V_rᵀ

    private Whitening(double gamma, double scale, int d, int rank, double[] sv, DMatrixRMaj vr, float[] fittedTrain) {
        this.gamma = gamma;
        this.scale = scale;
        this.d = d;
        this.rank = rank;
        this.singularValues = sv;
        this.vr = vr;
        this.fittedTrain = fittedTrain;
    }

    /** Fits with the default cutoff and no rescaling. */
    public static Whitening fit(float[] x, int n, int d, double gamma) {
        return fit(x, n, d, gamma, DEFAULT_RCOND, Rescale.NONE);
    }

    /** Fits on the (flattened) features of a dataset. */
    public static Whitening fit(LabelledSet train, double gamma, double rcond, Rescale rescale) {
        return fit(train.features(), train.size(), train.featureDim(), gamma, rcond, rescale);
    }

    /**
     * Fits on an n×d row-major training matrix.
     *
     * @param gamma exponent γ in [0, 1] (0: whiten, 1: raw)
     * @param rcond relative singular-value cutoff in [0, 1)
     */
    public static Whitening fit(float[] x, int n, int d, double gamma, double rcond, Rescale rescale) {
        if (n < 1 || d < 1 || (long) n * d != x.length) {
            throw new UserException(
                    "whitening: " + x.length + " values do not form " + n + " samples of " + d + " features");
        }
        if (!(gamma >= 0 && gamma <= 1)) {
            throw new UserException("whitening: gamma " + gamma + " is outside [0, 1] (0 whitens, 1 is raw)");
        }
        if (!(rcond >= 0 && rcond < 1)) {
            throw new UserException("whitening: rcond " + rcond + " is outside [0, 1)");
        }
        DMatrixRMaj xm = new DMatrixRMaj(n, d);
        for (int k = 0; k < x.length; k++) {
            xm.data[k] = x[k];
        }
        SingularValueDecomposition_F64<DMatrixRMaj> svd = DecompositionFactory_DDRM.svd(n, d, true, true, true);
        if (!svd.decompose(xm)) {
            throw new IllegalStateException("whitening: SVD did not converge");
        }
        DMatrixRMaj u = svd.getU(null, false); // n×m
        DMatrixRMaj w = svd.getW(null); // m×m
        DMatrixRMaj v = svd.getV(null, false); // d×m
        SingularOps_DDRM.descendingOrder(u, false, w, v, false);
        int m = Math.min(w.numRows, w.numCols);
        double[] sv = new double[m];
        for (int k = 0; k < m; k++) {
            sv[k] = w.get(k, k);
        }
        double smax = m > 0 ? sv[0] : 0;
        int r = 0;
        while (r < m && sv[r] > rcond * smax && sv[r] > 0) {
            r++;
        }
        if (r == 0) {
            throw new UserException("whitening: the training matrix is zero (no singular value above the cutoff)");
        }
        double c = 1;
        if (rescale == Rescale.UNIT_MEAN_EIGENVALUE) {
            double sum = 0;
            for (int k = 0; k < r; k++) {
                sum += Math.pow(sv[k], 2 * gamma);
            }
            c = Math.sqrt(n * (double) r / sum);
        }
        DMatrixRMaj vr = CommonOps_DDRM.extract(v, 0, d, 0, r);
        DMatrixRMaj us = CommonOps_DDRM.extract(u, 0, n, 0, r);
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < r; k++) {
                us.set(i, k, us.get(i, k) * c * Math.pow(sv[k], gamma));
            }
        }
        DMatrixRMaj xg = new DMatrixRMaj(n, d);
        CommonOps_DDRM.multTransB(us, vr, xg);
        float[] fitted = new float[n * d];
        for (int k = 0; k < fitted.length; k++) {
            fitted[k] = (float) xg.data[k];
        }
        return new Whitening(gamma, c, d, r, sv, vr, fitted);
    }

    public double gamma() {
        return gamma;
    }

    /** The overall scale c. */
    public double scale() {
        return scale;
    }

    /** Number of retained directions r. */
    public int rank() {
        return rank;
    }

    /** Feature dimension d. */
    public int featureDim() {
        return d;
    }

    /** All singular values of the training matrix, descending (including dropped ones). */
    public double[] singularValues() {
        return singularValues.clone();
    }

    /** The fitted training matrix X_γ = c·U_r S_r^γ V_rᵀ (n×d, row-major; a copy). */
    public float[] fittedTrain() {
        return fittedTrain.clone();
    }

    /** Applies x ↦ c·x V_r S_r^{γ−1} V_rᵀ to every row of an m×d matrix (returns a new array). */
    public float[] apply(float[] x) {
        return apply(x, true);
    }

    /**
     * The same map in the coordinates of the retained right singular vectors: x ↦ c·x V_r S_r^{γ−1} (m×r). Since
     * V_r has orthonormal columns this is an isometry of the transformed points, so a network with rotation-invariant
     * (i.i.d. Gaussian) first-layer init trained on these r-dimensional rows behaves like one trained on the d-dimensional
     * {@link #apply(float[])} output, at r/d of the cost.
     */
    public float[] coordinates(float[] x) {
        return apply(x, false);
    }

    private float[] apply(float[] x, boolean back) {
        if (x.length % d != 0) {
            throw new UserException("whitening: " + x.length + " values are not a whole number of samples of " + d
                    + " features (the dimension it was fitted on)");
        }
        int m = x.length / d;
        DMatrixRMaj xm = new DMatrixRMaj(m, d);
        for (int k = 0; k < x.length; k++) {
            xm.data[k] = x[k];
        }
        DMatrixRMaj proj = new DMatrixRMaj(m, rank);
        CommonOps_DDRM.mult(xm, vr, proj);
        for (int k = 0; k < rank; k++) {
            double f = scale * Math.pow(singularValues[k], gamma - 1);
            for (int i = 0; i < m; i++) {
                proj.set(i, k, proj.get(i, k) * f);
            }
        }
        if (!back) {
            float[] c = new float[m * rank];
            for (int k = 0; k < c.length; k++) {
                c[k] = (float) proj.data[k];
            }
            return c;
        }
        DMatrixRMaj out = new DMatrixRMaj(m, d);
        CommonOps_DDRM.multTransB(proj, vr, out);
        float[] o = new float[m * d];
        for (int k = 0; k < o.length; k++) {
            o[k] = (float) out.data[k];
        }
        return o;
    }

    /** Applies the transform to a dataset's features; the result has sample shape {d}. */
    public LabelledSet apply(LabelledSet data) {
        return data.withFeatures(apply(data.features()), new int[] {d});
    }
}
