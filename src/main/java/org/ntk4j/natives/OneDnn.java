package org.ntk4j.natives;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import org.ntk4j.UserException;

/**
 * Whether libtorch runs CPU convolutions through oneDNN (MKL-DNN), and what ntk4j does about the layers it gets wrong.
 *
 * <p>In libtorch 2.7.1 (DJL 0.35, CPU) oneDNN's float32 backward pass returns wrong, run-dependent and sometimes NaN
 * <em>input</em> gradients for a convolution with a kernel larger than 1×1 whose output channel count is not a
 * multiple of its vector block (16 with AVX-512, 8 with AVX2), on a batch of more than one sample; its weight gradients
 * and 1×1 convolutions are right. Measured on this project's AMD EPYC machine, batch 4, relative to the per-sample
 * gradient: 3×3 convolutions 8→8 NaN, 16→8 0.36, 4→4, 6→6, 12→12 and 3→3 O(1); 8→16, 3→16, 24→48, 48→32 and 1×1
 * 12→12 right to 4e-7 ({@code PaddedConvTest}). libtorch sends a convolution to oneDNN when its batch has more
 * than one sample, so the structured kernel's probe pass on a tile and every training step through such a layer (the
 * half-width ResNet-20's 8-channel stage, a DenseNet's growth of 12) were wrong, while one sample at a time
 * (libtorch's own kernel) and float64 (never oneDNN) were right.
 *
 * <p>{@code auto} (the default): ntk4j's convolutions {@link #unsafe} for oneDNN run with their filters zero-padded to
 * a multiple of {@value #SAFE_MULTIPLE} ({@link #pads}), which keeps oneDNN's speed and makes the gradient right; a DJL
 * convolution block of the user's, which ntk4j's own passes pad the same way, gets a one-line warning that the user's
 * own training through it is affected. {@code -Dntk4j.onednn=off} (or {@code NTK4J_ONEDNN=off}) turns oneDNN off for
 * the process instead: libtorch's own im2col-and-GEMM kernels, right but several times slower (a half-width ResNet-20
 * epoch on the CPU 7.4×). {@code on} leaves oneDNN as libtorch has it and pads nothing (to reproduce the defect). The
 * switch is libtorch's {@code at::Context::setUserEnabledMkldnn}, reached through JNA in the loaded {@code
 * libtorch_cpu} (DJL 0.35 binds no call for it); all of this concerns CPU tensors only (CUDA convolutions use cuDNN).
 */
public final class OneDnn {
    /** System property: {@code auto} (default), {@code on} or {@code off}. */
    public static final String PROPERTY = "ntk4j.onednn";
    /** The channel multiple at which oneDNN's input gradients were right on every instruction set measured. */
    public static final int SAFE_MULTIPLE = 16;

    /** The state of {@code auto}. */
    public static final String AUTO = "auto (oneDNN on, narrow convolutions padded)";

    private static volatile String state;
    private static volatile boolean warned;

    private OneDnn() {}

    /**
     * Whether oneDNN's batched input gradient of a convolution with this kernel and output channel count is suspect:
     * a kernel larger than 1×1 and output channels not a multiple of {@value #SAFE_MULTIPLE}.
     */
    public static boolean unsafe(long kernelHeight, long kernelWidth, long outChannels) {
        return kernelHeight * kernelWidth > 1 && outChannels % SAFE_MULTIPLE != 0;
    }

    /**
     * Applies the setting once (loading the engine if needed) and returns what is in effect: {@code auto (oneDNN on,
     * narrow convolutions padded)}, {@code on}, {@code off}, or {@code on (unreachable: ...)} when {@code off} was asked
     * for and libtorch's switch could not be reached.
     */
    public static String apply() {
        String s = state;
        if (s != null) {
            return s;
        }
        Engine.getInstance(); // libtorch must be loaded to reach its context
        return applyToLoaded();
    }

    /** {@link #apply()} once libtorch is loaded (the engine provider calls it as it hands out the engine). */
    static String applyToLoaded() {
        String s = state;
        if (s != null) {
            return s;
        }
        synchronized (OneDnn.class) {
            if (state == null) {
                String w = wanted();
                state = w.equals("off") ? set(false, "off") : w.equals("on") ? "on" : AUTO;
            }
            return state;
        }
    }

    /**
     * Whether a convolution {@link #unsafe} for oneDNN runs with its filters zero-padded to a multiple of {@value
     * #SAFE_MULTIPLE} on this input: in {@code auto}, for a float32 CPU input (float64 and CUDA convolutions never
     * reach oneDNN). The padded filters' output channels are dropped after the convolution, so they bring a zero output
     * gradient, and the measured errors vanish once the output channels are a multiple of the block (8→16 and 3→16
     * right to 4e-7).
     */
    public static boolean pads(NDArray x) {
        return x.getDataType() == DataType.FLOAT32
                && Device.Type.CPU.equals(x.getDevice().getDeviceType())
                && apply().equals(AUTO);
    }

    /**
     * Says once per process, in {@code auto}, that a DJL convolution block of the user's is one oneDNN gets wrong:
     * ntk4j's passes pad it, the user's own DJL training through it is affected.
     */
    public static void warnFor(String layer) {
        if (apply().equals(AUTO) && !warned) {
            synchronized (OneDnn.class) {
                if (!warned) {
                    warned = true;
                    System.err.println("ntk4j: warning: layer " + layer
                            + ": libtorch's oneDNN computes the batched input"
                            + " gradients of such a convolution wrongly on the CPU; ntk4j's kernels and probes pad it and"
                            + " are right, but training it with DJL is not: run with -D" + PROPERTY + "=off (slower)");
                }
            }
        }
    }

    static String wanted() {
        String v = System.getProperty(PROPERTY, System.getenv("NTK4J_ONEDNN"));
        String m = v == null ? "auto" : v.trim().toLowerCase(Locale.ROOT);
        if (!m.equals("auto") && !m.equals("on") && !m.equals("off")) {
            throw new UserException("-D" + PROPERTY + " (NTK4J_ONEDNN) must be auto, on or off (got " + v + ")");
        }
        return m;
    }

    private static String set(boolean enabled, String label) {
        if (!Platform.isLinux()) {
            return "on (unreachable: the switch is only reached on Linux)";
        }
        Optional<Path> lib = loaded("libtorch_cpu");
        if (lib.isEmpty()) {
            return "on (unreachable: libtorch_cpu is not mapped in this process)";
        }
        try {
            NativeLibrary torch = NativeLibrary.getInstance(lib.get().toString());
            Pointer context = torch.getFunction("_ZN2at13globalContextEv").invokePointer(new Object[0]);
            Function get = torch.getFunction("_ZNK2at7Context17userEnabledMkldnnEv");
            Function put = torch.getFunction("_ZN2at7Context20setUserEnabledMkldnnEb");
            put.invokeVoid(new Object[] {context, enabled});
            boolean now = (get.invokeInt(new Object[] {context}) & 0xff) != 0;
            return now == enabled ? label : "on (unreachable: libtorch kept oneDNN on)";
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            return "on (unreachable: " + e.getMessage() + ")";
        }
    }

    /** The file of a shared library mapped in this process whose name starts with {@code stem} (Linux). */
    static Optional<Path> loaded(String stem) {
        try {
            return Files.readAllLines(Path.of("/proc/self/maps")).stream()
                    .map(l -> l.indexOf('/') < 0 ? "" : l.substring(l.indexOf('/')))
                    .filter(p -> !p.isEmpty())
                    .map(Path::of)
                    .filter(p -> p.getFileName().toString().startsWith(stem + ".so")
                            || p.getFileName().toString().startsWith(stem + "-"))
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
