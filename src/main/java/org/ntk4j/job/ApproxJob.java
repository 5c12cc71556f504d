package org.ntk4j.job;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.ntk4j.UserException;
import org.ntk4j.approx.ApproxError;
import org.ntk4j.approx.ApproxSpec;
import org.ntk4j.approx.LowRankKernel;
import org.ntk4j.approx.Nystrom;
import org.ntk4j.approx.Pntk;
import org.ntk4j.approx.SketchedFeatures;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.io.KernelFiles;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.report.Files2;
import org.ntk4j.report.Npz;
import org.ntk4j.report.ProgressBar;
import org.ntk4j.request.KernelRequest;
import org.ntk4j.shard.ShardAssembler;
import org.ntk4j.shard.ShardPlan;
import org.ntk4j.spec.Specs;
import org.ntk4j.train.Arrays2;
import org.ntk4j.util.Machine;
import org.ntk4j.util.MachineBudget;

/**
 * The kernel job for an approximate kernel ({@code ntk4j kernel --approx SPEC}): computes the approximation of the
 * request's traced kernel, measures it against the exact engine on a held-out subset of the train images ({@link
 * ApproxError}), and writes the NPZ and its JSON sidecar (format {@value KernelFiles#FORMAT}, with an {@code approx}
 * section holding the spec and the error).
 *
 * <p>NPZ entries. pNTK: ntk (N×N), ntk_test (M×N), as the exact job writes them, so {@code ntk4j regress} reads them
 * unchanged. Low-rank kernels (sketch, Nyström): features (N×r) and features_test (M×r) with K ≈ features featuresᵀ, and for
 * Nyström landmarks (the indices into the train images); never the N×N matrix. Both: y1, y2 (labels or targets).
 *
 * <p>{@code nystrom:auto} doubles the landmarks from 64 until the held-out relative Frobenius error is at most the
 * target (or every train image is a landmark), keeping the last.
 */
public final class ApproxJob {
    private final KernelJobConfig c;
    private final KernelRequest r;
    private final ApproxSpec spec;
    private final int holdout;
    private final double target;

    /**
     * @param holdout images of the held-out subset the error is measured on (at most N)
     * @param target the relative Frobenius error {@code nystrom:auto} grows the landmarks to reach
     */
    public ApproxJob(KernelJobConfig config, ApproxSpec spec, int holdout, double target) {
        this.c = config;
        this.r = config.request();
        this.spec = spec;
        this.holdout = holdout;
        this.target = target;
        if (holdout < 2) {
            throw new UserException("--approx-holdout must be >= 2 (got " + holdout + ")");
        }
        if (!(target > 0) || !(target < 1)) {
            throw new UserException("--approx-error must be a relative error in (0, 1) (got " + target + ")");
        }
        if (r.options().mode() != Mode.TRACE) {
            throw new UserException("--approx computes traced kernels; drop --mode "
                    + r.options().mode().name().toLowerCase(Locale.ROOT) + " (or use --mode trace)");
        }
        if (r.options().perLayer() || r.options().factorKernels()) {
            throw new UserException("--approx writes the total kernel only; drop --per-layer and --factor-kernels");
        }
        if (config.format() != Npz.Format.NPZ) {
            throw new UserException("--approx writes one NPZ file; drop --format npy");
        }
    }

    /** What a run produced: the error on the held-out subset and the sidecar written (as a map). */
    public record Result(ApproxError error, Map<String, Object> sidecar) {}

    /** Runs the job on a manager the caller owns; {@code print} receives the summary (and --explain) lines. */
    public Result run(NDManager m, Consumer<String> print) {
        KernelFiles files = KernelFiles.prepare(c.out(), c.force(), r.options().spillDir(), false);
        try {
            return run(m, print, files);
        } finally {
            files.close();
        }
    }

    /** What one run holds while it computes: its inputs, the held-out subset and the exact kernel on it. */
    private static final class Run {
        private KernelFiles files;
        private Consumer<String> print;
        private LabelledSet train;
        private LabelledSet testSet;
        private int n;
        private int test;
        private long t0;
        private Network net;
        private Network target;
        private NDArray x1;
        private NDArray x2;
        private int[] rows;
        private double[] exactBlock;
        private int[] labels;
        private Ntk exact;
    }

    /** A run's state with its clock started and the train and test sets read. */
    private Run start(Consumer<String> print, KernelFiles files) {
        Run u = new Run();
        u.files = files;
        u.print = print;
        u.t0 = System.nanoTime();
        u.train = r.trainSet(c.dataDir());
        u.n = u.train.size();
        u.testSet = r.testSet(c.dataDir());
        u.test = r.samples().test();
        return u;
    }

    private Result run(NDManager m, Consumer<String> print, KernelFiles files) {
        Run u = start(print, files);
        DataType dt = r.dtype();
        try (Network net = r.network(m)) {
            u.net = net;
            KernelJob.checkShape(net, u.train);
            u.x1 = Arrays2.owned(m, u.train, KernelJob.shape(net, u.n), dt);
            u.x2 = u.testSet == null ? null : Arrays2.owned(m, u.testSet, KernelJob.shape(net, u.test), dt);
            u.target = r.features() ? net.features() : net;
            u.exact = r.ntk(net);
            u.exact.spillDir(files.spillDir());
            checkDisk(u);
            int h = Math.min(holdout, u.n);
            u.rows = ApproxError.holdout(u.n, h, r.seed() + 0x5eedL);
            u.exactBlock = block(u.exact, u.x1, u.rows, m);
            u.labels = u.train.isRegression() ? null : pick(u.train.labels(), u.rows);
            Result res =
                    switch (spec.kind()) {
                        case PNTK -> pntk(u);
                        case SKETCH -> sketch(u);
                        case NYSTROM -> nystrom(u);
                    };
            if (c.explain()) {
                res.error().explain().forEach(print);
            }
            return res;
        }
    }

    /**
     * Before any work (the held-out exact block comes first): free disk at --out for the output beside its targets,
     * headers and sidecar. The pNTK's is an N × N kernel (and the test kernel), accumulated on disk where it does not
     * fit the memory budget; the features' are (N + test) × rank float32 values and the landmarks, with nystrom:auto's
     * rank counted at its first try (64), the least it can write.
     */
    private void checkDisk(Run u) {
        long beside = KernelJob.targetBytes(u.train, u.n, u.test) + (64L << 10);
        if (spec.kind() == ApproxSpec.Kind.PNTK) {
            Ntk p = Pntk.ntk(u.target, r.options()).spillDir(u.files.spillDir());
            KernelJob.checkDisk(
                    p, u.n, u.test, beside, u.files, c.out(), r.options().spillDir());
            return;
        }
        long rank = Math.min(u.n, spec.auto() ? 64 : spec.rank());
        long features = 4L * (u.n + u.test) * rank + (spec.kind() == ApproxSpec.Kind.NYSTROM ? 4L * rank : 0);
        MachineBudget.checkDisk(java.util.List.of(
                new MachineBudget.Disk(u.files.out().getParent(), features + beside, "--out " + c.out())));
    }

    private Result pntk(Run u) {
        long t1 = System.nanoTime();
        int h = u.rows.length;
        // the pNTK approximates each output's kernel Θ_oo: it is compared with the traced kernel over O
        int o = u.target.outputs();
        double scale = r.options().meanNormalised() ? 1 : 1.0 / o;
        for (int i = 0; i < u.exactBlock.length; i++) {
            u.exactBlock[i] *= scale;
        }
        Ntk p = Pntk.ntk(u.target, r.options()).spillDir(u.files.spillDir());
        ProgressBar bar = new ProgressBar("pntk " + u.n + "x" + u.n, 1000);
        KernelResult k = p.onProgress(f -> bar.update(Math.round(f * 1000))).compute(u.x1);
        KernelResult kt = u.x2 == null ? null : p.onProgress(f -> {}).compute(u.x2, u.x1);
        try {
            double seconds = (System.nanoTime() - t1) / 1e9;
            double[] approxBlock = new double[h * h];
            for (int a = 0; a < h; a++) {
                for (int b = 0; b < h; b++) {
                    approxBlock[a * h + b] = k.total().get(u.rows[a], u.rows[b]);
                }
            }
            ApproxError err = ApproxError.of(u.exactBlock, approxBlock, h, u.labels);
            Npz npz = new Npz().compress(c.compress()).put("ntk", k.total());
            if (kt != null) {
                npz.put("ntk_test", kt.total());
            }
            Map<String, Object> approx = new LinkedHashMap<>();
            approx.put("reference", "the traced kernel divided by O = " + o + " (pNTK ≈ Θ_oo)");
            return finish(u, npz, approx, spec.toString(), err, seconds, u.n);
        } finally {
            k.release();
            if (kt != null) {
                kt.release();
            }
        }
    }

    private Result nystrom(Run u) {
        long t1 = System.nanoTime();
        int h = u.rows.length;
        Nystrom.Result res;
        ApproxError err;
        int mm = spec.auto() ? Math.min(64, u.n) : spec.rank();
        java.util.List<Map<String, Object>> tried = new java.util.ArrayList<>();
        while (true) {
            ApproxSpec s = new ApproxSpec(ApproxSpec.Kind.NYSTROM, mm, spec.variant());
            res = Nystrom.compute(u.exact, u.x1, u.x2, s, r.seed());
            err = ApproxError.of(u.exactBlock, res.kernel().block(u.rows, u.rows), h, u.labels);
            if (!spec.auto()) {
                break;
            }
            tried.add(Specs.ordered("landmarks", mm, "relative_frobenius_error", err.relativeFrobenius()));
            u.print.accept(String.format(
                    Locale.ROOT, "nystrom:%d: held-out relative Frobenius error %.4g", mm, err.relativeFrobenius()));
            if (err.relativeFrobenius() <= target || mm == u.n) {
                break;
            }
            mm = Math.min(2 * mm, u.n);
        }
        double seconds = (System.nanoTime() - t1) / 1e9;
        Map<String, Object> approx = new LinkedHashMap<>();
        if (spec.auto()) {
            approx.put("target_error", target);
            approx.put("tried", tried);
        }
        return nystromOutput(u, res, err, approx, seconds);
    }

    /** Writes the Nyström features NPZ (features, features_test, landmarks, y1, y2) and its sidecar. */
    private Result nystromOutput(
            Run u, Nystrom.Result res, ApproxError err, Map<String, Object> extra, double seconds) {
        LowRankKernel lr = res.kernel();
        Npz npz = new Npz().compress(c.compress()).put("features", lr.trainFeatures(), lr.trainRows(), lr.rank());
        if (lr.testFeatures() != null) {
            npz.put("features_test", lr.testFeatures(), lr.testRows(), lr.rank());
        }
        npz.put("landmarks", res.landmarks(), res.landmarks().length);
        Map<String, Object> approx = new LinkedHashMap<>();
        approx.put("landmarks", res.landmarks().length);
        approx.put("landmark_choice", spec.variant());
        approx.putAll(extra);
        String name = spec.auto() ? "nystrom:auto (" + res.landmarks().length + " landmarks)" : spec.toString();
        return finish(u, npz, approx, name, err, seconds, lr.rank());
    }

    /**
     * The writer of a Nyström shard store's output ({@code ntk4j kernel assemble DIR}): from the exact blocks C, C*
     * and K_SS assembled from the shards, the features ({@link Nystrom#fromColumns}) and their held-out error ({@link
     * ApproxError}), written with the labels of the plan's dataset (read from {@code dataDir}) as {@code ntk4j kernel
     * --approx nystrom:M --tile T} writes them: the same entries, bit for bit the same features; the sidecar's
     * {@code approx} names the shard plan. Builds the network (on the CPU) only to count its parameters.
     */
    public static ShardAssembler.ApproxWriter shardWriter(Path dataDir, Consumer<String> print) {
        return (plan, blocks, output, force) -> {
            ShardPlan.Approx a = plan.approx();
            KernelRequest r = plan.request(null);
            KernelJobConfig config = KernelJobConfig.builder(r)
                    .out(output)
                    .dataDir(dataDir)
                    .force(force)
                    .build();
            ApproxJob job = new ApproxJob(config, ApproxSpec.parse(a.spec()), a.holdout().length, 0.05);
            KernelFiles files = KernelFiles.prepare(output, force, null, false);
            try (NDManager m = NDManager.newBaseManager(ai.djl.Device.cpu())) {
                return job.fromShards(plan, blocks, m, print, files);
            } finally {
                files.close();
            }
        };
    }

    private String fromShards(
            ShardPlan plan, ShardAssembler.NystromBlocks blocks, NDManager m, Consumer<String> print, KernelFiles f) {
        Run u = start(print, f);
        if (u.n != plan.n()) {
            throw new UserException("the plan has " + plan.n() + " training images of "
                    + r.samples().dataset() + " but " + u.n + " were read here");
        }
        ShardPlan.Approx a = plan.approx();
        try (Network net = r.network(m)) {
            u.net = net;
            u.rows = a.holdout();
            u.exactBlock = blocks.holdout();
            u.labels = u.train.isRegression() ? null : pick(u.train.labels(), u.rows);
            long t1 = System.nanoTime();
            LowRankKernel k = Nystrom.fromColumns(
                    blocks.columns(),
                    u.n,
                    blocks.testColumns(),
                    u.test,
                    a.landmarks(),
                    plan.dtype() == DataType.FLOAT64,
                    spec.toString());
            Nystrom.Result res = new Nystrom.Result(k, a.landmarks(), k.rank(), 0);
            ApproxError err = ApproxError.of(u.exactBlock, k.block(u.rows, u.rows), u.rows.length, u.labels);
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put("shard_plan", plan.id());
            Result out = nystromOutput(u, res, err, extra, (System.nanoTime() - t1) / 1e9);
            return (String) out.sidecar().get("sha256");
        }
    }

    /**
     * The sketched tangent features ({@link SketchedFeatures}): F and G from one seeded projection, scaled by 1/√O
     * when the exact kernel is mean-normalised (the features estimate the kernel summed over outputs).
     */
    private Result sketch(Run u) {
        long t1 = System.nanoTime();
        SketchedFeatures.Result res = SketchedFeatures.compute(u.target, r.options(), u.x1, u.x2, spec, r.seed());
        LowRankKernel lr = res.kernel();
        if (r.options().meanNormalised()) {
            float s = (float) (1 / Math.sqrt(u.target.outputs()));
            for (float[] f : new float[][] {lr.trainFeatures(), lr.testFeatures()}) {
                for (int i = 0; f != null && i < f.length; i++) {
                    f[i] *= s;
                }
            }
        }
        double seconds = (System.nanoTime() - t1) / 1e9;
        int h = u.rows.length;
        ApproxError err = ApproxError.of(u.exactBlock, lr.block(u.rows, u.rows), h, u.labels);
        Npz npz = new Npz().compress(c.compress()).put("features", lr.trainFeatures(), lr.trainRows(), lr.rank());
        if (lr.testFeatures() != null) {
            npz.put("features_test", lr.testFeatures(), lr.testRows(), lr.rank());
        }
        Map<String, Object> approx = new LinkedHashMap<>();
        approx.put("projection", SketchedFeatures.kind(spec).label());
        approx.put("projection_seed", r.seed());
        return finish(u, npz, approx, spec.toString(), err, seconds, lr.rank());
    }

    private Result finish(
            Run u, Npz npz, Map<String, Object> approx, String name, ApproxError err, double seconds, int rank) {
        KernelJob.putTargets(npz, "y1", u.train, u.n);
        if (u.testSet != null) {
            KernelJob.putTargets(npz, "y2", u.testSet, u.test);
        }
        Map<String, Object> side = new LinkedHashMap<>();
        side.put("format", KernelFiles.FORMAT);
        side.put("model", r.spec().name());
        side.put("spec", r.spec());
        side.put("seed", r.seed());
        side.put("dataset", r.samples().dataset());
        side.put("n", u.n);
        side.put("test", u.test);
        side.put("mode", "trace");
        side.put("normalisation", r.normalisation());
        side.put("dtype", r.dtype().toString());
        side.put("parameters", u.net.parameterCount());
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("spec", name);
        a.put("rank", rank);
        a.putAll(approx);
        a.put("seconds", seconds);
        a.put("error", err.toMap());
        side.put("approx", a);
        side.put("seconds_total", (System.nanoTime() - u.t0) / 1e9);
        side.put("peak_heap_bytes", Machine.peakHeapBytes());
        Path npzTmp = u.files.npzTemp();
        String sha = npz.writeHashed(npzTmp).values().iterator().next();
        side.put("npz", c.out().getFileName().toString());
        side.put("sha256", sha);
        Path jsonTmp = u.files.sidecarTemp();
        Files2.writeString(jsonTmp, Specs.toJson(side) + "\n");
        u.files.publish(npzTmp, jsonTmp);
        u.print.accept(String.format(
                Locale.ROOT,
                "%s of the traced NTK of %d %s images (%s, rank %d) in %.2fs -> %s; held-out error %.4g (%d images)",
                name,
                u.n,
                r.samples().dataset(),
                r.spec().name(),
                rank,
                seconds,
                c.out(),
                err.relativeFrobenius(),
                err.rows()));
        return new Result(err, side);
    }

    /** The exact traced kernel on the given train rows (h×h, float64 values). */
    private static double[] block(Ntk exact, NDArray x, int[] rows, NDManager m) {
        try (NDManager sm = m.newSubManager()) {
            NDArray xs = x.get(new NDIndex(
                    "{}", sm.create(Arrays.stream(rows).asLongStream().toArray())));
            KernelResult k = exact.compute(xs);
            try {
                return k.total().toDoubleArray();
            } finally {
                k.release();
            }
        }
    }

    private static int[] pick(int[] all, int[] rows) {
        int[] out = new int[rows.length];
        for (int i = 0; i < rows.length; i++) {
            out[i] = all[rows[i]];
        }
        return out;
    }
}
