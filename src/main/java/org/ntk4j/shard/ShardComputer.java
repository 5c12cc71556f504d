package org.ntk4j.shard;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ntk4j.OptionException;
import org.ntk4j.UserException;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.io.KernelFiles;
import org.ntk4j.kernel.KernelMatrix;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.model.Network;
import org.ntk4j.request.KernelRequest;
import org.ntk4j.train.Arrays2;
import org.ntk4j.util.Machine;

/**
 * Computes the shards of a {@link ShardPlan} on this machine: the network is built once (spec and seed of the
 * plan, weights checked against the plan's SHA-256), then each {@link #compute(TileRange)} computes one block on
 * the plan's tile grid ({@link Ntk#computeBlock}), bit for bit the same block of the whole kernel.
 *
 * <pre>{@code
 * ShardPlan plan = ShardPlan.fromJson(json, "plan.json");
 * try (NDManager m = NDManager.newBaseManager();
 *         ShardComputer c = ShardComputer.open(plan, null, dataDir, m)) {
 *     ShardData d = c.compute(range);                       // reads the rows from the dataset
 *     ShardData e = c.compute(range, rowFeatures, colFeatures); // or from rows read elsewhere
 *     store.write(d);
 * }
 * }</pre>
 *
 * Not thread-safe: one computer per thread (PyTorch computes each block on all its intra-op threads).
 */
public final class ShardComputer implements AutoCloseable {
    private final ShardPlan plan;
    private final KernelRequest request;
    private final NDManager manager;
    private final Network net;
    private final DataType dtype;
    private final Path dataDir;
    private long memory = 2L << 30;
    private LabelledSet train;
    private LabelledSet testSet;
    private boolean timedOnRandomInputs;

    private ShardComputer(
            ShardPlan plan, KernelRequest request, NDManager manager, Network net, DataType dtype, Path dataDir) {
        this.plan = plan;
        this.dataDir = dataDir;
        this.request = request;
        this.manager = manager;
        this.net = net;
        this.dtype = dtype;
    }

    /**
     * Opens a computer for {@code plan} on a sub-manager of {@code m}.
     *
     * @param weights the weights file on this machine; null = the path the plan records. Its SHA-256 must be the
     *     plan's (else a one-line {@link UserException}).
     * @param dataDir the data directory of this machine (for {@link #compute(TileRange)} and {@link #rows})
     */
    public static ShardComputer open(ShardPlan plan, Path weights, Path dataDir, NDManager m) {
        ShardPlan.Source s = plan.source();
        Path w = weights != null ? weights : s.weights() == null ? null : Path.of(s.weights());
        if (s.weightsSha256() == null && w != null) {
            throw new UserException("weights " + w + " given, but the plan was made for a fresh initialisation (seed "
                    + s.seed() + ")");
        }
        if (s.weightsSha256() != null) {
            String h = KernelFiles.sha256(w);
            if (!h.equals(s.weightsSha256())) {
                throw new UserException("weights " + w + " have sha256 " + h.substring(0, 16)
                        + "..., but the plan was made for " + s.weightsSha256().substring(0, 16) + "...");
            }
        }
        KernelRequest request = plan.request(w);
        DataType dt = plan.dtype();
        NDManager sub = m.newSubManager();
        try {
            Network net = request.network(sub);
            int o = (s.features() ? net.features() : net).outputs();
            if (o != plan.outputs()) {
                throw new UserException("the network has " + o + " outputs but the plan " + plan.outputs());
            }
            return new ShardComputer(plan, request, sub, net, dt, dataDir);
        } catch (RuntimeException e) {
            sub.close();
            throw e;
        }
    }

    /** Memory budget of the tiles' factor cache (default 2 GiB); the tile itself is the plan's. */
    public ShardComputer memory(long bytes) {
        this.memory = bytes;
        return this;
    }

    public ShardPlan plan() {
        return plan;
    }

    /** Floats per sample in the row and column inputs: the network's input size (e.g. 784, 3072). */
    public int featureDim() {
        return (int) net.inputShape().size();
    }

    /**
     * The inputs of rows {@code [start, end)} of {@code kernel} as the plan's dataset gives them (training images
     * for Θ(X1, X1) and for every column; test images for the rows of Θ(X2, X1)), flattened (end − start) ×
     * {@link #featureDim()}, float32.
     */
    public float[] rows(String kernel, int start, int end) {
        LabelledSet d = TileRange.TEST.equals(kernel) ? testSet() : trainSet();
        int dim = d.featureDim();
        if (dim != featureDim()) {
            throw new UserException("model " + plan.source().model() + " expects inputs of shape " + net.inputShape()
                    + " but " + d.name() + " samples have " + dim + " values");
        }
        if (end > d.size()) {
            throw new UserException("rows " + start + ":" + end + " exceed the " + d.size() + " samples of "
                    + plan.source().dataset());
        }
        return java.util.Arrays.copyOfRange(d.features(), start * dim, end * dim);
    }

    private LabelledSet trainSet() {
        if (train == null) {
            train = request.trainSet(dataDir);
        }
        return train;
    }

    private LabelledSet testSet() {
        if (testSet == null) {
            testSet = request.testSet(dataDir);
        }
        return testSet;
    }

    /**
     * The inputs of the training images {@code images} (indices into the plan's training images, a Nyström plan's
     * landmarks or held-out images), flattened {@code images.length} × {@link #featureDim()}, float32, as {@link
     * #rows} gives them.
     */
    public float[] images(int[] images) {
        int dim = featureDim();
        float[] out = new float[images.length * dim];
        for (int i = 0; i < images.length; i++) {
            System.arraycopy(rows(TileRange.TRAIN, images[i], images[i] + 1), 0, out, i * dim, dim);
        }
        return out;
    }

    /**
     * The block {@code range}, its inputs read from the plan's dataset on this machine: the images of its rows
     * and columns ({@link ShardPlan#rowImages}, {@link ShardPlan#columnImages}: a Nyström plan's columns are its
     * landmarks).
     */
    public ShardData compute(TileRange range) {
        String k = range.kernel();
        int[] ri = plan.rowImages(k);
        int[] ci = plan.columnImages(k);
        return compute(
                range,
                ri == null
                        ? rows(k, range.rowStart(), range.rowEnd())
                        : images(Arrays.copyOfRange(ri, range.rowStart(), range.rowEnd())),
                ci == null
                        ? rows(TileRange.TRAIN, range.colStart(), range.colEnd())
                        : images(Arrays.copyOfRange(ci, range.colStart(), range.colEnd())));
    }

    /**
     * The block {@code range} from the inputs of its rows and columns, read by the caller: {@code rowFeatures}
     * holds rows {@code [rowStart, rowEnd)} ((rowEnd − rowStart) × {@link #featureDim()} floats, training images
     * for Θ(X1, X1), test images for Θ(X2, X1)), {@code colFeatures} columns {@code [colStart, colEnd)} (training
     * images), as {@link #rows} would return them (the dataset's float32 values after padding); in a Nyström plan
     * the columns' (and K_SS's rows') images are those of {@link ShardPlan#columnImages} ({@link
     * ShardPlan#rowImages}) at those positions. The range must lie on the plan's tile grid (every shard of the plan
     * does).
     */
    public ShardData compute(TileRange range, float[] rowFeatures, float[] colFeatures) {
        int dim = featureDim();
        String k = range.kernel();
        int rows = plan.rows(k);
        int cols = plan.cols(k);
        if (range.rowEnd() > rows || range.colEnd() > cols) {
            throw new UserException(range + " is out of range: the kernel is " + rows + "×" + cols);
        }
        if (rowFeatures.length != (long) range.rows() * dim || colFeatures.length != (long) range.cols() * dim) {
            throw new IllegalArgumentException("inputs of " + rowFeatures.length + " and " + colFeatures.length
                    + " floats for " + range + " (" + dim + " per sample)");
        }
        int t = plan.tile();
        for (int[] e :
                new int[][] {{range.rowStart(), range.rowEnd(), rows}, {range.colStart(), range.colEnd(), cols}}) {
            if (e[0] % t != 0 || (e[1] != e[2] && e[1] % t != 0)) {
                throw new OptionException(range.options(), " is not on the plan's grid of " + t + "-sample tiles");
            }
        }
        try (NDManager m = manager.newSubManager()) {
            NDArray xr = Arrays2.fromFloats(m, rowFeatures, shape(range.rows()), dtype);
            NDArray xc = Arrays2.fromFloats(m, colFeatures, shape(range.cols()), dtype);
            Ntk ntk = request.ntk(net).memory(memory);
            KernelResult r =
                    ntk.computeBlock(xr, xc, range.rowStart(), range.colStart(), rows, cols, plan.symmetric(k));
            Map<String, KernelMatrix> arrays = new LinkedHashMap<>();
            arrays.put(k, r.total());
            r.layers().forEach((name, km) -> arrays.put(k + "." + name, km));
            if (plan.symmetric(k) && plan.approx() == null) {
                r.factorKernels().forEach((name, km) -> arrays.put(k + "." + name, km));
            }
            List<String> want = plan.arrays(k);
            if (!new java.util.HashSet<>(want).equals(arrays.keySet())) {
                throw new IllegalStateException("computed arrays " + arrays.keySet() + " but the plan has " + want);
            }
            Map<String, KernelMatrix> ordered = new LinkedHashMap<>();
            want.forEach(a -> ordered.put(a, arrays.get(a)));
            return new ShardData(range, ordered, r.seconds(), r.timings());
        }
    }

    private Shape shape(int n) {
        long[] s = new long[net.inputShape().dimension() + 1];
        s[0] = n;
        System.arraycopy(net.inputShape().getShape(), 0, s, 1, s.length - 1);
        return new Shape(s);
    }

    /**
     * Times one tile pair on this machine, as a shard computes it: rows 0:T × columns T:2T of Θ(X1, X1) (0:T × 0:T
     * when N ≤ T), the inputs read from the dataset (its first images repeated when it has fewer than 2T; Gaussian
     * inputs when it is not on this machine: timing depends on shapes, not values). Computed twice; the second run is reported (the first
     * warms up PyTorch).
     */
    public ShardPlanner.TileTiming timeTile() {
        int t = plan.tile();
        boolean two = plan.n() > t;
        int cols = two ? Math.min(plan.n(), 2 * t) - t : Math.min(plan.n(), t);
        int rows = Math.min(plan.n(), t);
        float[] xr = sample(rows, 0);
        float[] xc = sample(cols, rows);
        double[] run = new double[4];
        for (int rep = 0; rep < 2; rep++) {
            long cpu0 = Machine.processCpuNanos();
            long wall0 = System.nanoTime();
            try (NDManager m = manager.newSubManager()) {
                NDArray a = Arrays2.fromFloats(m, xr, shape(rows), dtype);
                NDArray b = Arrays2.fromFloats(m, xc, shape(cols), dtype);
                KernelResult r =
                        request.ntk(net).memory(memory).computeBlock(a, b, 0, two ? t : 0, plan.n(), plan.n(), !two);
                run[0] = r.timings().get("factors") / (two ? 2 : 1);
                run[1] = r.timings().get("contraction") + r.timings().get("host");
                run[2] = r.seconds();
                r.release();
            }
            long cpu = Machine.processCpuNanos() - cpu0;
            run[3] = cpu0 < 0 ? 1 : cpu / ((System.nanoTime() - wall0) * (double) Machine.engineThreads());
        }
        boolean onCpu = manager.getDevice().equals(ai.djl.Device.cpu());
        double busy = onCpu ? Math.max(1e-3, Math.min(1, run[3])) : 1;
        double load = Machine.loadAverage();
        return new ShardPlanner.TileTiming(
                t,
                rows,
                cols,
                run[0],
                run[1],
                run[2],
                manager.getDevice().toString(),
                Machine.engineThreads(),
                busy,
                load,
                timedOnRandomInputs
                        ? "random inputs (" + plan.source().dataset() + " is not on this machine)"
                        : "dataset");
    }

    /**
     * {@code count} samples of the training split (padded) from {@code from}, cycling through what it has; when
     * the dataset is not on this machine, seeded Gaussian inputs of the model's shape (a tile's time depends on
     * shapes, not values).
     */
    private float[] sample(int count, int from) {
        ShardPlan.Source s = plan.source();
        int dim = featureDim();
        LabelledSet d;
        try {
            d = Datasets.load(s.dataset(), Split.TRAIN, dataDir);
            if (s.pad() != null) {
                d = Preprocess.pad(d, s.pad());
            }
        } catch (UserException e) {
            timedOnRandomInputs = true;
            java.util.Random r = new java.util.Random(from);
            float[] out = new float[count * dim];
            for (int i = 0; i < out.length; i++) {
                out[i] = (float) r.nextGaussian();
            }
            return out;
        }
        if (d.featureDim() != dim) {
            throw new UserException("model " + s.model() + " expects inputs of shape " + net.inputShape() + " but "
                    + d.name() + " samples have " + d.featureDim() + " values");
        }
        float[] out = new float[count * dim];
        for (int i = 0; i < count; i++) {
            int src = (from + i) % d.size();
            System.arraycopy(d.features(), src * dim, out, i * dim, dim);
        }
        return out;
    }

    @Override
    public void close() {
        net.close();
        manager.close();
    }
}
