package org.ntk4j.train;

import ai.djl.ndarray.NDArray;
import org.ntk4j.model.Forward;

/**
 * Training losses, written with native scalars (never {@code NDArray.mul(Number)} on the graph: in DJL 0.35 it
 * wraps the number in a Java direct buffer that the autograd node keeps but the garbage collector may free before
 * backward, silently corrupting gradients; DJL's {@code Loss.l2Loss()} is avoided for that reason).
 */
public enum LossFunction {
    /** L = (1/N) Σ_i ½‖f(x_i) − y_i‖², the squared loss of the NTK papers (targets y as float rows). */
    MSE,
    /** L = −(1/N) Σ_i log softmax(f(x_i))_{y_i} (targets as one-hot rows). */
    CE;

    public static LossFunction parse(String s) {
        return "mse".equals(s) ? MSE : CE;
    }

    /** Mean loss over the batch; {@code target} is (N, O) (one-hot for CE). */
    public NDArray evaluate(NDArray f, NDArray target, Forward ctx) {
        return evaluate(f, target, ctx.scalar(scale(f.getShape().get(0)), f));
    }

    /**
     * The same with the batch's factor {@link #scale}(N) given as a 0-d array of f's type (a trainer keeps it
     * from step to step).
     */
    public NDArray evaluate(NDArray f, NDArray target, NDArray scale) {
        if (this == MSE) {
            NDArray d = f.sub(target);
            return d.mul(d).sum().mul(scale);
        }
        return f.logSoftmax(1).mul(target).sum().mul(scale);
    }

    /** The factor of the summed loss over a batch of {@code n}: 1/(2n) for MSE, −1/n for CE. */
    public double scale(long n) {
        return this == MSE ? 0.5 / n : -1.0 / n;
    }
}
