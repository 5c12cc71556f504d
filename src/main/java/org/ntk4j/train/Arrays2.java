package org.ntk4j.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import org.ntk4j.data.LabelledSet;

/**
 * Host → device arrays that own native memory (no Java buffer left aliased: in DJL 0.35 an array from
 * {@code NDManager.create(float[])} lives in a Java direct buffer, and {@code toType(sameType, true)} aliases it
 * rather than copying, so only {@code duplicate()} gives a tensor that survives the buffer being collected).
 */
public final class Arrays2 {
    private Arrays2() {}

    public static NDArray fromFloats(NDManager m, float[] v, Shape shape, DataType type) {
        try (NDArray tmp = m.create(v, shape)) {
            NDArray out = type == DataType.FLOAT32
                    ? tmp.duplicate()
                    : tmp.toType(type, true).duplicate();
            return out;
        }
    }

    /**
     * {@code v} in the engine as one array of {@code type} with no second copy, for an array its caller holds open
     * until every array computed from it is closed (the training set of a run, a batch): in float32 on the CPU the
     * engine computes on the Java direct buffer that the returned array keeps ({@code from_blob}), where
     * {@link #fromFloats} copies it again (a 60,000-image MNIST set is 188 MB, and each first touch of fresh memory
     * costs page faults: 0.4-0.5 s per copy on the benchmark machine, benchmarks/RESULTS.md); on a GPU, or in another
     * type, the engine makes its own copy either way. Never give the result to code that may close it early while a
     * view of it lives (a slice, a reshape): that view would read a buffer the garbage collector may reclaim.
     */
    public static NDArray held(NDManager m, float[] v, Shape shape, DataType type) {
        if (type == DataType.FLOAT32) {
            return m.create(v, shape);
        }
        try (NDArray tmp = m.create(v, shape)) {
            return tmp.toType(type, true).duplicate();
        }
    }

    /**
     * The features of {@code data} in the engine as {@link #held} gives them, written straight into the engine's
     * buffer ({@link LabelledSet#copyFeaturesTo}: a set of 8-bit images never makes its float array on the Java
     * heap).
     */
    public static NDArray held(NDManager m, org.ntk4j.data.LabelledSet data, Shape shape, DataType type) {
        long values = (long) data.size() * data.featureDim();
        if (values * 4 > Integer.MAX_VALUE - 8 || shape.size() != values) {
            return held(m, data.features(), shape, type); // DJL's own path and its checks
        }
        java.nio.ByteBuffer buf = m.allocateDirect((int) (values * 4));
        data.copyFeaturesTo(buf.asFloatBuffer());
        if (type == DataType.FLOAT32) {
            return m.create(buf, shape, DataType.FLOAT32); // the array keeps the buffer (as m.create(float[]) does)
        }
        try (NDArray tmp = m.create(buf, shape, DataType.FLOAT32)) {
            return tmp.toType(type, true).duplicate();
        }
    }

    /**
     * The features of {@code data} in the engine, (n, input...) of {@code shape}, in {@code type}, in native memory the
     * array owns (as {@link #fromFloats} gives them, bit for bit). A set of 8-bit images ({@link
     * LabelledSet#hasPixels}) goes into the engine as its bytes and is made float there by the readers' formula
     * {@code (b & 0xFF) / 255f} (one true division in float32 of the byte widened to float32, as {@link HeldFeatures}
     * does for training: the same float as Java's); its float array is never made on the Java heap. For the 10,000
     * MNIST images of a kernel that took 5-9 ms instead of ~0.2 s (the float array, a direct buffer and the engine's
     * copy of 31 MB, each first touched; benchmarks/RESULTS.md, "kernel inputs from bytes"); any other set takes
     * {@link #fromFloats}.
     */
    public static NDArray owned(NDManager m, LabelledSet data, Shape shape, DataType type) {
        if (shape.size() != (long) data.size() * data.featureDim() || !HeldFeatures.heldAsBytes(data, shape)) {
            return fromFloats(m, data.features(), shape, type);
        }
        HeldFeatures bytes = HeldFeatures.of(m, data, shape, type, true);
        try {
            return bytes.all(); // a new array: the division's result, in native memory of its own
        } finally {
            bytes.close(); // the bytes; the floats stay
        }
    }

    /** Samples [from, to) of {@code data} as the network's input batch (to − from, input shape...) in its data type. */
    public static NDArray inputs(
            NDManager m, org.ntk4j.model.Network net, org.ntk4j.data.LabelledSet data, int from, int to) {
        long[] shape = new long[net.inputShape().dimension() + 1];
        shape[0] = to - from;
        System.arraycopy(net.inputShape().getShape(), 0, shape, 1, shape.length - 1);
        int d = data.featureDim();
        float[] v = from == 0 && to == data.size()
                ? data.features()
                : java.util.Arrays.copyOfRange(data.features(), from * d, to * d);
        return fromFloats(m, v, new Shape(shape), net.dataType());
    }

    /**
     * A 0-d constant {@code v} of type {@code type} on {@code device} in native memory, safe to use on a
     * differentiable path (as {@code Forward.scalar}): exact in float64, {@code (float) v} in other types.
     */
    public static NDArray scalar(NDManager m, double v, DataType type, ai.djl.Device device) {
        if (type == DataType.FLOAT64) {
            try (NDArray tmp = m.create(v)) {
                return tmp.toDevice(device, false).duplicate();
            }
        }
        return m.full(new Shape(), (float) v, type, device);
    }

    /** The value of a 0-d array of any floating type. */
    public static double value(NDArray a) {
        return a.toType(DataType.FLOAT64, false).getDouble();
    }
}
