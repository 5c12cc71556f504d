package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.ParameterStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Any initialised DJL {@link Block} that {@link DjlBlocks} cannot open up (not a sequential or
 * parallel block, nor one of DJL's layers with a tangent rule) as an opaque module, so the NTK
 * engine's generic (Jacobian) path can measure it: the forward pass runs the block itself (eval
 * mode), and each DJL sub-block that owns
 * trainable parameters becomes one parameter layer whose {@link Param}s are the block's own arrays
 * (gradients land on them). Parameters cannot be replaced or re-cast through this view.
 */
final class DjlBlockModule extends Module {
    private final Block block;
    private final ParameterStore store;
    private final List<Module> groups = new ArrayList<>();

    /** The block as a module named {@code prefix} (its parameter groups named below it); "" for a root. */
    DjlBlockModule(String prefix, Block block, ParameterStore store) {
        super(prefix.isEmpty() ? "djl" : prefix);
        this.block = block;
        this.store = store;
        collect(block, prefix, groups);
    }

    /** One group per sub-block with direct trainable parameters, in DJL's (insertion) order. */
    private static void collect(Block b, String prefix, List<Module> out) {
        List<Param> ps = new ArrayList<>();
        String name = prefix.isEmpty() ? b.getClass().getSimpleName() : prefix;
        for (var e : b.getDirectParameters()) {
            Parameter p = e.getValue();
            if (p.requiresGradient()) {
                Param q = new Param(name + "." + e.getKey(), Param.Role.WEIGHT);
                q.adopt(p.getArray());
                ps.add(q);
            }
        }
        if (!ps.isEmpty()) {
            out.add(new Group(name, ps, b.getClass().getName()));
        }
        for (var c : b.getChildren()) {
            collect(c.getValue(), prefix.isEmpty() ? c.getKey() : prefix + "." + c.getKey(), out);
        }
    }

    @Override
    public List<Module> children() {
        return Collections.unmodifiableList(groups);
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape inputShape, Random rng) {
        Shape[] out = block.getOutputShapes(new Shape[] {new Shape(1).addAll(inputShape)});
        return out[0].slice(1);
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        return block.forward(store, new NDList(x), false).singletonOrThrow();
    }

    /** A DJL sub-block's parameters, as one parameter layer. */
    static final class Group extends Module {
        private final List<Param> params;
        private final String djlType;

        Group(String name, List<Param> params, String djlType) {
            super(name);
            this.params = params;
            this.djlType = djlType;
        }

        /** The DJL block class that owns these parameters, e.g. {@code ai.djl.nn.convolutional.Conv1d}. */
        @Override
        public String typeName() {
            return "DJL block " + djlType;
        }

        @Override
        public List<Param> ownParams() {
            return Collections.unmodifiableList(params);
        }

        @Override
        public Shape initialize(NDManager m, DataType type, Shape inputShape, Random rng) {
            throw new UnsupportedOperationException("DJL parameters are initialised by the block");
        }

        @Override
        public NDArray forward(NDArray x, Forward ctx) {
            throw new UnsupportedOperationException("the DJL block runs its own forward pass");
        }
    }
}
