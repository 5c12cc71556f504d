package org.ntk4j.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;

/** Budgets against the machine: memory (physical and cgroup limit), threads, free disk, device memory. */
class MachineBudgetTest {
    static final long GIB = 1L << 30;

    static Path meminfo(Path dir, long totalKib, long availableKib) throws Exception {
        Path f = dir.resolve("meminfo");
        Files.writeString(
                f, "MemTotal:       " + totalKib + " kB\nMemFree:  1 kB\nMemAvailable:   " + availableKib + " kB\n");
        return f;
    }

    @Test
    void cgroupV1AndV2LimitsAreFoundAlongTheProcessPath(@TempDir Path dir) throws Exception {
        Path mem = meminfo(dir, 24L << 20, 20L << 20); // 24 GiB, 20 GiB available
        // v1: the memory controller's path, a limit set on the parent; "unlimited" is 2^63 rounded to pages
        Path v1 = dir.resolve("v1");
        Files.createDirectories(v1.resolve("memory/slurm/job_7"));
        Files.writeString(v1.resolve("memory/memory.limit_in_bytes"), "9223372036854771712\n");
        Files.writeString(v1.resolve("memory/slurm/memory.limit_in_bytes"), (8 * GIB) + "\n");
        Files.writeString(v1.resolve("memory/slurm/job_7/memory.limit_in_bytes"), "9223372036854771712\n");
        Path self1 = dir.resolve("cgroup1");
        Files.writeString(self1, "4:memory:/slurm/job_7\n3:cpuset:/\n");
        MachineBudget.Memory m1 = MachineBudget.memory(mem, self1, v1);
        assertEquals(24 * GIB, m1.physical());
        assertEquals(8 * GIB, m1.cgroupLimit());
        assertEquals(8 * GIB, m1.limit());
        assertEquals(20 * GIB, m1.available());
        // v2: memory.max along the unified path, "max" = none
        Path v2 = dir.resolve("v2");
        Files.createDirectories(v2.resolve("user.slice/job"));
        Files.writeString(v2.resolve("memory.max"), "max\n");
        Files.writeString(v2.resolve("user.slice/memory.max"), "max\n");
        Files.writeString(v2.resolve("user.slice/job/memory.max"), (4 * GIB) + "\n");
        Path self2 = dir.resolve("cgroup2");
        Files.writeString(self2, "0::/user.slice/job\n");
        assertEquals(4 * GIB, MachineBudget.memory(mem, self2, v2).limit());
        // no limit anywhere: the physical memory
        Files.writeString(self2, "0::/\n");
        assertEquals(24 * GIB, MachineBudget.memory(mem, self2, v2).limit());
    }

    @Test
    void aBudgetAboveTheMachineIsRefusedAboveWhatIsFreeWarned() {
        MachineBudget.Memory m = new MachineBudget.Memory(24 * GIB, Long.MAX_VALUE, 10 * GIB);
        UserException e =
                assertThrows(UserException.class, () -> MachineBudget.checkMemory(1000 * GIB, "--memory", m, s -> {}));
        assertTrue(
                e.getMessage()
                        .startsWith("--memory 1000 GiB is more than this machine can give: it has 24.0 GiB of"
                                + " physical memory"),
                e.getMessage());
        MachineBudget.Memory limited = new MachineBudget.Memory(24 * GIB, 8 * GIB, 10 * GIB);
        e = assertThrows(UserException.class, () -> MachineBudget.checkMemory(16 * GIB, "--memory", limited, s -> {}));
        assertTrue(e.getMessage().contains("a cgroup memory limit of 8.00 GiB"), e.getMessage());
        List<String> warned = new ArrayList<>();
        MachineBudget.checkMemory(12 * GIB, "--memory", m, warned::add);
        assertEquals(1, warned.size());
        assertTrue(warned.get(0).contains("more than the 10.0 GiB of memory available now"), warned.get(0));
        warned.clear();
        MachineBudget.checkMemory(4 * GIB, "--memory", m, warned::add);
        assertEquals(List.of(), warned);
    }

    @Test
    void threadsAreCappedAtTheCoresWithAWarning() {
        List<String> warned = new ArrayList<>();
        assertEquals(2, MachineBudget.threads(999, 2, "--threads", warned::add));
        assertEquals(
                List.of("ntk4j: warning: --threads 999 is more than the 2 cores this process may use; using 2"),
                warned);
        warned.clear();
        assertEquals(2, MachineBudget.threads(2, 8, "--threads", warned::add));
        assertEquals(List.of(), warned);
        assertThrows(UserException.class, () -> MachineBudget.threads(0, 8, "--threads", s -> {}));
    }

    @Test
    void writesLargerThanTheFreeDiskAreRefusedAddedUpPerFileSystem(@TempDir Path dir) throws Exception {
        long free = Files.getFileStore(dir).getUsableSpace();
        Path notYet = dir.resolve("a/b/c");
        UserException e = assertThrows(
                UserException.class,
                () -> MachineBudget.checkDisk(List.of(
                        new MachineBudget.Disk(dir, free / 2 + (1L << 30), "--out K.npz"),
                        new MachineBudget.Disk(notYet, free / 2 + (1L << 30), "the kernels accumulated on disk"))));
        assertTrue(e.getMessage().startsWith("not enough free disk: --out K.npz ("), e.getMessage());
        assertTrue(e.getMessage().contains("and the kernels accumulated on disk"), e.getMessage());
        MachineBudget.checkDisk(List.of(new MachineBudget.Disk(notYet, 1 << 20, "--out K.npz")));
    }

    @Test
    void aDeviceBudgetAboveTheDeviceIsRefused() {
        UserException e = assertThrows(
                UserException.class,
                () -> MachineBudget.checkDevice(100 * GIB, "the tiles' working set", "gpu(0)", 80 * GIB));
        assertTrue(e.getMessage().contains("more than the memory of gpu(0) (80.0 GiB)"), e.getMessage());
        MachineBudget.checkDevice(100 * GIB, "the tiles' working set", "cpu()", -1); // unknown: the host check applies
        assertEquals(-1, MachineBudget.deviceMemory(ai.djl.Device.cpu()));
    }
}
