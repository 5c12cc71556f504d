package org.ntk4j.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.Mode;
import org.ntk4j.testing.Python;

/**
 * STORED and deflated NPZ and the .npy directory: read back by java.util.zip, by DJL's decoder and —
 * where python3 with numpy is installed — by numpy itself (np.load, and mmap_mode='r' for .npy).
 * {@code -Dntk4j.npz.benchmark.mb=N} also times writing an N MB kernel (prints MB/s).
 */
class NpzFormatsTest {
    static KernelMatrix kernel(int n, boolean f64, Path spill) {
        KernelMatrix k = new KernelMatrix(n, n, Mode.TRACE, 1, f64, spill);
        double[] b = new double[n * n];
        for (int i = 0; i < b.length; i++) {
            b[i] = (i % 997) * 0.25 - 7;
        }
        k.addBlock(0, 0, n, n, b, false);
        return k;
    }

    @Test
    void storedByDefaultAndDeflatedOnRequest(@TempDir Path dir) throws Exception {
        KernelMatrix k = kernel(300, false, null);
        Path stored = dir.resolve("s.npz");
        Path deflated = dir.resolve("d.npz");
        new Npz().put("ntk", k).put("y", new int[] {1, 2}, 2).write(stored);
        new Npz().compress().put("ntk", k).put("y", new int[] {1, 2}, 2).write(deflated);
        try (ZipFile z = new ZipFile(stored.toFile())) {
            ZipEntry e = z.getEntry("ntk.npy");
            assertEquals(ZipEntry.STORED, e.getMethod());
            assertEquals(128 + 300 * 300 * 4, e.getSize());
        }
        try (ZipFile z = new ZipFile(deflated.toFile())) {
            assertEquals(ZipEntry.DEFLATED, z.getEntry("ntk.npy").getMethod());
        }
        assertTrue(Files.size(deflated) < Files.size(stored));
        try (NDManager m = NDManager.newBaseManager()) {
            for (Path f : new Path[] {stored, deflated}) {
                try (InputStream is = Files.newInputStream(f)) {
                    float[] v = NDList.decode(m, is).get("ntk").toFloatArray();
                    for (int i = 0; i < v.length; i += 101) {
                        assertEquals(k.at(i), v[i], 0.0);
                    }
                }
            }
        }
    }

    @Test
    void numpyLoadsEveryFormat(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Python.hasNumpy(), "python3 with numpy is not installed");
        KernelMatrix heap = kernel(64, false, null);
        KernelMatrix f64 = kernel(40, true, null);
        KernelMatrix disk = kernel(50, false, dir.resolve("spill"));
        for (String fmt : new String[] {"npz", "npz-deflate", "npy"}) {
            Path out = dir.resolve(fmt.equals("npy") ? "K" : fmt + ".npz");
            new Npz()
                    .format(fmt.equals("npy") ? Npz.Format.NPY : Npz.Format.NPZ)
                    .compress(fmt.endsWith("deflate"))
                    .put("ntk", heap)
                    .put("k64", f64)
                    .put("disk", disk)
                    .put("v", new float[] {1.5f, -2f}, 2)
                    .write(out);
            String load = fmt.equals("npy")
                    ? "d = {k: np.load(f'" + out + "/{k}.npy', mmap_mode='r') for k in ['ntk', 'k64', 'disk', 'v']}"
                    : "d = np.load('" + out + "')";
            String py = String.join(
                    "\n",
                    "import numpy as np",
                    load,
                    "a = (np.arange(64 * 64) % 997) * 0.25 - 7",
                    "assert d['ntk'].dtype == np.float32 and d['ntk'].shape == (64, 64)",
                    "assert np.array_equal(d['ntk'].ravel(), a.astype(np.float32))",
                    "assert d['k64'].dtype == np.float64 and np.array_equal(d['k64'].ravel(), ((np.arange(1600) % 997) * 0.25 - 7))",
                    "assert np.array_equal(d['disk'].ravel(), ((np.arange(2500) % 997) * 0.25 - 7).astype(np.float32))",
                    "assert list(d['v']) == [1.5, -2.0]",
                    "print('ok')");
            assertEquals("ok", Python.run(py), fmt);
        }
        disk.release();
    }

    /** Opt-in: -Dntk4j.npz.benchmark.mb=1024 writes a kernel of that size to java.io.tmpdir in each format. */
    @Test
    void benchmark() throws Exception {
        String mb = System.getProperty("ntk4j.npz.benchmark.mb");
        Assumptions.assumeTrue(mb != null, "set -Dntk4j.npz.benchmark.mb=N to run");
        int n = (int) Math.sqrt(Long.parseLong(mb) * (1 << 20) / 4.0);
        Path dir = Files.createTempDirectory("ntk4j-npz-bench");
        KernelMatrix heap = new KernelMatrix(n, n, Mode.TRACE, 1, false, null);
        KernelMatrix disk = new KernelMatrix(n, n, Mode.TRACE, 1, false, dir.resolve("spill"));
        java.util.SplittableRandom r = new java.util.SplittableRandom(0);
        double[] row = new double[n];
        for (int i = 0; i < n; i++) { // kernel-like values: incompressible float32 mantissas
            for (int j = 0; j < n; j++) {
                row[j] = r.nextGaussian();
            }
            heap.addBlock(i, 0, 1, n, row, false);
            disk.addBlock(i, 0, 1, n, row, false);
        }
        double bytes = (double) n * n * 4;
        for (String what : new String[] {"stored", "npy", "stored", "npy", "stored-mapped", "deflate"}) {
            Path out = dir.resolve(what.equals("npy") ? "K" : what + ".npz");
            long t = System.nanoTime();
            new Npz()
                    .format(what.equals("npy") ? Npz.Format.NPY : Npz.Format.NPZ)
                    .compress(what.equals("deflate"))
                    .put("ntk", what.endsWith("mapped") ? disk : heap)
                    .write(out);
            double s = (System.nanoTime() - t) / 1e9;
            System.out.printf(
                    Locale.ROOT,
                    "npz benchmark: %s %d x %d float32 (%.0f MB) in %.2f s = %.0f MB/s%n",
                    what,
                    n,
                    n,
                    bytes / 1e6,
                    s,
                    bytes / 1e6 / s);
            if (what.equals("npy")) {
                Files.delete(out.resolve("ntk.npy"));
                Files.delete(out);
            } else {
                Files.delete(out);
            }
        }
        disk.release();
        Files.deleteIfExists(dir.resolve("spill"));
        Files.delete(dir);
    }
}
