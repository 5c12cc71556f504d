package org.ntk4j.cli;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import java.nio.file.Path;
import org.ntk4j.data.DataPaths;
import org.ntk4j.util.Devices;
import org.ntk4j.util.Machine;
import org.ntk4j.util.MachineBudget;
import picocli.CommandLine.Option;

/** Options every compute command shares: device, TF32, threads, data directory. */
public final class RuntimeOptions {
    @Option(
            names = "--device",
            paramLabel = "auto|cpu|gpu",
            defaultValue = "auto",
            description = "where to compute (default: ${DEFAULT-VALUE}: the GPU when PyTorch sees one)")
    String device;

    private Integer threads;

    @Option(
            names = "--tf32",
            paramLabel = "on|off",
            defaultValue = "off",
            description = "let float32 convolutions and matrix products on an Ampere or newer GPU use TF32"
                    + " (faster, ~1e-3 relative error; default ${DEFAULT-VALUE}: float32 kernels match the CPU's;"
                    + " no effect on the CPU; recorded in the kernel sidecar)")
    String tf32;

    @Option(
            names = "--threads",
            paramLabel = "N",
            description = "PyTorch intra-op threads (default: $NTK4J_THREADS, else the cores other running processes"
                    + " leave free; see the launcher, which also lets the threads spin briefly between engine calls"
                    + " when each has a free core: NTK4J_SPIN=off); more than the cores this process may use is"
                    + " lowered to them")
    void threads(Integer n) {
        threads = n == null || n < 1 ? n : MachineBudget.threads(n, cores(), "--threads", System.err::println);
    }

    /** The --threads given (lowered to the cores), or the count a resumed run restored; null when neither. */
    Integer threads() {
        return threads;
    }

    /** The cores this process may use (its affinity mask and cgroup CPU quota, as the JVM sees them). */
    static int cores() {
        return Runtime.getRuntime().availableProcessors();
    }

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description = "data directory (default: -Dntk4j.data, $NTK4J_DATA, ~/.ntk4j/data)")
    Path dataDir;

    /**
     * The default thread count: the cores other processes leave free, max(1, min(cores, cores − round(busy))),
     * busy as {@link #busyCores} counts it. PyTorch's OpenMP pool spinning on busy cores is 2–4× slower than
     * one thread (README "Threads"); on an idle machine this is all cores.
     */
    static int defaultThreads(int cores, double busy) {
        long free = cores - (busy < 0 ? 0 : Math.round(busy));
        return (int) Math.max(1, Math.min(cores, free));
    }

    /**
     * Applies the thread count (--threads, else -Dai.djl.pytorch.num_threads as NTK4J_THREADS sets
     * it, else {@link #defaultThreads}), then opens a manager on the chosen device.
     */
    NDManager manager() {
        threads = effectiveThreads();
        Devices.threads(threads);
        Devices.tf32(tf32);
        Device d = Devices.select(device);
        NDManager m = NDManager.newBaseManager(d);
        org.ntk4j.util.Phases.mark("engine loaded");
        return m;
    }

    /** The thread count {@link #manager} will apply. */
    int effectiveThreads() {
        if (threads != null) {
            return threads < 1 ? threads : MachineBudget.threads(threads, cores(), "--threads", System.err::println);
        }
        String p = System.getProperty(Machine.THREADS_PROPERTY);
        if (p != null) {
            try {
                int n = Integer.parseInt(p.trim());
                return n < 1 ? n : MachineBudget.threads(n, cores(), "NTK4J_THREADS", System.err::println);
            } catch (NumberFormatException e) {
                // fall through to the default
            }
        }
        return defaultThreads(Machine.cores(), busyCores());
    }

    /**
     * The cores other processes keep busy: the launcher's count ({@value #BUSY_CORES_PROPERTY}: the processes running
     * when it started, besides itself; the 1-minute load average still holds a command that has just ended and misses
     * one started seconds ago), else the load average.
     */
    static double busyCores() {
        String p = System.getProperty(BUSY_CORES_PROPERTY);
        if (p != null) {
            try {
                return Math.max(0, Integer.parseInt(p.trim()));
            } catch (NumberFormatException e) {
                // fall through to the load average
            }
        }
        return Machine.loadAverage();
    }

    /** The system property through which the launcher passes the busy cores it counted. */
    static final String BUSY_CORES_PROPERTY = "ntk4j.busyCores";

    Path dataDir() {
        return DataPaths.existingDataDir(dataDir, "--data-dir");
    }
}
