package org.ntk4j.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;

/** Host → device arrays that own native memory (no Java buffer left aliased; notes/djl.md §8.1). */
public final class Arrays2 {
    private Arrays2() {}

    public static NDArray fromFloats(NDManager m, float[] v, Shape shape, DataType type) {
        try (NDArray tmp = m.create(v, shape)) {
            NDArray out = type == DataType.FLOAT32 ? tmp.duplicate() : tmp.toType(type, true).duplicate();
            return out;
        }
    }

    /** The value of a 0-d array of any floating type. */
    public static double value(NDArray a) {
        return a.toType(DataType.FLOAT64, false).getDouble();
    }
}
