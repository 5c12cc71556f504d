package org.ntk4j.report;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.ntk4j.kernel.KernelMatrix;

/**
 * NPZ export through DJL's own encoder ({@code NDList.encode(NPZ)}): a zip of .npy arrays that
 * {@code numpy.load} and {@code torch} read. Entries are written in insertion order, atomically.
 */
public final class Npz {
    private final Map<String, NDArray> entries = new LinkedHashMap<>();
    private final NDManager manager;

    public Npz(NDManager manager) {
        this.manager = manager;
    }

    public Npz put(String name, NDArray a) {
        NDArray c = a.duplicate();
        c.setName(name);
        entries.put(name, c);
        return this;
    }

    public Npz put(String name, KernelMatrix k) {
        NDArray a = k.isFloat64() ? manager.create(k.toDoubleArray(), new Shape(k.shape()))
                : manager.create(k.toFloatArray(), new Shape(k.shape()));
        a.setName(name);
        entries.put(name, a);
        return this;
    }

    public Npz put(String name, float[] v, long... shape) {
        NDArray a = manager.create(v, new Shape(shape));
        a.setName(name);
        entries.put(name, a);
        return this;
    }

    public Npz put(String name, int[] v, long... shape) {
        NDArray a = manager.create(v, new Shape(shape));
        a.setName(name);
        entries.put(name, a);
        return this;
    }

    public void write(Path file) {
        NDList list = new NDList(entries.values());
        Files2.writeAtomically(file, os -> list.encode(os, NDList.Encoding.NPZ));
    }
}
