package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.ParallelBlock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

/**
 * A DJL {@link ParallelBlock} (e.g. a ResNet residual unit: a body and a shortcut joined by a sum)
 * with its branches converted like the rest of the tree, so the DJL layers inside them stay tappable.
 * DJL keeps the join function private; {@link #of} reads it reflectively and returns null when it
 * cannot, and the block then runs opaquely ({@link DjlBlockModule}).
 */
final class DjlParallel extends Module {
    private final ParallelBlock block;
    private final List<Module> branches;
    private final Function<List<NDList>, NDList> join;

    private DjlParallel(String name, ParallelBlock block, List<Module> branches, Function<List<NDList>, NDList> join) {
        super(name);
        this.block = block;
        this.branches = branches;
        this.join = join;
    }

    /** The block with converted branches, or null when its join function cannot be read. */
    @SuppressWarnings("unchecked")
    static DjlParallel of(String name, ParallelBlock block, List<Module> branches) {
        try {
            var f = ParallelBlock.class.getDeclaredField("function");
            f.setAccessible(true);
            return new DjlParallel(name, block, branches, (Function<List<NDList>, NDList>) f.get(block));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    @Override
    public List<Module> children() {
        return Collections.unmodifiableList(branches);
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        for (Module b : branches) {
            b.initialize(m, type, in, rng);
        }
        return block.getOutputShapes(new Shape[] {new Shape(1).addAll(in)})[0].slice(1);
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        List<NDList> outs = new ArrayList<>();
        for (Module b : branches) {
            outs.add(new NDList(b.forward(x, ctx)));
        }
        return join.apply(outs).singletonOrThrow();
    }
}
