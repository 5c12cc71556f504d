package org.ntk4j.util;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.engine.StandardCapabilities;
import java.util.Locale;
import org.ntk4j.UserException;
import org.ntk4j.natives.Natives;
import org.ntk4j.natives.TorchFlags;

/**
 * The one place that chooses where arrays live (README "On a GPU", docs/gpu.md): {@code auto} takes the first GPU
 * when the PyTorch engine sees one (CUDA natives loaded, see native-notes/), else the CPU. It also
 * applies the TF32 switch ({@code -Dntk4j.tf32=on|off}, the CLI's {@code --tf32}; default off), which
 * decides whether float32 convolutions and matrix products on an Ampere or newer GPU may round their
 * inputs to TF32 (about 1e-3 relative): off, a float32 kernel on the GPU matches the CPU's to float32
 * rounding.
 */
public final class Devices {
    private Devices() {}

    /** System property of the TF32 switch: on or off (default off). */
    public static final String TF32_PROPERTY = "ntk4j.tf32";

    private static volatile String tf32State;
    private static volatile boolean warnedCount;

    /** Sets the PyTorch thread count; must run before the engine starts. */
    public static void threads(Integer n) {
        if (n != null) {
            if (n < 1) {
                throw new UserException("--threads must be >= 1 (got " + n + ")");
            }
            System.setProperty(Machine.THREADS_PROPERTY, String.valueOf(n));
        }
    }

    /** Checks and records the TF32 switch ({@code --tf32}); applied by the next {@link #select}. */
    public static void tf32(String mode) {
        System.setProperty(TF32_PROPERTY, tf32Mode(mode));
    }

    static String tf32Mode(String mode) {
        String m = mode == null ? "off" : mode.trim().toLowerCase(Locale.ROOT);
        if (!m.equals("on") && !m.equals("off")) {
            throw new UserException("--tf32 must be on or off (got " + mode + ")");
        }
        return m;
    }

    public static Device select(String which) {
        String w = which == null ? "auto" : which.toLowerCase(Locale.ROOT);
        if (!w.equals("cpu") && !w.equals("gpu") && !w.equals("auto")) {
            throw new UserException("--device must be auto, cpu or gpu (got " + which + ")");
        }
        String tf32 = tf32Mode(System.getProperty(TF32_PROPERTY, "off"));
        Natives.configure(); // before the engine loads; a no-op once applied
        Engine engine = Engine.getInstance();
        int gpus = w.equals("cpu") ? 0 : gpuCount(engine);
        Device d;
        if (w.equals("gpu") && gpus == 0) {
            throw new UserException("--device gpu: no CUDA device visible to PyTorch (libtorch "
                    + engine.getVersion() + "; "
                    + (System.getProperty("PYTORCH_LIBRARY_PATH") == null
                            ? "the default build bundles CPU natives: run 'ntk4j native build' against a CUDA torch,"
                                    + " see native-notes/build.md"
                            : "PYTORCH_LIBRARY_PATH=" + System.getProperty("PYTORCH_LIBRARY_PATH") + ", flavor "
                                    + System.getProperty("PYTORCH_FLAVOR"))
                    + ")");
        }
        d = gpus > 0 ? Device.gpu() : Device.cpu();
        applyTf32(tf32, d);
        return d;
    }

    /**
     * The GPUs the engine can use. DJL counts them through its own lookup of libcudart (JNA, "cudart"
     * on the library path), which finds none when torch's CUDA runtime sits in a wheel folder (nvidia/
     * cu13/lib) that is on no search path, while torch itself sees the GPU. Then this returns 1 (the
     * first device, the one {@code Device.gpu()} names) and says once on stderr how to make DJL count
     * them ({@code ntk4j native build} records torch's libcudart).
     */
    public static int gpuCount(Engine engine) {
        int n = engine.getGpuCount();
        if (n == 0 && engine.hasCapability(StandardCapabilities.CUDA)) {
            if (!warnedCount) {
                warnedCount = true;
                System.err.println("ntk4j: warning: PyTorch sees a CUDA device but DJL's libcudart lookup found none"
                        + " (jna.library.path=" + System.getProperty("jna.library.path")
                        + "); using gpu(0). 'ntk4j native build' records torch's libcudart for DJL");
            }
            return 1;
        }
        return n;
    }

    /**
     * The TF32 state last applied by {@link #select}, as the sidecar records it: "off" or "on" with
     * what libtorch reports, "... (no effect on the CPU)", or libtorch's default when ntk4j's flags
     * library is not there; null before any {@link #select}.
     */
    public static String tf32State() {
        return tf32State;
    }

    private static void applyTf32(String mode, Device d) {
        boolean allow = mode.equals("on");
        int bits;
        try {
            bits = TorchFlags.set(allow);
        } catch (IllegalStateException e) { // libtorch refused (a c10::Error from the flags library)
            tf32State = "unknown: libtorch refused --tf32 " + mode + " (" + e.getMessage() + ")";
            System.err.println("ntk4j: warning: TF32 " + tf32State);
            return;
        }
        if (!d.isGpu()) {
            tf32State = mode + " (no effect on the CPU)";
        } else if (bits < 0) {
            tf32State = "libtorch default (cuDNN may use TF32, cuBLAS may not): --tf32 " + mode
                    + " needs the flags library of 'ntk4j native build'";
            if (!allow) {
                System.err.println("ntk4j: warning: --tf32 off not applied: " + tf32State);
            }
        } else {
            tf32State = mode + " (cuDNN TF32 " + ((bits & TorchFlags.CUDNN) != 0 ? "allowed" : "disabled")
                    + ", cuBLAS TF32 " + ((bits & TorchFlags.CUBLAS) != 0 ? "allowed" : "disabled") + ")";
        }
    }
}
