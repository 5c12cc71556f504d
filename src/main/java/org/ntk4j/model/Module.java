package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * A differentiable function of one array with named parameters: the unit networks are built from.
 * Shapes exclude the batch axis. Subclasses declare parameters in their constructor with
 * {@link #param} and fill them in {@link #initialize}.
 */
public abstract class Module {
    private final String name;
    private final List<Param> params = new ArrayList<>();

    protected Module(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    /** The layer's type as its author named it: the class name, or the DJL block class of a DJL parameter group. */
    public String typeName() {
        return getClass().getSimpleName();
    }

    protected Param param(String suffix, Param.Role role) {
        Param p = new Param(name + "." + suffix, role);
        params.add(p);
        return p;
    }

    /** Parameters this module owns directly (not its children's), in declaration order; overridable by views. */
    public List<Param> ownParams() {
        return Collections.unmodifiableList(params);
    }

    /** Sub-modules in forward order; empty for leaves. */
    public List<Module> children() {
        return List.of();
    }

    /**
     * Creates the parameters for an input of the given per-sample shape, drawing from {@code rng}
     * in a fixed order so that a seed gives the same network on any device, and returns the output
     * shape.
     */
    public abstract Shape initialize(NDManager manager, DataType type, Shape inputShape, Random rng);

    /**
     * The per-sample output shape for input {@code in}, computed without creating any array, adding the trainable
     * parameters this module and its children would create to {@code count}: what {@link #initialize} returns and
     * creates, for a model spec's parameter count ({@link Models#parameterCount}). Defined by every module a spec can
     * name; others throw.
     */
    public Shape plan(Shape in, ParameterCount count) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no shape plan");
    }

    /** The forward pass on a batch (batch axis first). */
    public abstract NDArray forward(NDArray x, Forward ctx);

    /** Parameter count (trainable only) of this module and its children. */
    public long parameterCount() {
        long n = 0;
        for (Param p : params) {
            if (p.trainable()) {
                n += p.size();
            }
        }
        for (Module c : children()) {
            n += c.parameterCount();
        }
        return n;
    }

    /**
     * Helper: an array from Java values, cloned natively so no Java buffer stays aliased (DJL 0.35: arrays created from
     * Java buffers live only as long as the buffer).
     */
    protected static NDArray create(NDManager m, DataType type, float[] values, Shape shape) {
        try (NDArray tmp = m.create(values, shape)) {
            return tmp.toType(type, false).duplicate();
        }
    }

    /** A float64 array from Java values, cloned natively (no aliased Java buffer). */
    public static NDArray create64(NDManager m, double[] values, Shape shape) {
        try (NDArray tmp = m.create(values, shape)) {
            return tmp.duplicate();
        }
    }

    /**
     * Refuses a parameter too large for one Java array, or for the heap, with a message naming its size (a model whose
     * widths multiply past 2³¹, e.g. two dense layers of width 100,000).
     */
    static int parameterSize(long n) {
        if (n > Integer.MAX_VALUE - 8) {
            throw new org.ntk4j.UserException("a parameter of " + n + " values is more than one array holds (2^31 − 1):"
                    + " reduce the model's widths");
        }
        if (n * 4 > Runtime.getRuntime().maxMemory()) {
            throw new org.ntk4j.UserException("a parameter of " + n + " values (" + (n * 4 >> 20) + " MiB in float32)"
                    + " is more than the Java heap (" + (Runtime.getRuntime().maxMemory() >> 20) + " MiB): reduce the"
                    + " model's widths");
        }
        return (int) n;
    }

    /** Values ~ N(0, std²). */
    protected static float[] gaussian(Random rng, long n, double std) {
        float[] v = new float[parameterSize(n)];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) (rng.nextGaussian() * std);
        }
        return v;
    }

    /** Values ~ U(-bound, bound). */
    protected static float[] uniform(Random rng, long n, double bound) {
        float[] v = new float[parameterSize(n)];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) ((2 * rng.nextDouble() - 1) * bound);
        }
        return v;
    }
}
