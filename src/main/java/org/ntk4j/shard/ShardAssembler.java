package org.ntk4j.shard;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.ntk4j.UserException;
import org.ntk4j.io.OutputLock;
import org.ntk4j.job.KernelFiles;
import org.ntk4j.job.MachineBudget;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.Mode;
import org.ntk4j.report.Files2;
import org.ntk4j.report.NpyFile;
import org.ntk4j.report.Npz;
import org.ntk4j.spec.Specs;

/**
 * Checks the shards of a {@link ShardStore} and assembles them: every shard of the plan present, of this plan,
 * its files matching their checksums, no stray shard; then the kernels are written whole ({@link Layout#NPZ} or
 * {@link Layout#NPY}, the entries of {@code ntk4j kernel}'s NPZ: ntk, ntk.&lt;layer&gt;..., ntk_test...) or left as
 * shards ({@link Layout#STORE}, read lazily from Python through the manifest). Θ(X1, X1)'s blocks below the
 * diagonal are the transposes of the shards above it (Θ[j,i,p,o] = Θ[i,j,o,p]). {@code manifest.json} records
 * the plan, every shard's checksums and the assembled output's.
 */
public final class ShardAssembler {
    /** The {@code format} field of a manifest. */
    public static final String MANIFEST_FORMAT = "ntk4j-shard-manifest";

    /** What {@link #assemble} writes. */
    public enum Layout {
        /** One NPZ (stored entries), DIR/kernel.npz by default. */
        NPZ,
        /** A directory of .npy files, DIR/kernel by default. */
        NPY,
        /** Nothing: the shards stay as they are, the manifest describes them. */
        STORE;

        public static Layout parse(String s) {
            try {
                return valueOf(s.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new UserException("--format must be npz, npy or store (got " + s + ")");
            }
        }
    }

    /**
     * What an assembly produced.
     *
     * @param manifest the manifest written
     * @param output the assembled kernel (NPZ file or NPY directory); null for {@link Layout#STORE}
     * @param shards shards checked
     * @param seconds wall time
     */
    public record Result(Path manifest, Path output, int shards, double seconds) {}

    private ShardAssembler() {}

    /**
     * Checks and assembles the store in {@code dir}.
     *
     * @param out the output (NPZ file or NPY directory); null = DIR/kernel.npz or DIR/kernel
     * @param keepShards keep the shards after a successful assembly (they are always kept with STORE)
     * @param force replace an existing output
     */
    public static Result assemble(Path dir, Layout layout, Path out, boolean keepShards, boolean force) {
        // one assembly per store at a time: two would race on the output, the manifest and the shards they delete
        try (OutputLock lock = OutputLock.acquire(dir.resolve("manifest.json"), "the shard store " + dir)) {
            return assembleLocked(dir, layout, out, keepShards, force);
        }
    }

    private static Result assembleLocked(Path dir, Layout layout, Path out, boolean keepShards, boolean force) {
        long t0 = System.nanoTime();
        ShardStore store = ShardStore.open(dir);
        ShardPlan plan = store.plan();
        List<String> strays = store.strays();
        if (!strays.isEmpty()) {
            String s = strays.get(0);
            throw new UserException(dir.resolve("shards").resolve(s) + " is not a shard of plan " + plan.id()
                    + (strays.size() > 1 ? " (and " + (strays.size() - 1) + " more)" : "")
                    + ": remove it, or assemble its own store");
        }
        List<TileRange> missing = new ArrayList<>();
        Map<TileRange, Map<String, String>> sums = new LinkedHashMap<>();
        for (TileRange r : plan.shards()) {
            if (!Files.isRegularFile(store.sidecar(r))) {
                missing.add(r);
                continue;
            }
            sums.put(r, store.verify(r));
        }
        if (!missing.isEmpty()) {
            throw new UserException(missing.size() + " of " + plan.shards().size() + " shards are missing, e.g. "
                    + missing.get(0).options() + " ('ntk4j kernel ... --out " + dir + " "
                    + missing.get(0).options()
                    + "' computes it)");
        }
        Path output = null;
        String outputSha = null;
        Map<String, String> outputFiles = null;
        if (layout != Layout.STORE) {
            output = out != null ? out : dir.resolve(layout == Layout.NPZ ? "kernel.npz" : "kernel");
            if (layout == Layout.NPZ && !output.getFileName().toString().endsWith(".npz")) {
                throw new UserException("--out must name a .npz file (got " + output + ")");
            }
            if (Files.exists(output) && !force) {
                throw new UserException(output + " exists; pass --force to replace it");
            }
            checkDisk(plan, dir, output);
            Npz npz = new Npz().format(layout == Layout.NPZ ? Npz.Format.NPZ : Npz.Format.NPY);
            List<KernelMatrix> held = new ArrayList<>();
            try {
                for (String kernel : List.of(TileRange.TRAIN, TileRange.TEST)) {
                    if (plan.rows(kernel) == 0) {
                        continue;
                    }
                    for (String a : plan.arrays(kernel)) {
                        KernelMatrix km = assemble(store, kernel, a, dir);
                        held.add(km);
                        npz.put(a, km);
                    }
                }
                npz.write(output);
            } finally {
                held.forEach(KernelMatrix::release);
            }
            if (layout == Layout.NPZ) {
                outputSha = KernelFiles.sha256(output);
            } else {
                outputFiles = KernelFiles.sha256Dir(output);
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("format", MANIFEST_FORMAT);
        m.put("plan", plan);
        m.put("layout", layout.name().toLowerCase(Locale.ROOT));
        List<Map<String, Object>> shards = new ArrayList<>();
        for (Map.Entry<TileRange, Map<String, String>> e : sums.entrySet()) {
            TileRange r = e.getKey();
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("name", r.name());
            s.put("kernel", r.kernel());
            s.put("rows", new int[] {r.rowStart(), r.rowEnd()});
            s.put("cols", new int[] {r.colStart(), r.colEnd()});
            s.put("dir", "shards/" + r.name());
            s.put("sha256", e.getValue());
            shards.add(s);
        }
        m.put("shards", shards);
        m.put("shards_kept", layout == Layout.STORE || keepShards);
        if (output != null) {
            Path rel = output.toAbsolutePath().startsWith(dir.toAbsolutePath())
                    ? dir.toAbsolutePath().relativize(output.toAbsolutePath())
                    : output.toAbsolutePath();
            m.put("output", rel.toString());
            m.put("output_sha256", outputSha != null ? outputSha : outputFiles);
        }
        Path manifest = dir.resolve("manifest.json");
        Files2.writeString(manifest, Specs.toJson(m) + "\n");
        if (layout != Layout.STORE && !keepShards) {
            store.deleteShards();
        }
        return new Result(manifest, output, sums.size(), (System.nanoTime() - t0) / 1e9);
    }

    /** Before any work: free disk for the assembled kernel and for the arrays accumulated on disk in the store. */
    private static void checkDisk(ShardPlan plan, Path dir, Path output) {
        long total = 0;
        long spilled = 0;
        for (String kernel : List.of(TileRange.TRAIN, TileRange.TEST)) {
            if (plan.rows(kernel) == 0) {
                continue;
            }
            for (String a : plan.arrays(kernel)) {
                long b = arrayBytes(plan, kernel, a);
                total += b;
                if (plan.valueBytes() != 8 && b > Runtime.getRuntime().maxMemory() / 2) {
                    spilled += b;
                }
            }
        }
        MachineBudget.checkDisk(List.of(
                new MachineBudget.Disk(output.toAbsolutePath().getParent(), total, "the assembled kernel " + output),
                new MachineBudget.Disk(dir, spilled, "the arrays accumulated on disk in " + dir)));
    }

    /** Bytes of one whole array of one kernel of the plan. */
    private static long arrayBytes(ShardPlan plan, String kernel, String array) {
        boolean factor = array.endsWith(".forward") || array.endsWith(".backward");
        Mode mode = factor ? Mode.TRACE : Mode.valueOf(plan.mode().toUpperCase(Locale.ROOT));
        return KernelMatrix.bytes(plan.rows(kernel), plan.n(), mode, plan.outputs(), plan.valueBytes() == 8);
    }

    /** One array of one kernel, whole, from its shards (and their transposes below the diagonal). */
    private static KernelMatrix assemble(ShardStore store, String kernel, String array, Path dir) {
        ShardPlan plan = store.plan();
        boolean factor = array.endsWith(".forward") || array.endsWith(".backward");
        Mode mode = factor ? Mode.TRACE : Mode.valueOf(plan.mode().toUpperCase(Locale.ROOT));
        boolean f64 = plan.valueBytes() == 8;
        int rows = plan.rows(kernel);
        long bytes = KernelMatrix.bytes(rows, plan.n(), mode, plan.outputs(), f64);
        boolean disk = !f64 && bytes > Runtime.getRuntime().maxMemory() / 2;
        if (f64 && bytes > Runtime.getRuntime().maxMemory() / 2) {
            throw new UserException(array + " needs " + org.ntk4j.kernel.Ntk.bytes(bytes)
                    + " whole, more than half the Java heap: float64 kernels are assembled on the heap; raise -Xmx"
                    + " in JAVA_OPTS, or keep the shards (--format store) and read them lazily");
        }
        KernelMatrix km = new KernelMatrix(rows, plan.n(), mode, plan.outputs(), f64, disk ? dir : null);
        for (TileRange r : plan.shards()) {
            if (!r.kernel().equals(kernel)) {
                continue;
            }
            Path f = store.shardDir(r).resolve(array + ".npy");
            try (NpyFile npy = NpyFile.open(f)) {
                long[] s = npy.shape();
                if (s.length < 2
                        || s[0] != r.rows()
                        || s[1] != r.cols()
                        || npy.size() != (long) r.rows() * r.cols() * km.inner()) {
                    throw new UserException(f + " has shape " + java.util.Arrays.toString(s) + ", expected (" + r.rows()
                            + ", " + r.cols() + ", ...) for " + r);
                }
                if (npy.isFloat64() != f64) {
                    throw new UserException(
                            f + " is " + (npy.isFloat64() ? "float64" : "float32") + " but the plan " + plan.dtype());
                }
                km.addBlock(r.rowStart(), r.colStart(), r.rows(), r.cols(), i -> npy.get(i), false);
                if (plan.symmetric(kernel) && r.rowStart() != r.colStart()) {
                    km.addBlock(r.rowStart(), r.colStart(), r.rows(), r.cols(), i -> npy.get(i), true);
                }
            }
        }
        return km;
    }
}
