package org.ntk4j.util;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Keeps the JVM's exit from tearing libtorch down under a thread that is still inside it.
 *
 * <p>When a run is stopped (SIGTERM from {@code timeout}, Ctrl-C, {@code kill}), the JVM runs its shutdown hooks and
 * then calls the C library's {@code exit()}, which runs libtorch's static destructors. A thread still inside a
 * libtorch call at that moment (an autograd backward, typically) then reads freed state and the JVM dies with a
 * SIGSEGV and an {@code hs_err} file instead of exiting with status 143: seen twice in ResNet-20 structured kernels
 * cut by {@code timeout}, and reproduced by {@code ShutdownDuringBackwardTest} in about one SIGTERM out of two.
 *
 * <p>So native work runs in sections, {@code try (NativeWork.Section s = NativeWork.section()) { ... }}, each short
 * (one tile's factor pass, one contraction, one training step), and a shutdown hook waits for the running sections
 * to end (at most {@link #WAIT_SECONDS} seconds) and lets no new one begin. A thread that reaches
 * {@link #section()} during shutdown waits there, in Java, until the JVM halts. Sections nest (the lock is
 * reentrant for readers). After the sections, the hook also waits (at most 2 s) until no thread's innermost frame is
 * a native method of DJL's PyTorch binding, for native calls made outside any section.
 */
public final class NativeWork {
    /** How long the shutdown hook waits for running sections; a section is one tile or step, seconds at most. */
    public static final long WAIT_SECONDS = 30;

    private static final ReentrantReadWriteLock LOCK = new ReentrantReadWriteLock();
    private static final Section SECTION = () -> LOCK.readLock().unlock();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(NativeWork::quiesce, "ntk4j-native-quiesce"));
    }

    private NativeWork() {}

    /** A section of native work; closing it ends the section. */
    public interface Section extends AutoCloseable {
        @Override
        void close();
    }

    /** Begins a section of native work; during the JVM's shutdown this waits until the JVM halts. */
    public static Section section() {
        LOCK.readLock().lock();
        return SECTION;
    }

    /** Whether the shutdown hook has stopped new sections (for tests and progress messages). */
    public static boolean stopped() {
        return LOCK.isWriteLocked();
    }

    private static void quiesce() {
        try {
            // never released: the JVM halts after its hooks, with every other section-bound thread parked in Java
            LOCK.writeLock().tryLock(WAIT_SECONDS, TimeUnit.SECONDS);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (inTorch() && System.nanoTime() < until) {
                Thread.sleep(5);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether any thread but this one is inside a native method of DJL's PyTorch binding right now. */
    private static boolean inTorch() {
        for (Map.Entry<Thread, StackTraceElement[]> e :
                Thread.getAllStackTraces().entrySet()) {
            StackTraceElement[] s = e.getValue();
            if (e.getKey() != Thread.currentThread()
                    && s.length > 0
                    && s[0].isNativeMethod()
                    && s[0].getClassName().startsWith("ai.djl.pytorch.jni.")) {
                return true;
            }
        }
        return false;
    }
}
