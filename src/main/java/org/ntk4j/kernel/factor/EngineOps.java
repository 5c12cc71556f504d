package org.ntk4j.kernel.factor;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;

/**
 * In-place engine operations that the kernel engine counts, and views a factor keeps across tile pairs. Every
 * engine operation that makes a tensor (a product, a sum, a view) is counted by the scope that records it; an
 * in-place operation makes none, so the contractions issue theirs here, where they are counted too ({@link
 * #inPlaceCalls()}). On a GPU each operation is a kernel launch, on the CPU a pass over memory or a call into the
 * engine: the count per tile pair is what the engine's test caps.
 */
public final class EngineOps {
    private static final ThreadLocal<long[]> IN_PLACE = ThreadLocal.withInitial(() -> new long[1]);

    private EngineOps() {}

    /** a += b in place (b broadcast to a); returns a. */
    public static NDArray addInPlace(NDArray a, NDArray b) {
        a.addi(b);
        IN_PLACE.get()[0]++;
        return a;
    }

    /** a ⊙= b in place (b broadcast to a); returns a. */
    public static NDArray mulInPlace(NDArray a, NDArray b) {
        a.muli(b);
        IN_PLACE.get()[0]++;
        return a;
    }

    /** Counts one in-place call made elsewhere (a slice assignment). */
    public static void countInPlace() {
        IN_PLACE.get()[0]++;
    }

    /** In-place operations issued on this thread so far. */
    public static long inPlaceCalls() {
        return IN_PLACE.get()[0];
    }

    /**
     * Keeps {@code view}, made while a tile pair's scope is open, beyond that scope: for views of a tile's factors
     * (a reshape, a transpose) that every later pair reuses. The view lives in its base array's manager, the tile's.
     */
    public static NDArray keep(NDArray view) {
        NDScope.unregister(view);
        return view;
    }

    /**
     * A 0-d scalar of {@code like}'s type on its device, kept with {@code like}'s manager and made once per factor:
     * {@link #scalar(NDManager, DataType, double)} moved to {@code like}'s device where that differs from its
     * manager's.
     */
    public static NDArray scalar(NDArray like, double value) {
        NDArray s = scalar(like.getManager(), like.getDataType(), value);
        if (!s.getDevice().equals(like.getDevice())) {
            NDArray d = s.toDevice(like.getDevice(), false);
            s.close();
            s = d;
        }
        return keep(s);
    }

    /**
     * A 0-d scalar of {@code type} in {@code manager}, on its device, kept beyond any open scope: a native copy, so
     * no Java buffer backs it (an array made from a Java value lives in a Java buffer, and the engine's {@code
     * to(...)} of an array to its own type and device returns the same storage, not a copy).
     */
    public static NDArray scalar(NDManager manager, DataType type, double value) {
        NDArray s;
        try (NDArray host = manager.create(value)) {
            NDScope.unregister(host); // made once per factor, not a tile pair's work
            s = keep(host.duplicate());
        }
        if (s.getDataType() != type) {
            NDArray t = keep(s.toType(type, false));
            s.close();
            s = t;
        }
        return s;
    }
}
