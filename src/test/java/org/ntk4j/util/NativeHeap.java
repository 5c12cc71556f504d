package org.ntk4j.util;

import com.sun.jna.Function;
import com.sun.jna.Platform;

/**
 * The C library's heap, where libtorch's CPU tensors and DJL's direct buffers live. glibc keeps the blocks a phase of
 * a job frees for reuse (up to 32 MiB each once its mmap threshold has adapted, or as the launcher sets it, so that a
 * training step does not page-fault its temporaries afresh); the next phase, with other sizes on other threads,
 * rarely reuses them and touches new pages instead, so the peak resident set grows by what the earlier phase left
 * cached. {@link #trim()} hands the free blocks back to the system between phases ({@code malloc_trim(0)}, which
 * since glibc 2.8 also releases free pages inside the heap, in every arena).
 */
public final class NativeHeap {
    private static final Function TRIM = find();

    private NativeHeap() {}

    private static Function find() {
        if (!Platform.isLinux() || Platform.isAndroid()) {
            return null;
        }
        try {
            return Function.getFunction(Platform.C_LIBRARY_NAME, "malloc_trim");
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            return null; // not glibc (e.g. musl): nothing to trim
        }
    }

    /** Whether {@link #trim()} reaches glibc's {@code malloc_trim} on this machine. */
    public static boolean available() {
        return TRIM != null;
    }

    /**
     * Returns the heap's free blocks to the system; true when memory was released, false when none was or the C
     * library has no {@code malloc_trim}.
     */
    public static boolean trim() {
        return TRIM != null && TRIM.invokeInt(new Object[] {0}) == 1;
    }
}
