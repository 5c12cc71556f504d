package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Residual connection y = φ(main(x) + shortcut(x)) (He et al. 2016). The shortcut is the identity
 * when null, else any module with the same output shape as {@code main} (e.g. a 1×1 strided conv +
 * batch-norm, "option B", or {@link PadShortcut}, "option A"); φ is applied after the sum when
 * non-null (post-activation ResNet basic block) and omitted for pre-activation blocks (WideResNet).
 * Parameters are drawn for main first, then the shortcut.
 */
public final class Residual extends Module {
    private final Module main;
    private final Module shortcut;
    private final Module post;

    public Residual(String name, Module main, Module shortcut, Module post) {
        super(name);
        this.main = main;
        this.shortcut = shortcut;
        this.post = post;
    }

    @Override
    public List<Module> children() {
        List<Module> c = new ArrayList<>();
        c.add(main);
        if (shortcut != null) {
            c.add(shortcut);
        }
        if (post != null) {
            c.add(post);
        }
        return c;
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        Shape a = main.initialize(m, type, in, rng);
        Shape b = shortcut == null ? in : shortcut.initialize(m, type, in, rng);
        if (!a.equals(b)) {
            throw new IllegalArgumentException(name() + ": main branch gives " + a + " but shortcut gives " + b);
        }
        return post == null ? a : post.initialize(m, type, a, rng);
    }

    @Override
    public Shape plan(Shape in, ParameterCount count) {
        Shape a = main.plan(in, count);
        Shape b = shortcut == null ? in : shortcut.plan(in, count);
        if (!a.equals(b)) {
            throw new IllegalArgumentException(name() + ": main branch gives " + a + " but shortcut gives " + b);
        }
        return post == null ? a : post.plan(a, count);
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        NDArray y = main.forward(x, ctx).add(shortcut == null ? x : shortcut.forward(x, ctx));
        return post == null ? y : post.forward(y, ctx);
    }
}
