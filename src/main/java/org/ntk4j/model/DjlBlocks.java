package org.ntk4j.model;

import ai.djl.nn.Block;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.BatchNorm;
import ai.djl.training.ParameterStore;

/**
 * Turns a DJL block tree into modules for {@link Network#ofBlock}: a {@link SequentialBlock} becomes
 * a {@link Sequential} of its converted children, a {@code ParallelBlock} a {@link DjlParallel} of
 * its converted branches; DJL's own {@code Linear}, {@code Conv2d} and
 * {@code BatchNorm} (exact classes) become tappable {@link DjlLayer}s, so their tangent rules apply;
 * any other block runs opaquely ({@link DjlBlockModule}: the Jacobian path for its parameters).
 * Names follow DJL's child keys joined by dots ({@code 01Linear}, {@code 02SequentialBlock.01Conv2d}).
 */
final class DjlBlocks {
    private DjlBlocks() {}

    static Module convert(Block b, String prefix, ParameterStore store) {
        String name = prefix.isEmpty() ? b.getClass().getSimpleName() : prefix;
        if (b instanceof SequentialBlock sb) {
            Sequential s = new Sequential(prefix.isEmpty() ? "djl" : prefix);
            for (var c : sb.getChildren()) {
                s.add(convert(c.getValue(), prefix.isEmpty() ? c.getKey() : prefix + "." + c.getKey(), store));
            }
            return s;
        }
        if (b instanceof ai.djl.nn.ParallelBlock pb) {
            java.util.List<Module> branches = new java.util.ArrayList<>();
            for (var c : pb.getChildren()) {
                branches.add(convert(c.getValue(), prefix.isEmpty() ? c.getKey() : prefix + "." + c.getKey(), store));
            }
            DjlParallel p = DjlParallel.of(prefix.isEmpty() ? "djl" : prefix, pb, branches);
            if (p != null) {
                return p;
            }
        }
        if (b.getClass() == Linear.class) {
            return new DjlLinear(name, (Linear) b, store);
        }
        if (b.getClass() == Conv2d.class) {
            return new DjlConv2d(name, (Conv2d) b, store);
        }
        if (b.getClass() == BatchNorm.class) {
            return new DjlBatchNorm(name, (BatchNorm) b, store);
        }
        return new DjlBlockModule(prefix, b, store);
    }
}
