package org.ntk4j.natives;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * libtorch's process-wide TF32 switches, through the small JNI library that {@code ntk4j native
 * build} compiles beside DJL's binding ({@code libntk4j_torch.so}, recorded as NTK4J_TORCH_FLAGS).
 * TF32 rounds float32 inputs of convolutions (cuDNN) and matrix products (cuBLAS) to a 10-bit
 * mantissa on Ampere and newer GPUs; libtorch allows it for cuDNN by default, so float32 convolution
 * kernels on such a GPU differ from the CPU's by about 1e-3 relative. On the CPU the flags have no
 * effect. Without a native build (DJL's bundled or downloaded libtorch) the flags cannot be reached
 * and stay at libtorch's defaults.
 */
public final class TorchFlags {
    private TorchFlags() {}

    private static Boolean loaded;

    /** Bit 0 of {@link #tf32()}: cuDNN (convolutions) may use TF32. */
    public static final int CUDNN = 1;
    /** Bit 1 of {@link #tf32()}: cuBLAS (matrix products) may use TF32. */
    public static final int CUBLAS = 2;

    static native void setTf32(boolean cudnn, boolean cublas);

    static native int tf32();

    /**
     * Loads the recorded library once (system property {@code ntk4j.torch.flags}, set by
     * {@link Natives#configure()}); call after the PyTorch engine has loaded libtorch. Returns whether
     * the switches are reachable.
     */
    public static synchronized boolean available() {
        if (loaded == null) {
            String p = System.getProperty(Natives.TORCH_FLAGS_PROPERTY);
            loaded = false;
            if (p != null && Files.isRegularFile(Path.of(p))) {
                try {
                    System.load(Path.of(p).toAbsolutePath().toString());
                    loaded = true;
                } catch (UnsatisfiedLinkError e) { // built against another libtorch than the one loaded
                    System.err.println("ntk4j: warning: cannot load " + p + " (" + e.getMessage()
                            + "); TF32 stays at libtorch's default: rerun 'ntk4j native build'");
                }
            }
        }
        return loaded;
    }

    /**
     * Sets both TF32 switches and returns what libtorch reports afterwards ({@link #CUDNN} |
     * {@link #CUBLAS} bits), or -1 when the switches cannot be reached ({@link #available()}).
     */
    public static int set(boolean allow) {
        if (!available()) {
            return -1;
        }
        setTf32(allow, allow);
        return tf32();
    }

    /** What libtorch reports now ({@link #CUDNN} | {@link #CUBLAS} bits), or -1 when unreachable. */
    public static int get() {
        return available() ? tf32() : -1;
    }
}
