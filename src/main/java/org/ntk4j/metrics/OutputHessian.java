package org.ntk4j.metrics;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.GradientCollector;
import java.util.List;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;

/**
 * The output-weighted Hessian of Lou, Mingard and Hayou, "The Equilibrium Hypothesis: Rethinking implicit
 * regularization in Deep Neural Networks" (§4, Thm 6):
 * <pre>
 *   H_v = Σ_{x∈D} Σ_i v_{x,i} ∂²f^i_θ(x)/∂θ²,   H_v u = ∇_θ ( ∇_θ(v·F) · u ),   F = (f(x₁), …, f(x_n)),
 * </pre>
 * with v fixed (for H_w, w = ∇_F 𝓛 the loss gradient; Ψ v = ∇_θ(v·F)). The Hessian-vector product is a
 * central difference of gradients of the scalar v·F,
 * <pre>  H_v u ≈ (∇_θ(v·F)(θ + εu) − ∇_θ(v·F)(θ − εu)) / (2ε),</pre>
 * exact up to O(ε²) where f is smooth and, for a ReLU network, exact whenever θ ± εu crosses no activation
 * kink (f is piecewise polynomial in θ): use a float64 network. In exact mode the products are double
 * backward instead ({@link #timesExact}: JniUtils.backward with create_graph, fresh parameter leaves per
 * product), the a.e. Hessian with no kink crossings. The top eigenpairs by |λ| come from Lanczos with full
 * re-orthogonalisation on these products.
 */
public final class OutputHessian {
    private final Network net;
    private final NDArray x;
    private final NDArray v;
    private final double epsilon;
    private boolean exact;

    /**
     * @param net     the network (float64 recommended: the differences divide by 2ε)
     * @param x       inputs, n × d, in the network's data type
     * @param weights v ∈ R^{n·O}, sample-major (v_{x,i} at x·O + i)
     * @param epsilon the difference step ε (relative to ‖u‖ = 1)
     */
    public OutputHessian(Network net, NDArray x, double[] weights, double epsilon) {
        this.net = net;
        this.x = x;
        int n = (int) x.getShape().get(0);
        this.v = doubles(x.getManager(), weights, new Shape(n, weights.length / n), net.dataType());
        this.epsilon = epsilon;
    }

    /** Whether {@link #apply} and {@link #top} use double backward ({@link #timesExact}) instead of differences. */
    public OutputHessian exact(boolean e) {
        this.exact = e;
        return this;
    }

    /** H_v u: {@link #timesExact} in exact mode, else {@link #times}. */
    public double[] apply(double[] u) {
        return exact ? timesExact(u) : times(u);
    }

    /** θ: all trainable parameters flattened in forward order. */
    public static double[] parameters(Network net) {
        List<Param> ps = net.trainableParams();
        int p = 0;
        for (Param q : ps) {
            p += (int) q.size();
        }
        double[] out = new double[p];
        int o = 0;
        for (Param q : ps) {
            double[] a = q.value()
                    .toType(ai.djl.ndarray.types.DataType.FLOAT64, false)
                    .toDoubleArray();
            System.arraycopy(a, 0, out, o, a.length);
            o += a.length;
        }
        return out;
    }

    /** Sets θ (the inverse of {@link #parameters}). */
    public static void setParameters(Network net, double[] theta) {
        int o = 0;
        for (Param q : net.trainableParams()) {
            int s = (int) q.size();
            double[] a = java.util.Arrays.copyOfRange(theta, o, o + s);
            NDArray nv =
                    doubles(net.manager(), a, q.value().getShape(), q.value().getDataType());
            q.set(nv);
            o += s;
        }
    }

    /** ∇_θ (v·F) at the current θ, flattened as {@link #parameters}. */
    public double[] gradient() {
        return gradient(v);
    }

    /** ∇_θ (u·F) for another output weighting u (n × O, e.g. the centred labels for Ψ Ỹ). */
    public double[] gradient(double[] u) {
        int n = (int) x.getShape().get(0);
        try (NDManager m = net.manager().newSubManager()) {
            return gradient(doubles(m, u, new Shape(n, u.length / n), net.dataType()));
        }
    }

    private double[] gradient(NDArray weights) {
        List<Param> ps = net.trainableParams();
        try (NDManager m = net.manager().newSubManager()) {
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                NDArray f = net.forward(x, Forward.train(m));
                gc.backward(f.mul(weights).sum());
            }
            int p = 0;
            for (Param q : ps) {
                p += (int) q.size();
            }
            double[] g = new double[p];
            int o = 0;
            for (Param q : ps) {
                NDArray gr = q.value().getGradient();
                double[] a =
                        gr.toType(ai.djl.ndarray.types.DataType.FLOAT64, false).toDoubleArray();
                System.arraycopy(a, 0, g, o, a.length);
                o += a.length;
                JniUtils.zeroGrad((PtNDArray) q.value());
            }
            return g;
        }
    }

    /**
     * H_v u exactly, by double backward: ∇_θ(v·F) with {@code create_graph}, then the gradient of
     * ∇_θ(v·F)·u (JniUtils.backward; the a.e. Hessian of a ReLU network, no kink crossings).
     */
    public double[] timesExact(double[] u) {
        List<Param> ps = net.trainableParams();
        freshLeaves(ps); // a .grad made with create_graph keeps its graph: start from leaves without one
        try (NDManager m = net.manager().newSubManager()) {
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                NDArray f = net.forward(x, Forward.train(m));
                NDArray s = f.mul(v).sum();
                JniUtils.backward((PtNDArray) s, (PtNDArray) m.ones(s.getShape(), s.getDataType()), true, true);
                NDArray dot = null;
                int o = 0;
                for (Param q : ps) {
                    int sz = (int) q.size();
                    NDArray uk = doubles(
                            m,
                            java.util.Arrays.copyOfRange(u, o, o + sz),
                            q.value().getShape(),
                            q.value().getDataType());
                    NDArray t = q.value().getGradient().mul(uk).sum();
                    dot = dot == null ? t : dot.add(t);
                    o += sz;
                }
                for (Param q : ps) {
                    JniUtils.zeroGrad((PtNDArray) q.value());
                }
                JniUtils.backward((PtNDArray) dot, (PtNDArray) m.ones(dot.getShape(), dot.getDataType()), false, false);
            }
            double[] g = new double[u.length];
            int o = 0;
            for (Param q : ps) {
                double[] a = q.value()
                        .getGradient()
                        .toType(ai.djl.ndarray.types.DataType.FLOAT64, false)
                        .toDoubleArray();
                System.arraycopy(a, 0, g, o, a.length);
                o += a.length;
            }
            freshLeaves(ps);
            return g;
        }
    }

    /** Replaces every parameter by a copy (same values, a new leaf with no gradient). */
    private static void freshLeaves(List<Param> ps) {
        for (Param q : ps) {
            q.set(q.value().duplicate());
        }
    }

    /** H_v u by a central difference of gradients; θ is restored afterwards. */
    public double[] times(double[] u) {
        double[] theta = parameters(net);
        double norm = Math.sqrt(dot(u, u));
        if (norm == 0) {
            return new double[u.length];
        }
        double e = epsilon / norm;
        double[] t = theta.clone();
        for (int i = 0; i < t.length; i++) {
            t[i] = theta[i] + e * u[i];
        }
        setParameters(net, t);
        double[] gp = gradient();
        for (int i = 0; i < t.length; i++) {
            t[i] = theta[i] - e * u[i];
        }
        setParameters(net, t);
        double[] gm = gradient();
        setParameters(net, theta);
        double[] out = new double[u.length];
        for (int i = 0; i < u.length; i++) {
            out[i] = (gp[i] - gm[i]) / (2 * e);
        }
        return out;
    }

    /** Eigenpairs: eigenvalues (by decreasing |λ|) and unit eigenvectors (rows). */
    public record Eigen(double[] values, double[][] vectors) {}

    /**
     * The top {@code k} eigenpairs by |λ| from {@code steps} Lanczos steps with full re-orthogonalisation,
     * started from a seeded Gaussian vector; the Ritz pairs of the tridiagonal matrix.
     */
    public Eigen top(int k, int steps, long seed) {
        int p = parameters(net).length;
        int m = Math.min(steps, p);
        double[][] q = new double[m + 1][];
        double[] alpha = new double[m];
        double[] beta = new double[m];
        java.util.Random rnd = new java.util.Random(seed);
        double[] q0 = new double[p];
        for (int i = 0; i < p; i++) {
            q0[i] = rnd.nextGaussian();
        }
        scale(q0, 1 / Math.sqrt(dot(q0, q0)));
        q[0] = q0;
        int used = m;
        for (int j = 0; j < m; j++) {
            double[] w = apply(q[j]);
            alpha[j] = dot(w, q[j]);
            for (int r = 0; r < 2; r++) { // full re-orthogonalisation, twice
                for (int i = 0; i <= j; i++) {
                    double c = dot(w, q[i]);
                    for (int s = 0; s < p; s++) {
                        w[s] -= c * q[i][s];
                    }
                }
            }
            double b = Math.sqrt(dot(w, w));
            beta[j] = b;
            if (b < 1e-12 || j == m - 1) {
                used = j + 1;
                break;
            }
            scale(w, 1 / b);
            q[j + 1] = w;
        }
        DMatrixRMaj t = new DMatrixRMaj(used, used);
        for (int i = 0; i < used; i++) {
            t.set(i, i, alpha[i]);
            if (i + 1 < used) {
                t.set(i, i + 1, beta[i]);
                t.set(i + 1, i, beta[i]);
            }
        }
        EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(used, true, true);
        if (!eig.decompose(t)) {
            throw new IllegalStateException("Lanczos: tridiagonal eigen-decomposition failed");
        }
        Integer[] idx = new Integer[used];
        for (int i = 0; i < used; i++) {
            idx[i] = i;
        }
        java.util.Arrays.sort(
                idx,
                (a, b) -> Double.compare(
                        Math.abs(eig.getEigenvalue(b).getReal()),
                        Math.abs(eig.getEigenvalue(a).getReal())));
        int kk = Math.min(k, used);
        double[] vals = new double[kk];
        double[][] vecs = new double[kk][];
        for (int r = 0; r < kk; r++) {
            vals[r] = eig.getEigenvalue(idx[r]).getReal();
            DMatrixRMaj y = eig.getEigenVector(idx[r]);
            double[] vec = new double[p];
            for (int i = 0; i < used; i++) {
                double c = y.get(i, 0);
                for (int s = 0; s < p; s++) {
                    vec[s] += c * q[i][s];
                }
            }
            scale(vec, 1 / Math.sqrt(dot(vec, vec)));
            vecs[r] = vec;
        }
        return new Eigen(vals, vecs);
    }

    /**
     * Energy of a unit vector on each parameter layer: ‖u restricted to layer l's parameters‖² (sums to 1
     * over the layers; Fig. 4c's "norm of the truncation to layer l", squared).
     */
    public static double[] layerEnergy(Network net, double[] u) {
        List<org.ntk4j.model.Module> layers = net.parameterLayers();
        double[] e = new double[layers.size()];
        List<Param> ps = net.trainableParams();
        int o = 0;
        for (Param q : ps) {
            int s = (int) q.size();
            int layer = -1;
            for (int l = 0; l < layers.size(); l++) {
                if (layers.get(l).ownParams().contains(q)) {
                    layer = l;
                }
            }
            for (int i = o; i < o + s; i++) {
                e[layer] += u[i] * u[i];
            }
            o += s;
        }
        return e;
    }

    private static NDArray doubles(NDManager m, double[] a, Shape shape, ai.djl.ndarray.types.DataType type) {
        NDArray a64 = m.create(a, shape);
        NDArray out = a64.toType(type, false);
        if (out != a64) {
            a64.close();
        }
        return out;
    }

    public static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    private static void scale(double[] a, double c) {
        for (int i = 0; i < a.length; i++) {
            a[i] *= c;
        }
    }
}
