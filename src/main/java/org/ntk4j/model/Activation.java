package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;
import org.ntk4j.spec.ActivationKind;

/** Pointwise nonlinearity φ; parameter-free. */
public final class Activation extends Module {
    private final ActivationKind kind;

    public Activation(String name, ActivationKind kind) {
        super(name);
        this.kind = kind;
    }

    public ActivationKind kind() {
        return kind;
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        return in;
    }

    @Override
    public Shape plan(Shape in, ParameterCount count) {
        return in;
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        switch (kind) {
            case RELU:
                return x.getNDArrayInternal().relu();
            case TANH:
                return x.tanh();
            case ERF:
                return x.erf();
            case QUADRATIC:
                return x.mul(x);
            case LINEAR:
                return x;
            default:
                throw new IllegalStateException(kind.toString());
        }
    }
}
