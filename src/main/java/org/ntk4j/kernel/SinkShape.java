package org.ntk4j.kernel;

import ai.djl.ndarray.types.DataType;
import org.ntk4j.kernel.factor.Mode;

/**
 * The shape and type of one output kernel a {@link KernelSink} holds: {@code rows} × {@code cols}, with the output
 * axes of {@code mode} for {@code outputs} outputs ({@link KernelMatrix#shapeOf}), in {@code type}.
 *
 * @param rows rows of the kernel (or block)
 * @param cols columns
 * @param mode output axes kept
 * @param outputs O, the network's outputs
 * @param type float32, or float64 for float64 accumulation
 */
record SinkShape(int rows, int cols, Mode mode, int outputs, DataType type) {
    /** The same kernel with the output axes of {@code m}. */
    SinkShape withMode(Mode m) {
        return new SinkShape(rows, cols, m, outputs, type);
    }
}
