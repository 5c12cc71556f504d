package org.ntk4j.kernel;

import ai.djl.ndarray.NDScope;
import java.lang.reflect.Field;
import java.util.Map;
import org.ntk4j.kernel.factor.EngineOps;

/**
 * The scope of one tile pair: every array the engine makes while it is open is closed with it (the contraction's
 * intermediates are freed pair by pair, not kept until the row of tiles ends), and {@link #operations()} counts the
 * engine operations issued in it: arrays made (each product, sum, copy or view is one call into the engine) plus the
 * in-place operations counted by {@link EngineOps}. The count of arrays is read from DJL's scope (0.35), whose
 * registry is not public: where it cannot be read the count is -1 and the engine says so.
 */
final class OpScope extends NDScope {
    private static final Field RESOURCES = resources();

    private final long inPlaceBefore = EngineOps.inPlaceCalls();

    private static Field resources() {
        try {
            Field f = NDScope.class.getDeclaredField("resources");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Engine operations issued since the scope opened, or -1 when DJL's scope cannot be read. */
    long operations() {
        if (RESOURCES == null) {
            return -1;
        }
        try {
            Map<?, ?> made = (Map<?, ?>) RESOURCES.get(this);
            return made.size() + EngineOps.inPlaceCalls() - inPlaceBefore;
        } catch (IllegalAccessException | ClassCastException e) {
            return -1;
        }
    }

    /** Whether the engine's operations can be counted here. */
    static boolean counting() {
        return RESOURCES != null;
    }
}
