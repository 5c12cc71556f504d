package org.ntk4j.metrics;

import org.ejml.data.DMatrixRMaj;

/**
 * The correlation of Feature Learning as Alignment (anon.), eq. "NFC": the cosine of two matrices as vectors,
 * <pre>ρ(A, B) = tr(AᵀB) · tr(AᵀA)^{-1/2} · tr(BᵀB)^{-1/2} = ⟨A, B⟩_F / (‖A‖_F ‖B‖_F).</pre>
 * Uncentred (no mean is subtracted); symmetric; invariant to positive rescaling of either argument;
 * in [0, 1] for positive semi-definite A, B. NaN when either matrix is zero (0/0), e.g. the centred
 * NFM at initialisation (Feature Learning as Alignment (anon.), §3).
 */
public final class FeatureCorrelation {
    private FeatureCorrelation() {}

    /** ρ(A, B); A and B must have the same shape. */
    public static double rho(DMatrixRMaj a, DMatrixRMaj b) {
        return frobenius(a, b) / Math.sqrt(frobenius(a, a) * frobenius(b, b));
    }

    /** ⟨A, B⟩_F = Σ_ij A_ij B_ij = tr(AᵀB). */
    public static double frobenius(DMatrixRMaj a, DMatrixRMaj b) {
        if (a.numRows != b.numRows || a.numCols != b.numCols) {
            throw new IllegalArgumentException(
                    "shapes differ: " + a.numRows + "×" + a.numCols + " vs " + b.numRows + "×" + b.numCols);
        }
        double s = 0;
        int size = a.getNumElements();
        for (int i = 0; i < size; i++) {
            s += a.data[i] * b.data[i];
        }
        return s;
    }
}
