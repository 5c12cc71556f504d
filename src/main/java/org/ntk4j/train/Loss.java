package org.ntk4j.train;

import ai.djl.ndarray.NDArray;
import org.ntk4j.model.Forward;

/**
 * Training losses, written with native scalars (never {@code NDArray.mul(Number)} on the graph: in DJL 0.35 it
 * wraps the number in a Java direct buffer that the autograd node keeps but the garbage collector may free before
 * backward, silently corrupting gradients; DJL's {@code Loss.l2Loss()} is avoided for that reason).
 */
public enum Loss {
    /** L = (1/N) Σ_i ½‖f(x_i) − y_i‖², the squared loss of the NTK papers (targets y as float rows). */
    MSE,
    /** L = −(1/N) Σ_i log softmax(f(x_i))_{y_i} (targets as one-hot rows). */
    CE;

    public static Loss parse(String s) {
        return "mse".equals(s) ? MSE : CE;
    }

    /** Mean loss over the batch; {@code target} is (N, O) (one-hot for CE). */
    public NDArray evaluate(NDArray f, NDArray target, Forward ctx) {
        long n = f.getShape().get(0);
        if (this == MSE) {
            NDArray d = f.sub(target);
            return d.mul(d).sum().mul(ctx.scalar(0.5 / n, f));
        }
        return f.logSoftmax(1).mul(target).sum().mul(ctx.scalar(-1.0 / n, f));
    }
}
