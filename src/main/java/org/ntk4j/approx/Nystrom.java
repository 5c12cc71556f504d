package org.ntk4j.approx;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import java.util.Arrays;
import java.util.Random;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ntk4j.UserException;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.natives.Lapack;

/**
 * The Nyström approximation of a traced kernel from m landmark images L ⊂ X (Williams &amp; Seeger, "Using the
 * Nyström method to speed up kernel machines", NIPS 2001, eq. 8):
 * <pre>
 *   K(X, X) ≈ C W⁺ Cᵀ = F Fᵀ,   F = C W^{+1/2},   C = K(X, L) (N×m),   W = K(L, L) (m×m)
 *   K(X*, X) ≈ C* W⁺ Cᵀ = G Fᵀ, G = C* W^{+1/2},  C* = K(X*, L)
 * </pre>
 * The exact engine computes C (and C*) as rectangular kernels, tile by tile; W is C's rows at the landmarks
 * (symmetrised), so no N×N entry is ever formed. W^{+1/2} = V_+ S_+^{-1/2} from W = V S Vᵀ keeps the eigenvalues above
 * {@code rcond}·s_max (1e-6 for float32 kernels, whose entries carry ~1e-7 relative rounding that W⁺ would amplify;
 * 1e-12 in float64), so the rank r of F is at most m. W's eigendecomposition is LAPACK's {@code dsyevd} ({@link Lapack}),
 * seconds at m = 8,000.
 *
 * <p>Landmarks: uniform (m distinct indices, seeded), or by approximate ridge leverage scores (Alaoui &amp; Mahoney,
 * "Fast randomized kernel ridge regression with statistical guarantees", NIPS 2015, eq. 2): a uniform pilot of m
 * landmarks gives F₀; the scores ℓ_i = F₀ᵢ (F₀ᵀF₀ + λI)⁻¹ F₀ᵢᵀ with λ = tr(F₀ᵀF₀)/m (so that the effective
 * dimension Σ s/(s + λ) ≤ tr/λ = m); m indices are then drawn without replacement with probabilities ∝ ℓ_i
 * (Efraimidis &amp; Spirakis weighted sampling, keys u^{1/ℓ}). The pilot costs one more N×m kernel.
 */
public final class Nystrom {
    private Nystrom() {}

    /**
     * What a Nyström approximation produced.
     *
     * @param kernel the features F (and G)
     * @param landmarks the landmark indices into X, increasing
     * @param kept the eigenvalues of W kept (the rank of F)
     * @param seconds wall time of the exact kernels (C, C*, and the pilot for leverage)
     */
    public record Result(LowRankKernel kernel, int[] landmarks, int kept, double seconds) {}

    /**
     * The Nyström features of {@code ntk}'s traced kernel on train inputs {@code x} (N, input...) and test inputs
     * {@code xTest} (or null), with {@code spec}'s m landmarks chosen by its variant from {@code seed}.
     */
    public static Result compute(Ntk ntk, NDArray x, NDArray xTest, ApproxSpec spec, long seed) {
        if (spec.kind() != ApproxSpec.Kind.NYSTROM || spec.rank() < 1) {
            throw new IllegalArgumentException("not a Nyström spec with a rank: " + spec);
        }
        if (ntk.toOptions().mode() != Mode.TRACE) {
            throw new UserException("the Nyström approximation is of the traced kernel (--mode trace)");
        }
        int n = (int) x.getShape().get(0);
        int m = spec.rank();
        if (m > n) {
            throw new UserException(
                    "--approx " + spec + " asks for " + m + " landmarks but there are only " + n + " train images");
        }
        long t0 = System.nanoTime();
        int[] landmarks = uniform(n, m, seed);
        if (spec.variant().equals("leverage")) {
            LowRankKernel pilot = features(ntk, x, null, landmarks, spec.toString());
            landmarks = weightedSample(leverageScores(pilot), m, seed + 1);
        }
        Result r = build(ntk, x, xTest, landmarks, spec.toString());
        return new Result(r.kernel(), landmarks, r.kept(), (System.nanoTime() - t0) / 1e9);
    }

    /** The Nyström features from the given landmark indices (increasing, distinct). */
    public static Result build(Ntk ntk, NDArray x, NDArray xTest, int[] landmarks, String method) {
        long t0 = System.nanoTime();
        LowRankKernel k = features(ntk, x, xTest, landmarks, method);
        return new Result(k, landmarks, k.rank(), (System.nanoTime() - t0) / 1e9);
    }

    private static LowRankKernel features(Ntk ntk, NDArray x, NDArray xTest, int[] landmarks, String method) {
        NDManager mg = x.getManager();
        try (NDManager sm = mg.newSubManager()) {
            NDArray xl = x.get(new NDIndex(
                    "{}", sm.create(Arrays.stream(landmarks).asLongStream().toArray())));
            int n = (int) x.getShape().get(0);
            float[] c = columns(ntk, x, xl);
            float[] ct = xTest == null ? null : columns(ntk, xTest, xl);
            int mt = xTest == null ? 0 : (int) xTest.getShape().get(0);
            return fromColumns(c, n, ct, mt, landmarks, ntk.toOptions().float64(), method);
        }
    }

    /**
     * The Nyström features from the exact columns: C = K(X, L) ({@code n}×m, row-major), C* = K(X*, L) ({@code
     * mt}×m, or null) and the landmark indices L into X (increasing, distinct, m of them). W is C's rows at the
     * landmarks, symmetrised; F = C W^{+1/2}, G = C* W^{+1/2} (the class comment), eigenvalues of W below {@code
     * rcond}·s_max dropped with rcond 1e-12 for {@code float64} kernels, else 1e-6. Deterministic: the same columns
     * give the same features bit for bit, wherever they were computed (in one job or assembled from shards).
     */
    public static LowRankKernel fromColumns(
            float[] c, int n, float[] ct, int mt, int[] landmarks, boolean float64, String method) {
        int m = landmarks.length;
        if (c.length != (long) n * m || (ct != null && ct.length != (long) mt * m)) {
            throw new IllegalArgumentException("columns of " + c.length + (ct == null ? "" : " and " + ct.length)
                    + " values for " + n + (ct == null ? "" : " and " + mt) + " rows × " + m + " landmarks");
        }
        double[] w = new double[m * m];
        for (int a = 0; a < m; a++) {
            for (int b = 0; b < m; b++) {
                int ia = landmarks[a];
                int ib = landmarks[b];
                w[a * m + b] = 0.5 * ((double) c[ia * m + b] + c[ib * m + a]);
            }
        }
        double rcond = float64 ? 1e-12 : 1e-6;
        DMatrixRMaj t = inverseRoot(new DMatrixRMaj(m, m, true, w), rcond);
        int r = t.numCols;
        float[] f = toFloat(LowRankKernel.product(c, n, m, t));
        float[] g = ct == null ? null : toFloat(LowRankKernel.product(ct, mt, m, t));
        return new LowRankKernel(method, f, n, g, ct == null ? 0 : mt, r);
    }

    /** K(rows, landmarks), row-major float32 (the engine's rectangular kernel, tile by tile). */
    private static float[] columns(Ntk ntk, NDArray rows, NDArray xl) {
        KernelResult k = ntk.compute(rows, xl);
        try {
            return k.total().toFloatArray();
        } finally {
            k.release();
        }
    }

    /**
     * W^{+1/2} = V_+ diag(s_+^{-1/2}) (m×r): the eigenvectors of the symmetric W whose eigenvalues exceed rcond·s_max,
     * each divided by the root of its eigenvalue, largest first.
     */
    static DMatrixRMaj inverseRoot(DMatrixRMaj w, double rcond) {
        int m = w.numRows;
        Lapack.Eigen eig = LowRankKernel.eigen(w, "landmark kernel", "kernel entries");
        double[] s = eig.values(); // ascending
        double cut = rcond * s[m - 1];
        int r = 0;
        while (r < m && s[m - 1 - r] > cut) {
            r++;
        }
        if (r == 0 || !(s[m - 1] > 0)) {
            throw new UserException("the landmark kernel W is zero: no Nyström features");
        }
        DMatrixRMaj v = eig.vectors();
        DMatrixRMaj t = new DMatrixRMaj(m, r);
        for (int j = 0; j < r; j++) {
            int col = m - 1 - j;
            double scale = 1 / Math.sqrt(s[col]);
            for (int i = 0; i < m; i++) {
                t.set(i, j, v.get(i, col) * scale);
            }
        }
        return t;
    }

    /** m distinct indices of 0..n-1, uniformly from {@code seed}, increasing. */
    public static int[] uniform(int n, int m, long seed) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        Random rng = new Random(seed);
        for (int i = 0; i < m; i++) {
            int j = i + rng.nextInt(n - i);
            int tmp = p[i];
            p[i] = p[j];
            p[j] = tmp;
        }
        int[] out = Arrays.copyOf(p, m);
        Arrays.sort(out);
        return out;
    }

    /**
     * Ridge leverage scores ℓ_i = Fᵢ (FᵀF + λI)⁻¹ Fᵢᵀ of the rows of a low-rank kernel, λ = tr(FᵀF)/r (the class
     * comment).
     */
    static double[] leverageScores(LowRankKernel k) {
        int r = k.rank();
        DMatrixRMaj g = k.gram();
        double lambda = CommonOps_DDRM.trace(g) / r;
        Lapack.Eigen eig = LowRankKernel.eigen(g, "feature Gram matrix", "features");
        // (FᵀF + λI)⁻¹ = V diag(1 / (s + λ)) Vᵀ, so ℓ_i = Σ_j (F V)_ij² / (s_j + λ)
        double[] fv = LowRankKernel.product(k.trainFeatures(), k.trainRows(), r, eig.vectors());
        double[] s = eig.values();
        double[] out = new double[k.trainRows()];
        for (int i = 0; i < out.length; i++) {
            double sum = 0;
            for (int j = 0; j < r; j++) {
                double p = fv[i * r + j];
                sum += p * p / (Math.max(s[j], 0) + lambda);
            }
            out[i] = sum;
        }
        return out;
    }

    /**
     * m distinct indices drawn without replacement with probabilities ∝ {@code weights} (Efraimidis &amp; Spirakis,
     * "Weighted random sampling with a reservoir", IPL 97(5), 2006: the m largest keys u^{1/w}), increasing. Zero
     * weights are drawn last.
     */
    static int[] weightedSample(double[] weights, int m, long seed) {
        Random rng = new Random(seed);
        int n = weights.length;
        double[] key = new double[n];
        Integer[] idx = new Integer[n];
        for (int i = 0; i < n; i++) {
            idx[i] = i;
            double u = rng.nextDouble();
            key[i] = weights[i] > 0 ? Math.log(u) / weights[i] : Double.NEGATIVE_INFINITY;
        }
        Arrays.sort(idx, (a, b) -> Double.compare(key[b], key[a]));
        int[] out = new int[m];
        for (int i = 0; i < m; i++) {
            out[i] = idx[i];
        }
        Arrays.sort(out);
        return out;
    }

    private static float[] toFloat(double[] a) {
        float[] f = new float[a.length];
        for (int i = 0; i < a.length; i++) {
            f[i] = (float) a[i];
        }
        return f;
    }
}
