package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.ParameterStore;
import java.util.Random;

/**
 * One initialised DJL layer (a {@code Linear}, {@code Conv2d}, {@code BatchNorm}) as a tappable
 * module: the forward pass runs the DJL block itself in eval mode, and in probe mode hands the
 * probe its input and output, so the layer's tangent rule applies ({@code org.ntk4j.kernel.rule}).
 * Its {@link Param}s are the block's own arrays (gradients land on them); they cannot be replaced or
 * re-cast through this view. Built by {@link Network#ofBlock}.
 */
public abstract class DjlLayer extends Module implements TangentLayer {
    private final Block block;
    private final ParameterStore store;
    private final Param weight;
    private final Param bias;
    private Shape inputShape;

    DjlLayer(
            String name,
            Block block,
            ParameterStore store,
            String weightKey,
            Param.Role weightRole,
            String biasKey,
            Param.Role biasRole) {
        super(name);
        this.block = block;
        this.store = store;
        this.weight = adopt(weightKey, weightRole);
        this.bias = adopt(biasKey, biasRole);
    }

    private Param adopt(String key, Param.Role role) {
        for (var e : block.getDirectParameters()) {
            Parameter p = e.getValue();
            if (e.getKey().equals(key) && p.requiresGradient() && p.isInitialized()) {
                Param q = param(key, role);
                q.adopt(p.getArray());
                return q;
            }
        }
        return null;
    }

    /** The DJL block. */
    public Block block() {
        return block;
    }

    /** Per-sample input shape (after {@link #initialize}). */
    public Shape inputShape() {
        return inputShape;
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        inputShape = in;
        return block.getOutputShapes(new Shape[] {new Shape(1).addAll(in)})[0].slice(1);
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        NDArray y = block.forward(store, new NDList(x), false).singletonOrThrow();
        return ctx.probe() == null ? y : ctx.probe().tap(this, probeInput(x), y);
    }

    /** What the rule reads as the layer's input: {@code x} itself unless overridden. */
    protected NDArray probeInput(NDArray x) {
        return x;
    }

    @Override
    public double weightScale() {
        return 1.0;
    }

    @Override
    public double biasScale() {
        return bias == null ? 0.0 : 1.0;
    }

    @Override
    public Param weight() {
        return weight;
    }

    @Override
    public Param bias() {
        return bias;
    }
}
