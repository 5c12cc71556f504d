package org.ntk4j.data;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.SingularOps_DDRM;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.QRDecomposition;
import org.ejml.interfaces.decomposition.SingularValueDecomposition_F64;
import org.ntk4j.UserException;

/**
 * Synthetic data sets of the reproduced papers (cited per method). Inputs are rows
 * (n×d, row-major float32), targets come as {@link RegressionData}. Every generator takes a seed
 * and is deterministic ({@link SplittableRandom}; Gaussians by its {@code nextGaussian}).
 *
 * <p>Conventions: a "Haar basis" is a uniformly random orthogonal matrix (QR of a Gaussian matrix
 * with the signs of R's diagonal moved into Q, Mezzadri 2007).
 */
public final class Synthetic {
    private Synthetic() {}

    /** A generated regression set and the teacher that produced it (for test points or checks). */
    public record Teacher(RegressionData data, double[] weights, int outputs, int d) {
        /** Teacher outputs y = s·B x for new points x (rows of an m×d matrix): m×outputs. */
        public float[] predict(float[] x, double s) {
            return applyLinear(x, x.length / d, d, weights, outputs, s);
        }
    }

    // ------------------------------------------------------------------ inputs and spectra

    /** n×d standard Gaussian inputs, x ~ N(0, I_d). */
    public static float[] gaussian(int n, int d, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        float[] x = new float[checkedSize(n, d)];
        for (int k = 0; k < x.length; k++) {
            x[k] = (float) rng.nextGaussian();
        }
        return x;
    }

    /**
     * n×d Gaussian inputs with covariance Σ = O diag(λ) Oᵀ (d = λ.length): x = O diag(√λ) z with
     * z ~ N(0, I). O is a Haar basis when {@code haarBasis}, else the identity (axis-aligned).
     * The "Gaussian with spectral decay" of Feature Learning as Alignment (anon.) (Apps. D, G) uses a Haar basis with
     * {@link #inverseOnePlusPowerSpectrum}; the anisotropic (unwhitened) data of Atanasov, Bordelon &amp; Pehlevan,
     * Silent Alignment (§3.2, App. B.2) and our ReLU-teacher stand-in for its Figs. 1/6 use {@link #geometricSpectrum}
     * and {@link #powerLawSpectrum} (α = 1).
     */
    public static float[] gaussian(int n, double[] eigenvalues, boolean haarBasis, long seed) {
        int d = eigenvalues.length;
        for (double l : eigenvalues) {
            if (!(l >= 0)) {
                throw new UserException("covariance eigenvalue " + l + " is negative or NaN (expected >= 0)");
            }
        }
        SplittableRandom rng = new SplittableRandom(seed);
        double[] o = haarBasis ? haar(d, rng) : null;
        float[] x = new float[checkedSize(n, d)];
        double[] z = new double[d];
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < d; k++) {
                z[k] = Math.sqrt(eigenvalues[k]) * rng.nextGaussian();
            }
            for (int j = 0; j < d; j++) {
                double v;
                if (o == null) {
                    v = z[j];
                } else {
                    v = 0;
                    for (int k = 0; k < d; k++) {
                        v += o[j * d + k] * z[k];
                    }
                }
                x[i * d + j] = (float) v;
            }
        }
        return x;
    }

    /** Power-law covariance spectrum λ_k = k^{−α}, k = 1..d (the ReLU-teacher stand-in uses α = 1). */
    public static double[] powerLawSpectrum(int d, double alpha) {
        double[] l = new double[d];
        for (int k = 1; k <= d; k++) {
            l[k - 1] = Math.pow(k, -alpha);
        }
        return l;
    }

    /**
     * Spectrum λ_k = 1/(1 + k^α), k = 1..d (Feature Learning as Alignment (anon.), "Gaussian with spectral
     * decay"; the paper does not say whether k starts at 0 or 1, we start at 1). α = 0 gives λ = 1/2 (isotropic,
     * Fig. 8 up to scale), α = 1 and 2 are Figs. 9 and 10.
     */
    public static double[] inverseOnePlusPowerSpectrum(int d, double alpha) {
        double[] l = new double[d];
        for (int k = 1; k <= d; k++) {
            l[k - 1] = 1.0 / (1.0 + Math.pow(k, alpha));
        }
        return l;
    }

    /** Geometric spectrum from {@code first} to {@code last} (numpy geomspace; 4 → 0.05 for the
     * unwhitened data of Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, §3.2). */
    public static double[] geometricSpectrum(int d, double first, double last) {
        if (!(first > 0 && last > 0)) {
            throw new UserException("geometric spectrum: end points " + first + ", " + last + " must be > 0");
        }
        double[] l = new double[d];
        for (int k = 0; k < d; k++) {
            l[k] = d == 1 ? first : first * Math.pow(last / first, k / (double) (d - 1));
        }
        return l;
    }

    /**
     * Exactly whitened inputs (the synthetic whitened data of
     * Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, Figs. 4b and B.1a): X = √n·U Vᵀ
     * from the thin SVD of an n×d standard Gaussian matrix G = U S Vᵀ. Then XᵀX/n = I_d for n ≥ d,
     * and the projector onto the row space of X for n &lt; d.
     */
    public static float[] whitenedGaussian(int n, int d, long seed) {
        return toFloat(whitened(n, d, new SplittableRandom(seed)).x);
    }

    /**
     * n unit-norm pairs with prescribed inner products (for the off-diagonal/diagonal NTK
     * ratio of Seleznova &amp; Kutyniok, Can We Trust NTK Theory?): for pair i, x and y are independent uniformly
     * random unit vectors with y made orthogonal to x, and the pair is (x, ρ_i x + √(1−ρ_i²) y), so both have
     * norm 1 and inner product ρ_i exactly (up to float32 rounding). Returns a (2·m)×d matrix: rows
     * 2i and 2i+1 are pair i.
     */
    public static float[] innerProductPairs(int d, double[] rhos, long seed) {
        if (d < 2) {
            throw new UserException("inner-product pairs need d >= 2 (got " + d + ")");
        }
        SplittableRandom rng = new SplittableRandom(seed);
        float[] out = new float[checkedSize(2 * rhos.length, d)];
        for (int i = 0; i < rhos.length; i++) {
            double rho = rhos[i];
            if (!(rho >= -1 && rho <= 1)) {
                throw new UserException("inner product " + rho + " is outside [-1, 1]");
            }
            double[] x = randomUnit(d, rng);
            double[] y = randomUnit(d, rng);
            double dot = dot(x, y);
            for (int k = 0; k < d; k++) {
                y[k] -= dot * x[k];
            }
            scale(y, 1 / Math.sqrt(dot(y, y)));
            double c = Math.sqrt(1 - rho * rho);
            for (int k = 0; k < d; k++) {
                out[(2 * i) * d + k] = (float) x[k];
                out[(2 * i + 1) * d + k] = (float) (rho * x[k] + c * y[k]);
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ linear teachers (Silent Alignment)

    /**
     * Linear teacher on given inputs: y = s·βᵀx for every row x (Atanasov, Bordelon &amp; Pehlevan, Silent Alignment,
     * §3: y^μ = s β_T·x^μ). β is d values (one output) or O×d row-major (O outputs).
     */
    public static RegressionData linearTeacher(String name, float[] x, int n, int d, double[] beta, double s) {
        if (beta.length % d != 0 || beta.length == 0) {
            throw new UserException("linear teacher: " + beta.length + " weights are not a multiple of d = " + d);
        }
        int outputs = beta.length / d;
        return new RegressionData(name, x, n, d, applyLinear(x, n, d, beta, outputs, s), outputs);
    }

    /**
     * Whitened data with a linear teacher (Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, Figs. 4b and B.1a):
     * X = √P·U Vᵀ (see {@link #whitenedGaussian}), β a uniformly random unit vector in the row space
     * of X (all of R^d when P ≥ d), y = s·Xβ. Then Σ = XᵀX/P has all nonzero eigenvalues 1 and
     * Σβ = β, as the paper's formulas assume.
     */
    public static Teacher whitenedLinearTeacher(int p, int d, double s, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        Whitened w = whitened(p, d, rng);
        double[] q = randomUnit(w.m, rng);
        double[] beta = new double[d];
        for (int j = 0; j < d; j++) {
            for (int k = 0; k < w.m; k++) {
                beta[j] += w.v[j * w.m + k] * q[k];
            }
        }
        float[] x = toFloat(w.x);
        return new Teacher(linearTeacher("whitened-linear-teacher", x, p, d, beta, s), beta, 1, d);
    }

    /**
     * Anisotropic Gaussian inputs with a linear teacher (Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, §3.2 and
     * App. B.2 "unwhitened data", App. E with Σ = diag(λ)): x ~ N(0, O diag(λ) Oᵀ) (see {@link #gaussian(int, double[],
     * boolean, long)}), β a uniformly random unit vector, y = s·βᵀx. With λ = 1 this is App. E's
     * x ~ N(0, I), y = w·x.
     */
    public static Teacher anisotropicLinearTeacher(
            int p, double[] eigenvalues, boolean haarBasis, double s, long seed) {
        int d = eigenvalues.length;
        SplittableRandom rng = new SplittableRandom(seed);
        float[] x = gaussian(p, eigenvalues, haarBasis, rng.nextLong());
        double[] beta = randomUnit(d, rng);
        return new Teacher(linearTeacher("anisotropic-linear-teacher", x, p, d, beta, s), beta, 1, d);
    }

    /**
     * Whitened inputs with a multi-output linear teacher with prescribed singular values
     * (Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, eqs. 53–54 and App. G.1: β = Σ_α s_α z_α v_αᵀ): C =
     * s.length outputs, z_α the columns of a C×C Haar matrix, v_α orthonormal in the row space of X (needs
     * C ≤ min(P, d)), y = Xβᵀ (P×C). The singular values of β are exactly s.
     */
    public static Teacher multiOutputTeacher(int p, int d, double[] singularValues, long seed) {
        int c = singularValues.length;
        if (c < 1 || c > Math.min(p, d)) {
            throw new UserException(
                    "multi-output teacher: " + c + " singular values need 1 <= C <= min(P, d) = " + Math.min(p, d));
        }
        SplittableRandom rng = new SplittableRandom(seed);
        Whitened w = whitened(p, d, rng);
        double[] z = haar(c, rng);
        double[] q = haar(w.m, rng); // first C columns: orthonormal in R^m
        double[] beta = new double[c * d]; // C×d
        for (int a = 0; a < c; a++) {
            double[] v = new double[d];
            for (int j = 0; j < d; j++) {
                for (int k = 0; k < w.m; k++) {
                    v[j] += w.v[j * w.m + k] * q[k * w.m + a];
                }
            }
            for (int o = 0; o < c; o++) {
                for (int j = 0; j < d; j++) {
                    beta[o * d + j] += singularValues[a] * z[o * c + a] * v[j];
                }
            }
        }
        return new Teacher(linearTeacher("multi-output-teacher", toFloat(w.x), p, d, beta, 1.0), beta, c, d);
    }

    // ------------------------------------------------------------- polynomial tasks (Feature Learning as Alignment)

    /**
     * Chain monomial (Feature Learning as Alignment (anon.), Eq. 2, 0-based): y(x) = Σ_{i=0}^{r−1} x_i·x_{(i+1) mod r}
     * with x ~ N(0, I_d), the label vector then divided by its sample standard deviation (App. I: "scaled
     * to std 1"; not centred, its population mean is 0 for r ≥ 2).
     */
    public static RegressionData chainMonomial(int n, int d, int r, long seed) {
        checkR(d, r);
        float[] x = gaussian(n, d, seed);
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            double v = 0;
            for (int k = 0; k < r; k++) {
                v += (double) x[i * d + k] * x[i * d + (k + 1) % r];
            }
            y[i] = v;
        }
        return new RegressionData("chain-monomial", x, n, d, toFloat(scaleToUnitStd(y)), 1);
    }

    /**
     * Analytic EGOP E[∇y ∇yᵀ] of the unscaled chain monomial (Feature Learning as Alignment (anon.), Eq. 2): y = ½ xᵀA
     * x with A the symmetric "cycle" matrix (A_{i,i+1 mod r} += 1, A_{i+1 mod r,i} += 1 for each term), so
     * ∇y = A x and EGOP = A², zero outside the top-left r×r block (for r = 5: circulant with first
     * row [2,0,1,1,0], eigenvalues {4, 2.618, 2.618, 0.382, 0.382}). For labels scaled by 1/σ_y
     * divide by σ_y² (population σ_y² = r for r ≥ 3). Returns d×d row-major.
     */
    public static double[] chainMonomialEgop(int d, int r) {
        checkR(d, r);
        double[] a = new double[d * d];
        for (int k = 0; k < r; k++) {
            int i = k;
            int j = (k + 1) % r;
            a[i * d + j] += 1;
            a[j * d + i] += 1;
        }
        double[] g = new double[d * d];
        for (int i = 0; i < r; i++) {
            for (int j = 0; j < r; j++) {
                double v = 0;
                for (int k = 0; k < r; k++) {
                    v += a[i * d + k] * a[k * d + j];
                }
                g[i * d + j] = v;
            }
        }
        return g;
    }

    /**
     * High-rank polynomial (Feature Learning as Alignment (anon.), Fig. 7): y(x) = Σ_{i=1}^{d} (Qx)_i² = ‖Qx‖², Q a d×d
     * matrix of independent N(0,1) entries drawn once, x ~ N(0, I_d); labels divided by their sample
     * standard deviation (App. I; not centred).
     */
    public static RegressionData highRankPolynomial(int n, int d, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        double[] q = new double[checkedSize(d, d)];
        for (int k = 0; k < q.length; k++) {
            q[k] = rng.nextGaussian();
        }
        float[] x = gaussian(n, d, rng.nextLong());
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            double v = 0;
            for (int a = 0; a < d; a++) {
                double qa = 0;
                for (int b = 0; b < d; b++) {
                    qa += q[a * d + b] * x[i * d + b];
                }
                v += qa * qa;
            }
            y[i] = v;
        }
        return new RegressionData("high-rank-polynomial", x, n, d, toFloat(scaleToUnitStd(y)), 1);
    }

    /**
     * Alignment-reversing dataset (Feature Learning as Alignment (anon.), §4.2 / App. F), n rows of dimension d:
     * <ol>
     *   <li>n₁ = round(γ·n) rows X⁽¹⁾ ~ N(0, Σ), Σ = 11ᵀ + ε₁I, label 1;</li>
     *   <li>(X⁽¹⁾)ᵀX⁽¹⁾ = U₁ S₁ U₁ᵀ (SVD); V₂ = left singular vectors of a fresh n₂×d sample
     *       (n₂ = n − n₁) from the same distribution;</li>
     *   <li>X⁽²⁾ = V₂ S₁⁻¹ U₁ᵀ, label 0, so (X⁽²⁾)ᵀX⁽²⁾ = ((X⁽¹⁾)ᵀX⁽¹⁾)⁻²;</li>
     *   <li>X = [X⁽¹⁾; X⁽²⁾] + ε₂Z, Z ~ N(0, I); y ← y + 10⁻⁵.</li>
     * </ol>
     * <b>Rank-deficiency policy</b> (the paper's construction is infeasible as written when
     * n₁ &lt; d or n₂ &lt; d): only the top q = min(n₁, n₂, d) singular directions are used, i.e.
     * X⁽²⁾ = V₂[:, :q] diag(1/S₁[:q]) U₁[:, :q]ᵀ, so (X⁽²⁾)ᵀX⁽²⁾ is the inverse square restricted to
     * those q directions. Needs 1 ≤ n₁ ≤ n − 1. The paper uses ε₁ = 0.5, ε₂ = 10⁻², n = d = 1024.
     */
    public static RegressionData alignmentReversing(int n, int d, double gamma, double eps1, double eps2, long seed) {
        if (!(gamma > 0 && gamma <= 1)) {
            throw new UserException("alignment-reversing: balance gamma " + gamma + " is outside (0, 1]");
        }
        int n1 = (int) Math.round(gamma * n);
        int n2 = n - n1;
        if (n1 < 1 || n2 < 1) {
            throw new UserException("alignment-reversing: gamma " + gamma + " with n = " + n + " gives " + n1
                    + " label-1 rows and " + n2 + " label-0 rows (need at least 1 of each)");
        }
        SplittableRandom rng = new SplittableRandom(seed);
        DMatrixRMaj x1 = spikedSample(n1, d, eps1, rng);
        DMatrixRMaj g = new DMatrixRMaj(d, d);
        CommonOps_DDRM.multTransA(x1, x1, g);
        Svd s1 = svd(g);
        Svd s2 = svd(spikedSample(n2, d, eps1, rng));
        int q = Math.min(Math.min(n1, n2), d);
        // X2 = V2[:, :q] diag(1/S1[:q]) U1[:, :q]^T   (n2×d)
        DMatrixRMaj left = CommonOps_DDRM.extract(s2.u, 0, n2, 0, q);
        for (int i = 0; i < n2; i++) {
            for (int k = 0; k < q; k++) {
                left.set(i, k, left.get(i, k) / s1.s[k]);
            }
        }
        DMatrixRMaj x2 = new DMatrixRMaj(n2, d);
        CommonOps_DDRM.multTransB(left, CommonOps_DDRM.extract(s1.u, 0, d, 0, q), x2);
        float[] x = new float[checkedSize(n, d)];
        float[] y = new float[n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < d; j++) {
                double v = i < n1 ? x1.get(i, j) : x2.get(i - n1, j);
                x[i * d + j] = (float) (v + eps2 * rng.nextGaussian());
            }
            y[i] = (float) ((i < n1 ? 1.0 : 0.0) + 1e-5);
        }
        return new RegressionData("alignment-reversing", x, n, d, y, 1);
    }

    // ------------------------------------------------------------------ Xu & Ziyin's solvable model

    /**
     * Inputs on a 1-D subspace (Xu &amp; Ziyin, When Does Feature Learning Happen?, §2): x_i = c_i·u for a fixed
     * uniformly random unit vector u ∈ R^d, with the given coefficients c and scalar targets y.
     */
    public static RegressionData oneDimensionalSubspace(double[] c, double[] y, int d, long seed) {
        if (c.length != y.length) {
            throw new UserException("1-D subspace data: " + c.length + " coefficients but " + y.length + " targets");
        }
        double[] u = randomUnit(d, new SplittableRandom(seed));
        float[] x = new float[checkedSize(c.length, d)];
        for (int i = 0; i < c.length; i++) {
            for (int j = 0; j < d; j++) {
                x[i * d + j] = (float) (c[i] * u[j]);
            }
        }
        return new RegressionData("one-dimensional-subspace", x, c.length, d, toFloat(y), 1);
    }

    /**
     * Reduction of a 1-D-subspace data set to one point (exact; the paper states the
     * reduction without proof): with x_i = c_i·u, MSE training is equivalent to the single point x̄ = √E[c²]·u, ȳ =
     * E[c·y]/√E[c²] (expectations are sample means; the loss differs by the constant E[y²] − E[cy]²/E[c²]). u is taken
     * as the normalised first nonzero input; throws if the inputs are not collinear (relative tolerance 1e-4).
     */
    public static RegressionData reduceToSinglePoint(RegressionData data) {
        if (data.outputs() != 1) {
            throw new UserException(
                    data.name() + ": single-point reduction needs scalar targets (got " + data.outputs() + " outputs)");
        }
        int d = data.d();
        double[] u = null;
        for (int i = 0; i < data.n() && u == null; i++) {
            double[] r = toDouble(data.input(i));
            double norm = Math.sqrt(dot(r, r));
            if (norm > 0) {
                u = r;
                scale(u, 1 / norm);
            }
        }
        if (u == null) {
            throw new UserException(data.name() + ": all inputs are zero (no direction to reduce onto)");
        }
        double ec2 = 0;
        double ecy = 0;
        for (int i = 0; i < data.n(); i++) {
            double[] r = toDouble(data.input(i));
            double c = dot(r, u);
            double res = 0;
            double nr = 0;
            for (int j = 0; j < d; j++) {
                double e = r[j] - c * u[j];
                res += e * e;
                nr += r[j] * r[j];
            }
            if (res > 1e-8 * Math.max(nr, 1e-30)) {
                throw new UserException(
                        data.name() + ": input " + i + " is not on the line of input 0 (relative residual "
                                + Math.sqrt(res / nr) + "); the single-point reduction needs x_i = c_i·u");
            }
            ec2 += c * c;
            ecy += c * data.y()[i];
        }
        ec2 /= data.n();
        ecy /= data.n();
        double root = Math.sqrt(ec2);
        float[] xbar = new float[d];
        for (int j = 0; j < d; j++) {
            xbar[j] = (float) (root * u[j]);
        }
        return new RegressionData(data.name() + "-reduced", xbar, 1, d, new float[] {(float) (ecy / root)}, 1);
    }

    /**
     * Random points (Xu &amp; Ziyin, When Does Feature Learning Happen?, Fig. 1c/d: "we randomly sample 100 points";
     * the distribution is lost from the text, so this is our documented choice): x ~ N(0, I_d/d)
     * (E‖x‖² = 1) and independent targets y ~ N(0, 1).
     */
    public static RegressionData randomPoints(int n, int d, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        float[] x = new float[checkedSize(n, d)];
        double sd = 1 / Math.sqrt(d);
        for (int k = 0; k < x.length; k++) {
            x[k] = (float) (sd * rng.nextGaussian());
        }
        float[] y = new float[n];
        for (int i = 0; i < n; i++) {
            y[i] = (float) rng.nextGaussian();
        }
        return new RegressionData("random-points", x, n, d, y, 1);
    }

    /**
     * Anisotropic inputs with ±1 labels from a random ReLU teacher (our synthetic stand-in for
     * Atanasov, Bordelon &amp; Pehlevan, Silent Alignment, Figs. 1/6; not the paper's experiment): x ~ N(0,
     * diag(k^{−α})), k = 1..d (α = 1 there); teacher f(x) = Σ_{j=1}^{h} a_j·relu(w_j·x) with w_j ~ N(0, I_d/d) and a_j
     * ~ N(0, 1) (h = 4 there; the weight distributions are our choice, the paper does not give them); y = +1 if f(x) is
     * above the median of f over the n points, else −1, so the classes are balanced (exactly, when no ties).
     * Generate train and test together (n = P_train + P_test) and split with
     * {@link RegressionData#rows}, so both share the teacher and threshold. Centre and (partially)
     * whiten afterwards with {@link Standardizer} and {@link Whitening}.
     */
    public static RegressionData reluTeacherMedianLabels(int n, int d, double alpha, int hidden, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        float[] x = gaussian(n, powerLawSpectrum(d, alpha), false, rng.nextLong());
        double[] w = new double[checkedSize(hidden, d)];
        double sd = 1 / Math.sqrt(d);
        for (int k = 0; k < w.length; k++) {
            w[k] = sd * rng.nextGaussian();
        }
        double[] a = new double[hidden];
        for (int j = 0; j < hidden; j++) {
            a[j] = rng.nextGaussian();
        }
        double[] f = new double[n];
        for (int i = 0; i < n; i++) {
            double v = 0;
            for (int j = 0; j < hidden; j++) {
                double pre = 0;
                for (int k = 0; k < d; k++) {
                    pre += w[j * d + k] * x[i * d + k];
                }
                v += a[j] * Math.max(0, pre);
            }
            f[i] = v;
        }
        double[] sorted = f.clone();
        Arrays.sort(sorted);
        double median = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
        float[] y = new float[n];
        for (int i = 0; i < n; i++) {
            y[i] = f[i] > median ? 1f : -1f;
        }
        return new RegressionData("relu-teacher-median", x, n, d, y, 1);
    }

    // ------------------------------------------------------------------ helpers

    private record Whitened(double[] x, double[] v, int m) {}

    /** X = √n U Vᵀ from the SVD of an n×d Gaussian; v is the d×m V (m = min(n, d)). */
    private static Whitened whitened(int n, int d, SplittableRandom rng) {
        DMatrixRMaj g = new DMatrixRMaj(n, d);
        for (int k = 0; k < g.data.length; k++) {
            g.data[k] = rng.nextGaussian();
        }
        Svd s = svd(g);
        DMatrixRMaj x = new DMatrixRMaj(n, d);
        CommonOps_DDRM.multTransB(s.u, s.v, x);
        CommonOps_DDRM.scale(Math.sqrt(n), x);
        return new Whitened(x.data, s.v.data, s.s.length);
    }

    private record Svd(DMatrixRMaj u, double[] s, DMatrixRMaj v) {}

    /** Thin SVD with singular values in descending order. */
    private static Svd svd(DMatrixRMaj a) {
        SingularValueDecomposition_F64<DMatrixRMaj> svd =
                DecompositionFactory_DDRM.svd(a.numRows, a.numCols, true, true, true);
        if (!svd.decompose(a.copy())) {
            throw new IllegalStateException("SVD did not converge");
        }
        DMatrixRMaj u = svd.getU(null, false);
        DMatrixRMaj w = svd.getW(null);
        DMatrixRMaj v = svd.getV(null, false);
        SingularOps_DDRM.descendingOrder(u, false, w, v, false);
        int m = Math.min(w.numRows, w.numCols);
        double[] s = new double[m];
        for (int k = 0; k < m; k++) {
            s[k] = w.get(k, k);
        }
        return new Svd(u, s, v);
    }

    /** Rows ~ N(0, 11ᵀ + ε I): x = √ε z + g·1 with z ~ N(0, I_d), g ~ N(0, 1). */
    private static DMatrixRMaj spikedSample(int n, int d, double eps, SplittableRandom rng) {
        DMatrixRMaj x = new DMatrixRMaj(n, d);
        double se = Math.sqrt(eps);
        for (int i = 0; i < n; i++) {
            double g = rng.nextGaussian();
            for (int j = 0; j < d; j++) {
                x.set(i, j, se * rng.nextGaussian() + g);
            }
        }
        return x;
    }

    /** A d×d Haar-distributed orthogonal matrix, row-major. */
    static double[] haar(int d, SplittableRandom rng) {
        DMatrixRMaj g = new DMatrixRMaj(d, d);
        for (int k = 0; k < g.data.length; k++) {
            g.data[k] = rng.nextGaussian();
        }
        QRDecomposition<DMatrixRMaj> qr = DecompositionFactory_DDRM.qr(d, d);
        if (!qr.decompose(g)) {
            throw new IllegalStateException("QR failed");
        }
        DMatrixRMaj q = qr.getQ(null, false);
        DMatrixRMaj r = qr.getR(null, false);
        for (int k = 0; k < d; k++) {
            if (r.get(k, k) < 0) {
                for (int i = 0; i < d; i++) {
                    q.set(i, k, -q.get(i, k));
                }
            }
        }
        return q.data;
    }

    static double[] randomUnit(int d, SplittableRandom rng) {
        double[] v = new double[d];
        double n2;
        do {
            for (int k = 0; k < d; k++) {
                v[k] = rng.nextGaussian();
            }
            n2 = dot(v, v);
        } while (n2 == 0);
        scale(v, 1 / Math.sqrt(n2));
        return v;
    }

    private static float[] applyLinear(float[] x, int n, int d, double[] beta, int outputs, double s) {
        float[] y = new float[checkedSize(n, outputs)];
        for (int i = 0; i < n; i++) {
            for (int o = 0; o < outputs; o++) {
                double v = 0;
                for (int j = 0; j < d; j++) {
                    v += beta[o * d + j] * x[i * d + j];
                }
                y[i * outputs + o] = (float) (s * v);
            }
        }
        return y;
    }

    private static double[] scaleToUnitStd(double[] y) {
        double m = 0;
        for (double v : y) {
            m += v;
        }
        m /= y.length;
        double var = 0;
        for (double v : y) {
            var += (v - m) * (v - m);
        }
        double sd = Math.sqrt(var / y.length);
        if (!(sd > 0)) {
            throw new UserException("labels have zero variance; cannot scale them to std 1 (n = " + y.length + ")");
        }
        double[] out = new double[y.length];
        for (int i = 0; i < y.length; i++) {
            out[i] = y[i] / sd;
        }
        return out;
    }

    private static void checkR(int d, int r) {
        if (r < 1 || r > d) {
            throw new UserException("chain monomial: r = " + r + " must be in 1..d = " + d);
        }
    }

    private static int checkedSize(int n, int d) {
        if (n < 0 || d < 1) {
            throw new UserException("invalid sizes n = " + n + ", d = " + d + " (expected n >= 0, d >= 1)");
        }
        return Math.multiplyExact(n, d);
    }

    static double dot(double[] a, double[] b) {
        double s = 0;
        for (int k = 0; k < a.length; k++) {
            s += a[k] * b[k];
        }
        return s;
    }

    private static void scale(double[] a, double f) {
        for (int k = 0; k < a.length; k++) {
            a[k] *= f;
        }
    }

    private static float[] toFloat(double[] a) {
        float[] f = new float[a.length];
        for (int k = 0; k < a.length; k++) {
            f[k] = (float) a[k];
        }
        return f;
    }

    private static double[] toDouble(float[] a) {
        double[] f = new double[a.length];
        for (int k = 0; k < a.length; k++) {
            f[k] = a[k];
        }
        return f;
    }
}
