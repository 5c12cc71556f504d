package org.ntk4j.util;

import ai.djl.Device;
import ai.djl.engine.Engine;
import java.util.Locale;
import org.ntk4j.UserException;

/**
 * The one place that chooses where arrays live (README "On a GPU", native-notes/): {@code auto} takes the first GPU
 * when the PyTorch engine sees one (CUDA natives loaded, see native-notes/), else the CPU.
 */
public final class Devices {
    private Devices() {}

    /** Sets the PyTorch thread count; must run before the engine starts. */
    public static void threads(Integer n) {
        if (n != null) {
            if (n < 1) {
                throw new UserException("--threads must be >= 1 (got " + n + ")");
            }
            System.setProperty(Machine.THREADS_PROPERTY, String.valueOf(n));
        }
    }

    public static Device select(String which) {
        String w = which == null ? "auto" : which.toLowerCase(Locale.ROOT);
        int gpus = Engine.getInstance().getGpuCount();
        switch (w) {
            case "cpu":
                return Device.cpu();
            case "gpu":
                if (gpus == 0) {
                    throw new UserException(
                            "--device gpu: no CUDA device visible to PyTorch (the default build bundles "
                                    + "CPU natives; see native-notes/cuda.md)");
                }
                return Device.gpu();
            case "auto":
                return gpus > 0 ? Device.gpu() : Device.cpu();
            default:
                throw new UserException("--device must be auto, cpu or gpu (got " + which + ")");
        }
    }
}
