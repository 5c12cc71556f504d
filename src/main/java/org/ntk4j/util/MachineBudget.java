package org.ntk4j.util;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.ntk4j.UserException;

/**
 * What this machine can give a job, checked before any work (a shared cluster node's user wants a mistake refused in
 * a second, not found by the kernel's OOM killer an hour later): the memory budget against the physical memory and
 * the cgroup's limit (a batch system's allocation), the thread count against the cores this process may use, the
 * bytes a job writes against the free space of their file systems, and a device budget against the device's memory.
 */
public final class MachineBudget {
    /**
     * What a job needs beyond its memory budget: the JVM and libtorch (206–227 MiB measured for a tiny kernel) and the
     * 64 MiB of slack the README's memory bound allows.
     */
    public static final long BASELINE = 320L << 20;

    private MachineBudget() {}

    /**
     * The memory of this machine as a job sees it.
     *
     * @param physical physical memory (MemTotal), bytes
     * @param cgroupLimit the cgroup memory limit of this process (the tightest along its cgroup path), or
     *     {@link Long#MAX_VALUE} when there is none
     * @param available memory available now without swapping (MemAvailable), or -1 when unknown
     */
    public record Memory(long physical, long cgroupLimit, long available) {
        /** The most a process here can use: the physical memory or the cgroup limit, the smaller. */
        public long limit() {
            return Math.min(physical, cgroupLimit);
        }

        /** "23.5 GiB of physical memory" or "a cgroup limit of 8.00 GiB (physical memory 23.5 GiB)". */
        public String describe() {
            return cgroupLimit < physical
                    ? "a cgroup memory limit of " + Numbers.bytes(cgroupLimit) + " (physical memory "
                            + Numbers.bytes(physical) + ")"
                    : Numbers.bytes(physical) + " of physical memory";
        }
    }

    /** This machine's memory, from /proc/meminfo and the cgroup files of this process (v1 and v2). */
    public static Memory memory() {
        return memory(Path.of("/proc/meminfo"), Path.of("/proc/self/cgroup"), Path.of("/sys/fs/cgroup"));
    }

    /** As {@link #memory()}, from the given files (tests). */
    static Memory memory(Path meminfo, Path selfCgroup, Path cgroupRoot) {
        long total = -1;
        long available = -1;
        try {
            for (String line : Files.readAllLines(meminfo)) {
                if (line.startsWith("MemTotal:")) {
                    total = kib(line);
                } else if (line.startsWith("MemAvailable:")) {
                    available = kib(line);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: the JVM's view below
        }
        if (total <= 0) {
            java.lang.management.OperatingSystemMXBean os =
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            total = os instanceof com.sun.management.OperatingSystemMXBean s
                    ? s.getTotalMemorySize()
                    : Runtime.getRuntime().maxMemory();
        }
        return new Memory(total, cgroupLimit(selfCgroup, cgroupRoot), available);
    }

    private static long kib(String line) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
    }

    /**
     * The tightest memory limit along this process's cgroup path: cgroup v2 {@code memory.max} ("max" = none), v1
     * {@code memory/…/memory.limit_in_bytes} (values near 2⁶³ = none); {@link Long#MAX_VALUE} when there is none.
     */
    static long cgroupLimit(Path selfCgroup, Path root) {
        long limit = Long.MAX_VALUE;
        List<String> lines;
        try {
            lines = Files.readAllLines(selfCgroup);
        } catch (IOException | RuntimeException e) {
            return limit;
        }
        for (String line : lines) {
            String[] f = line.split(":", 3);
            if (f.length < 3) {
                continue;
            }
            Path base;
            String file;
            if (f[0].equals("0") && f[1].isEmpty()) {
                base = root.resolve("unified").toFile().isDirectory()
                                && !root.resolve("memory.max").toFile().exists()
                        ? root.resolve("unified")
                        : root;
                file = "memory.max";
            } else if (java.util.Arrays.asList(f[1].split(",")).contains("memory")) {
                base = root.resolve("memory");
                file = "memory.limit_in_bytes";
            } else {
                continue;
            }
            String rel = f[2].startsWith("/") ? f[2].substring(1) : f[2];
            for (Path p = rel.isEmpty() ? base : base.resolve(rel);
                    p != null && p.startsWith(base);
                    p = p.getParent()) {
                limit = Math.min(limit, readLimit(p.resolve(file)));
            }
        }
        return limit;
    }

    private static long readLimit(Path f) {
        try {
            String s = Files.readString(f).strip();
            if (s.equals("max")) {
                return Long.MAX_VALUE;
            }
            long v = Long.parseLong(s);
            return v <= 0 || v >= (1L << 62) ? Long.MAX_VALUE : v;
        } catch (IOException | RuntimeException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Refuses a memory budget this machine cannot give: {@code budget} plus {@link #BASELINE} must fit its memory
     * (the physical memory or the cgroup limit, the smaller); a budget above what is available now is let through
     * with a warning (other processes may free it; they may also keep it).
     *
     * @param option the option that set it, for the message ("--memory")
     */
    public static void checkMemory(long budget, String option, Memory m, Consumer<String> warn) {
        long most = m.limit() - BASELINE;
        if (budget > most) {
            throw new UserException(
                    option + " " + Numbers.bytes(budget) + " is more than this machine can give: it has "
                            + m.describe() + ", and a job needs its budget plus about " + Numbers.bytes(BASELINE)
                            + " (the JVM and libtorch); give at most " + Numbers.bytes(Math.max(0, most)));
        }
        if (m.available() >= 0 && budget + BASELINE > m.available()) {
            warn.accept("ntk4j: warning: " + option + " " + Numbers.bytes(budget) + " is more than the "
                    + Numbers.bytes(m.available()) + " of memory available now (other processes hold the rest); the run"
                    + " may be killed if they keep it");
        }
    }

    /**
     * The thread count to use: {@code asked} when this process may use that many cores, else the cores it may use
     * (the CPUs of its affinity mask and cgroup quota), with a warning: more threads than cores only slows PyTorch
     * down (7× measured at 999 threads on 2 cores) and takes the other users' cores on a shared node.
     */
    public static int threads(int asked, int cores, String option, Consumer<String> warn) {
        if (asked < 1) {
            throw new UserException(option + " must be >= 1 (got " + asked + ")");
        }
        if (asked > cores) {
            warn.accept("ntk4j: warning: " + option + " " + asked + " is more than the " + cores + " core"
                    + (cores == 1 ? "" : "s") + " this process may use; using " + cores);
            return cores;
        }
        return asked;
    }

    /** Bytes a job will write into a folder: the folder, the bytes, and what they are (for the message). */
    public record Disk(Path dir, long bytes, String what) {}

    /**
     * Refuses, before any work, writes that the file systems cannot hold: the needs on one file system are added up
     * and compared with its usable space. A folder that does not exist yet is judged by its nearest existing parent.
     */
    public static void checkDisk(List<Disk> needs) {
        Map<FileStore, List<Disk>> byStore = new LinkedHashMap<>();
        Map<FileStore, Path> where = new LinkedHashMap<>();
        for (Disk d : needs) {
            if (d.bytes() <= 0) {
                continue;
            }
            Path p = existing(d.dir());
            if (p == null) {
                continue;
            }
            try {
                FileStore fs = Files.getFileStore(p);
                byStore.computeIfAbsent(fs, k -> new ArrayList<>()).add(d);
                where.putIfAbsent(fs, p);
            } catch (IOException e) {
                // an unreadable folder: the write itself will say so
            }
        }
        for (Map.Entry<FileStore, List<Disk>> e : byStore.entrySet()) {
            long need = e.getValue().stream().mapToLong(Disk::bytes).sum();
            long free;
            try {
                free = e.getKey().getUsableSpace();
            } catch (IOException ex) {
                continue;
            }
            if (need > free) {
                StringBuilder what = new StringBuilder();
                for (Disk d : e.getValue()) {
                    what.append(what.length() == 0 ? "" : " and ")
                            .append(d.what())
                            .append(" (")
                            .append(Numbers.bytes(d.bytes()))
                            .append(")");
                }
                throw new UserException(
                        "not enough free disk: " + what + " need " + Numbers.bytes(need) + " on the file"
                                + " system of " + where.get(e.getKey()) + ", which has " + Numbers.bytes(free)
                                + " free; free some space or write elsewhere");
            }
        }
    }

    private static Path existing(Path dir) {
        for (Path p = dir.toAbsolutePath().normalize(); p != null; p = p.getParent()) {
            if (Files.exists(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * Refuses a device budget the device cannot give: {@code budget} above the device's memory ({@code deviceBytes},
     * from CUDA; nothing is checked when it is unknown, as on the CPU, whose budget {@link #checkMemory} checks).
     */
    public static void checkDevice(long budget, String option, String device, long deviceBytes) {
        if (deviceBytes > 0 && budget > deviceBytes) {
            throw new UserException(option + " " + Numbers.bytes(budget) + " is more than the memory of " + device
                    + " (" + Numbers.bytes(deviceBytes) + ")");
        }
    }

    /** The memory of a GPU as CUDA reports it, or -1 for the CPU or when unknown. */
    public static long deviceMemory(ai.djl.Device d) {
        if (d == null || !d.isGpu()) {
            return -1;
        }
        try {
            return ai.djl.util.cuda.CudaUtils.getGpuMemory(d).getMax();
        } catch (RuntimeException | LinkageError e) {
            return -1;
        }
    }
}
