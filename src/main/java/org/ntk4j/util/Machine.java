package org.ntk4j.util;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What this process and machine have and use, read in one place: PyTorch's intra-op thread count, the process's
 * CPU time, the load average, the peak heap and the peak resident set size.
 */
public final class Machine {
    /** The system property that sets PyTorch's intra-op threads ({@code --threads}, {@code NTK4J_THREADS}). */
    public static final String THREADS_PROPERTY = "ai.djl.pytorch.num_threads";

    private Machine() {}

    /** The cores the JVM sees. */
    public static int cores() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** PyTorch's intra-op threads in this JVM: {@value #THREADS_PROPERTY} if set and numeric, else the cores. */
    public static int engineThreads() {
        try {
            return Math.max(
                    1, Integer.parseInt(System.getProperty(THREADS_PROPERTY, "").trim()));
        } catch (NumberFormatException e) {
            return cores();
        }
    }

    /** CPU time of this process so far, in nanoseconds (-1 when unknown). */
    public static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** The machine's 1-minute load average (negative when unknown). */
    public static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /** The peak bytes used by the heap's memory pools so far. */
    public static long peakHeapBytes() {
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        return peak;
    }

    /** Peak resident set size of the process (VmHWM, Linux), including native PyTorch memory; -1 elsewhere. */
    public static long peakRssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }
}
