package org.ntk4j.shard;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.ntk4j.OptionException;
import org.ntk4j.UserException;
import org.ntk4j.files.OutputLock;
import org.ntk4j.io.KernelFiles;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.report.Files2;
import org.ntk4j.report.NpyFile;
import org.ntk4j.report.Npz;
import org.ntk4j.request.KernelOption;
import org.ntk4j.util.MachineBudget;

/**
 * Checks the shards of a {@link ShardStore} and assembles them: every shard of the plan present, of this plan,
 * its files matching their checksums, no stray shard; then the kernels are written whole ({@link Layout#NPZ} or
 * {@link Layout#NPY}, the entries of {@code ntk4j kernel}'s NPZ: ntk, ntk.&lt;layer&gt;..., ntk_test...) or left as
 * shards ({@link Layout#STORE}, read lazily from Python through the manifest). Θ(X1, X1)'s blocks below the
 * diagonal are the transposes of the shards above it (Θ[j,i,p,o] = Θ[i,j,o,p]). {@code manifest.json} records
 * the plan, every shard's checksums and the assembled output's.
 *
 * <p>A Nyström plan's shards ({@link ShardPlan#approx()}) are not one kernel: its blocks C, C* and K_SS are read whole
 * ({@link NystromBlocks}) and handed to an {@link ApproxWriter}, which writes the features file of {@code ntk4j kernel
 * --approx nystrom:M} (the job layer's, which reads the labels).
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
                throw new OptionException(KernelOption.FORMAT, " must be npz, npy or store (got " + s + ")");
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

    /**
     * The manifest an assembly writes ({@code DIR/manifest.json}).
     *
     * @param format {@value #MANIFEST_FORMAT}
     * @param plan the store's plan
     * @param layout npz, npy or store
     * @param shards every shard checked, with its files' SHA-256
     * @param shardsKept whether the shards were left in place
     * @param output the assembled kernel, relative to DIR when inside it; null for the store layout
     * @param outputSha256 the output's SHA-256 (an NPZ), or each file's by name (an NPY directory); null for the
     *     store layout
     */
    public record Manifest(
            String format,
            ShardPlan plan,
            String layout,
            List<Shard> shards,
            @com.google.gson.annotations.SerializedName("shards_kept") boolean shardsKept,
            String output,
            @com.google.gson.annotations.SerializedName("output_sha256") Object outputSha256) {
        /**
         * One shard in a manifest.
         *
         * @param name its file-system name ({@link TileRange#name()})
         * @param kernel {@link TileRange#TRAIN} or {@link TileRange#TEST}
         * @param rows first and last (exclusive) row
         * @param cols first and last (exclusive) column
         * @param dir its directory, relative to DIR
         * @param sha256 SHA-256 of each of its files, by name
         */
        public record Shard(
                String name, String kernel, int[] rows, int[] cols, String dir, Map<String, String> sha256) {}
    }

    /**
     * The exact blocks of a Nyström plan, read whole from its shards.
     *
     * @param columns C = K(X, L), N × m row-major (float32 values, as the single-machine job holds them)
     * @param testColumns C* = K(X*, L), M × m; null without test images
     * @param holdout K_SS of the held-out images, h × h row-major
     */
    public record NystromBlocks(float[] columns, float[] testColumns, double[] holdout) {}

    /** Writes the output of a Nyström plan from its blocks (the features NPZ and its sidecar). */
    public interface ApproxWriter {
        /**
         * Writes {@code output} (an NPZ file; replaced only with {@code force}) and returns its SHA-256.
         *
         * @param plan the store's plan
         * @param blocks its exact blocks
         */
        String write(ShardPlan plan, NystromBlocks blocks, Path output, boolean force);
    }

    private ShardAssembler() {}

    /**
     * Checks and assembles the store in {@code dir}.
     *
     * @param out the output (NPZ file or NPY directory); null = DIR/kernel.npz or DIR/kernel
     * @param keepShards keep the shards after a successful assembly (they are always kept with STORE)
     * @param force replace an existing output
     */
    public static Result assemble(Path dir, Layout layout, Path out, boolean keepShards, boolean force) {
        return assemble(dir, layout, out, keepShards, force, null);
    }

    /**
     * As {@link #assemble(Path, Layout, Path, boolean, boolean)}; a Nyström plan's blocks go to {@code approx}
     * (npz or store layout only; null refuses such a store in one line).
     */
    public static Result assemble(
            Path dir, Layout layout, Path out, boolean keepShards, boolean force, ApproxWriter approx) {
        // one assembly per store at a time: two would race on the output, the manifest and the shards they delete
        try (OutputLock lock = OutputLock.acquire(dir.resolve("manifest.json"), "the shard store " + dir)) {
            return assembleLocked(dir, layout, out, keepShards, force, approx);
        }
    }

    private static Result assembleLocked(
            Path dir, Layout layout, Path out, boolean keepShards, boolean force, ApproxWriter approx) {
        long t0 = System.nanoTime();
        ShardStore store = ShardStore.open(dir);
        ShardPlan plan = store.plan();
        checkApprox(plan, layout, approx, dir);
        Map<TileRange, Map<String, String>> sums = verified(store, dir);
        Path output = null;
        String outputSha = null;
        Map<String, String> outputFiles = null;
        if (layout == Layout.NPZ && plan.approx() != null) {
            output = out != null ? out : dir.resolve("kernel.npz");
            if (!output.getFileName().toString().endsWith(".npz")) {
                throw new OptionException(KernelOption.OUT, " must name a .npz file (got " + output + ")");
            }
            outputSha = approx.write(plan, nystromBlocks(store), output, force);
        } else if (layout != Layout.STORE) {
            output = out != null ? out : dir.resolve(layout == Layout.NPZ ? "kernel.npz" : "kernel");
            if (layout == Layout.NPZ && !output.getFileName().toString().endsWith(".npz")) {
                throw new OptionException(KernelOption.OUT, " must name a .npz file (got " + output + ")");
            }
            if (Files.exists(output) && !force) {
                throw new OptionException(output + " exists; pass ", KernelOption.FORCE, " to replace it");
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
        List<Manifest.Shard> shards = new ArrayList<>();
        for (Map.Entry<TileRange, Map<String, String>> e : sums.entrySet()) {
            TileRange r = e.getKey();
            shards.add(new Manifest.Shard(
                    r.name(),
                    r.kernel(),
                    new int[] {r.rowStart(), r.rowEnd()},
                    new int[] {r.colStart(), r.colEnd()},
                    "shards/" + r.name(),
                    e.getValue()));
        }
        String rel = null;
        if (output != null) {
            rel = (output.toAbsolutePath().startsWith(dir.toAbsolutePath())
                            ? dir.toAbsolutePath().relativize(output.toAbsolutePath())
                            : output.toAbsolutePath())
                    .toString();
        }
        Manifest m = new Manifest(
                MANIFEST_FORMAT,
                plan,
                layout.name().toLowerCase(Locale.ROOT),
                shards,
                layout == Layout.STORE || keepShards,
                rel,
                output == null ? null : outputSha != null ? outputSha : outputFiles);
        Path manifest = dir.resolve("manifest.json");
        Files2.writeString(manifest, ShardPlan.JSON.toJson(m) + "\n");
        if (layout != Layout.STORE && !keepShards) {
            store.deleteShards();
        }
        return new Result(manifest, output, sums.size(), (System.nanoTime() - t0) / 1e9);
    }

    /** A Nyström store is assembled into one NPZ by a writer, or checked only. */
    private static void checkApprox(ShardPlan plan, Layout layout, ApproxWriter approx, Path dir) {
        if (plan.approx() != null && layout == Layout.NPY) {
            throw new OptionException(
                    KernelOption.FORMAT,
                    " npy: the store holds the blocks of " + plan.approx().spec()
                            + ", assembled into one features NPZ (npz) or left as shards (store)");
        }
        if (plan.approx() != null && layout == Layout.NPZ && approx == null) {
            throw new UserException(dir + " holds the blocks of "
                    + plan.approx().spec() + ": assemble it with 'ntk4j kernel assemble " + dir + "'");
        }
    }

    /** The exact blocks of a Nyström store, read from its (verified) shards. */
    static NystromBlocks nystromBlocks(ShardStore store) {
        ShardPlan plan = store.plan();
        float[] c = null;
        float[] ct = null;
        double[] h = null;
        for (String kernel : plan.kernels()) {
            int rows = plan.rows(kernel);
            int cols = plan.cols(kernel);
            double[] d = TileRange.HOLDOUT.equals(kernel) ? new double[rows * cols] : null;
            float[] f = d == null ? new float[Math.multiplyExact(rows, cols)] : null;
            for (TileRange r : plan.shards()) {
                if (!r.kernel().equals(kernel)) {
                    continue;
                }
                Path file = store.shardDir(r).resolve(kernel + ".npy");
                try (NpyFile npy = NpyFile.open(file)) {
                    long[] s = npy.shape();
                    if (s.length != 2 || s[0] != r.rows() || s[1] != r.cols()) {
                        throw new UserException(file + " has shape " + java.util.Arrays.toString(s) + ", expected ("
                                + r.rows() + ", " + r.cols() + ") for " + r);
                    }
                    if (npy.isFloat64() != (plan.valueBytes() == 8)) {
                        throw new UserException(file + " is " + (npy.isFloat64() ? "float64" : "float32")
                                + " but the plan " + ShardPlan.name(plan.dtype()));
                    }
                    for (int i = 0; i < r.rows(); i++) {
                        for (int j = 0; j < r.cols(); j++) {
                            double v = npy.get((long) i * r.cols() + j);
                            int at = (r.rowStart() + i) * cols + r.colStart() + j;
                            if (d != null) {
                                d[at] = v;
                            } else {
                                f[at] = (float) v;
                            }
                        }
                    }
                }
            }
            switch (kernel) {
                case TileRange.TRAIN -> c = f;
                case TileRange.TEST -> ct = f;
                default -> h = d;
            }
        }
        return new NystromBlocks(c, ct, h);
    }

    /** Before any work: free disk for the assembled kernel and for the arrays accumulated on disk in the store. */
    private static void checkDisk(ShardPlan plan, Path dir, Path output) {
        long total = 0;
        long spilled = 0;
        for (String kernel : plan.kernels()) {
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
        Mode mode = factor ? Mode.TRACE : plan.mode();
        return KernelMatrix.bytes(plan.rows(kernel), plan.n(), mode, plan.outputs(), plan.valueBytes() == 8);
    }

    /**
     * Every shard of the store's plan checked ({@link ShardStore#verify}): its files' SHA-256 by shard; a stray shard
     * of another plan or a missing shard is a one-line {@link UserException}.
     */
    private static Map<TileRange, Map<String, String>> verified(ShardStore store, Path dir) {
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
            throw new OptionException(
                    missing.size() + " of " + plan.shards().size() + " shards are missing, e.g. ",
                    missing.get(0).options(),
                    " ('ntk4j kernel ... ",
                    KernelOption.OUT,
                    " " + dir + " ",
                    missing.get(0).options(),
                    "' computes it)");
        }
        return sums;
    }

    /** One array of one kernel, whole, from its shards (and their transposes below the diagonal). */
    private static KernelMatrix assemble(ShardStore store, String kernel, String array, Path dir) {
        ShardPlan plan = store.plan();
        boolean factor = array.endsWith(".forward") || array.endsWith(".backward");
        Mode mode = factor ? Mode.TRACE : plan.mode();
        boolean f64 = plan.valueBytes() == 8;
        int rows = plan.rows(kernel);
        long bytes = KernelMatrix.bytes(rows, plan.n(), mode, plan.outputs(), f64);
        boolean disk = !f64 && bytes > Runtime.getRuntime().maxMemory() / 2;
        if (f64 && bytes > Runtime.getRuntime().maxMemory() / 2) {
            throw new OptionException(
                    array + " needs " + org.ntk4j.kernel.Ntk.bytes(bytes)
                            + " whole, more than half the Java heap: float64 kernels are assembled on the heap; raise"
                            + " -Xmx in JAVA_OPTS, or keep the shards (",
                    KernelOption.FORMAT,
                    " store) and read them lazily");
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
                    throw new UserException(f + " is " + (npy.isFloat64() ? "float64" : "float32") + " but the plan "
                            + ShardPlan.name(plan.dtype()));
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
