package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;

/**
 * A network linearised around θ0, f_lin(x; θ) = f(x; θ0) + J(x)(θ − θ0), J(x) = ∂f(x; θ)/∂θ at θ0 (Lee et al. 2019,
 * Wide Neural Networks of Any Depth Evolve as Linear Models Under Gradient Descent, Eq. 3); made by {@link
 * NtkFunction#linearize()}. θ0 is a copy taken then: later changes to the network (training) do not move it. J(x)(θ −
 * θ0) is a Jacobian-vector product by double backward ({@link NtkFunction}), so Θ is never formed.
 *
 * <p>Memory: each {@link #forward(NDArray, NDList)} (and each {@link NtkFunction#ntkVp} pair of passes) leaves native
 * memory behind: PyTorch's backward with create_graph puts on the scalar leaf t a gradient whose graph holds t again
 * (the tangent, the line's parameters θ0 + t u and the saved copies of θ0), a reference cycle that only resetting
 * {@code t.grad} or using {@code torch.autograd.grad} instead of backward would avoid, and DJL 0.35's JNI offers
 * neither (nor forward-mode AD). Measured on CPU: about 2.8 times the parameters' bytes per call (a 784-1024-10 MLP, 32
 * samples: ~9 MiB; held to that by {@code JvpMemoryTest}). Fine for evaluations, not for a loop of thousands of calls
 * in one JVM; there, for a modest number of samples, form the kernel ({@link NtkFunction#apply}) and multiply.
 */
public final class Linearized implements AutoCloseable {
    private final NtkFunction f;
    private final NDList theta0;

    Linearized(NtkFunction f, NDList theta0) {
        this.f = f;
        this.theta0 = theta0;
    }

    /** θ0, in {@link NtkFunction#parameters()} order (the caller must not close them). */
    public NDList theta0() {
        return theta0;
    }

    /** f(x; θ0), (N, O), on x's manager. */
    public NDArray forward(NDArray x) {
        return f.withParameters(theta0, () -> f.value(x));
    }

    /**
     * f_lin(x; θ) = f(x; θ0) + J(x)(θ − θ0), (N, O), on x's manager, with θ in {@link NtkFunction#parameters()} order
     * and shapes. The network's own parameter values are restored afterwards.
     */
    public NDArray forward(NDArray x, NDList theta) {
        f.checkSamples(x, "x");
        if (theta.size() != theta0.size()) {
            throw new org.ntk4j.UserException("theta has " + theta.size() + " arrays; the network has " + theta0.size()
                    + " trainable parameters (" + String.join(", ", f.parameterNames()) + ")");
        }
        return f.withParameters(theta0, () -> {
            try (NDManager m = x.getManager().newSubManager()) {
                NDList delta = new NDList();
                for (int k = 0; k < theta0.size(); k++) {
                    NDArray t0 = theta0.get(k);
                    NDArray t = theta.get(k);
                    if (!t.getShape().equals(t0.getShape())) {
                        throw new org.ntk4j.UserException(
                                "theta[" + k + "] (" + f.parameterNames().get(k) + ") has shape " + t.getShape()
                                        + "; expected " + t0.getShape());
                    }
                    NDArray d = t.toType(t0.getDataType(), false)
                            .toDevice(t0.getDevice(), false)
                            .sub(t0);
                    d.attach(m);
                    delta.add(d);
                }
                NDArray f0 = f.value(x);
                NDArray jd = f.jvp(x, delta);
                NDArray out = f0.add(jd);
                out.attach(x.getManager());
                f0.close();
                jd.close();
                return out;
            }
        });
    }

    /** Frees θ0. */
    @Override
    public void close() {
        theta0.close();
    }
}
