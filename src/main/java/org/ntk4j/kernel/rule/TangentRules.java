package org.ntk4j.kernel.rule;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.ntk4j.model.BatchNorm2d;
import org.ntk4j.model.Conv2d;
import org.ntk4j.model.Dense;
import org.ntk4j.model.DjlBatchNorm;
import org.ntk4j.model.DjlConv2d;
import org.ntk4j.model.DjlLinear;
import org.ntk4j.model.LayerNorm;
import org.ntk4j.model.TangentLayer;

/**
 * The registry of {@link TangentRule}s, keyed by layer class. Lookup tries the layer's exact class,
 * then its superclasses, then the interfaces of those classes (nearest first); a layer with no rule
 * (or that is not a {@link TangentLayer}, so cannot be tapped) takes the generic Jacobian path
 * ({@link JacobianRule}). Users add rules for their own layers with {@link #register}.
 */
public final class TangentRules {
    private static final Map<Class<?>, TangentRule<?>> RULES = new ConcurrentHashMap<>();

    static {
        register(Dense.class, new DenseRule());
        register(Conv2d.class, Conv2dRule.ntk4j());
        register(BatchNorm2d.class, new BatchNorm2dRule());
        register(LayerNorm.class, new LayerNormRule());
        register(DjlLinear.class, new DjlLinearRule());
        register(DjlConv2d.class, new DjlConv2dRule());
        register(DjlBatchNorm.class, new DjlBatchNormRule());
    }

    private TangentRules() {}

    /** Registers (or replaces) the rule for layers of class {@code type} and its subclasses without a rule of their own. */
    public static <L extends TangentLayer> void register(Class<L> type, TangentRule<? super L> rule) {
        RULES.put(type, rule);
    }

    /** The rule for {@code layer}, or null when it has none. */
    @SuppressWarnings("unchecked")
    public static TangentRule<TangentLayer> find(Object layer) {
        if (!(layer instanceof TangentLayer)) {
            return null;
        }
        for (Class<?> c = layer.getClass(); c != null; c = c.getSuperclass()) {
            TangentRule<?> r = RULES.get(c);
            if (r != null) {
                return (TangentRule<TangentLayer>) r;
            }
        }
        Deque<Class<?>> queue = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        for (Class<?> c = layer.getClass(); c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                queue.add(i);
            }
        }
        while (!queue.isEmpty()) {
            Class<?> i = queue.poll();
            if (!seen.add(i)) {
                continue;
            }
            TangentRule<?> r = RULES.get(i);
            if (r != null) {
                return (TangentRule<TangentLayer>) r;
            }
            for (Class<?> s : i.getInterfaces()) {
                queue.add(s);
            }
        }
        return null;
    }
}
