package org.ntk4j.kernel.factor;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import java.util.Map;

/**
 * Builds one tapped layer's tangent factors from the probe pass, one output at a time: after the
 * backward pass of output o, {@link #accept} reduces ∂f_o/∂y to what the layer's contraction reads
 * (a dense layer's δ row, a conv layer's per-sample weight gradients, batch-norm's γ/β rows) and
 * keeps it, copied into slot o of a buffer allocated once in the tile's manager or as computed.
 * Nothing of size O × (layer output) is ever held and each output's temporaries are freed at once,
 * so a tile touches little fresh memory: on this project's VMs a first-touched page costs about
 * 1.5 µs (0.4 s per GiB), as much as the arithmetic of the early ResNet layers
 * (benchmarks/RESULTS.md, case (c)).
 */
public abstract class FactorBuilder {
    /** Where the factors live: the tile's manager. */
    protected final NDManager keep;

    protected final int outputs;

    protected FactorBuilder(NDManager keep, int outputs) {
        this.keep = keep;
        this.outputs = outputs;
    }

    /**
     * Consumes g = ∂f_o/∂y on the tile, shape (n, layer output...). {@code g} is an alias of a
     * gradient buffer that the next backward pass overwrites: only copies may outlive the call.
     */
    public abstract void accept(int o, NDArray g);

    /**
     * Consumes the gradients of every output at once, {@code all} = ∂f/∂y on the tile, shape (n, O, layer
     * output...), as a probe pass that backpropagates all O cotangents together produces them; {@code all} is this
     * builder's to keep (it is not overwritten). By default each output's slice goes to {@link #accept}.
     */
    public void acceptAll(NDArray all) {
        for (int o = 0; o < outputs; o++) {
            accept(o, all.get(new NDIndex(":, {}", o)));
        }
    }

    /** Puts the finished factor(s) under the layer's name, or under each parameter's name. */
    public abstract void finish(Map<String, LayerFactor> out, boolean parts);

    /**
     * An uninitialised buffer (n, O, rest...) in the tile's manager, typed like {@code like}; every
     * slot o is written by {@link #accept}, so zero-filling would only touch the pages twice.
     */
    protected NDArray buffer(NDArray like, long... rest) {
        long[] dims = new long[rest.length + 2];
        dims[0] = like.getShape().get(0);
        dims[1] = outputs;
        System.arraycopy(rest, 0, dims, 2, rest.length);
        NDArray buf = keep.create(new Shape(dims), like.getDataType());
        NDScope.unregister(buf); // made inside accept's per-output scope, it must outlive it
        return buf;
    }

    /** buf[:, o] = value (a copy). */
    protected static void put(NDArray buf, int o, NDArray value) {
        buf.set(new NDIndex(":, {}", o), value);
    }
}
