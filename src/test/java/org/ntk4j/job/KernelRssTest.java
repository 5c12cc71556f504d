package org.ntk4j.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.cli.Main;

/**
 * Issue #11 item 1: the peak RSS of a full-mode kernel job stays within its {@code --memory} budget
 * plus the fixed cost of a JVM with libtorch loaded, measured here as the peak RSS of a tiny kernel
 * (n 8, trace: 210–226 MB on the 2-core CI machine) plus 64 MB for run-to-run variation of the
 * garbage collector. Peak RSS is {@code /usr/bin/time -f %M} of a child JVM.
 *
 * <p>Not yet true, so disabled: measured (n 500 full, --memory 192m, bound 462 MiB) 735 MiB before the
 * preflight (c19122e), 503–514 MiB after. The excess is the host copies of kernel blocks (a float64
 * double[] per tile pair in {@code Ntk.addBlock}, garbage the collector lets pile up under -Xmx8g; peak
 * heap 554 MiB for a 381 MiB kernel at n 1000) and native tile memory about 3× the per-entry estimate.
 * Enable once the chunked host copies of branch wt-native are merged.
 */
class KernelRssTest {
    static final long SLACK = 64L << 20;

    static long peakRss(Path dir, String name, String... args) throws Exception {
        Path log = dir.resolve(name + ".log");
        Path rss = dir.resolve(name + ".rss");
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/time", "-o", rss.toString(), "-f", "%M",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx8g",
                "-Dai.djl.offline=true", "-Dai.djl.pytorch.num_threads=1", "-Dai.djl.pytorch.num_interop_threads=1",
                "-Dntk4j.root=" + System.getProperty("ntk4j.root", "."), "-Djava.awt.headless=true",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "kernel", "--model", "mlp-quickstart",
                "--dataset", "mnist-subset", "--out", dir.resolve(name + ".npz").toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertEquals(0, p.waitFor(), Files.readString(log));
        return Long.parseLong(Files.readString(rss).strip().lines().reduce((a, b) -> b).orElseThrow()) * 1024;
    }

    @Test
    void fullKernelPeakRssStaysWithinBudgetPlusJvmOverhead(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/time")), "needs /usr/bin/time");
        long overhead = peakRss(dir, "tiny", "--n", "8");
        long budget = 192L << 20;
        // 500×500×10×10 float32 = 95 MiB of output, plus tiles, inputs and metrics within the budget
        long full = peakRss(dir, "full", "--n", "500", "--mode", "full", "--memory", "192m");
        System.out.printf("peak RSS: tiny kernel %d MiB, full kernel at --memory %d MiB: %d MiB%n", overhead >> 20, budget >> 20,
                full >> 20);
        assertTrue(full <= budget + overhead + SLACK, String.format("peak RSS %d MiB > budget %d MiB + JVM/libtorch %d MiB + %d MiB",
                full >> 20, budget >> 20, overhead >> 20, SLACK >> 20));
    }
}
