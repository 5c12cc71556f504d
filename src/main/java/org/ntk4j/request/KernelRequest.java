package org.ntk4j.request;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.nio.file.Path;
import java.util.Objects;
import org.ntk4j.OptionException;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.NtkOptions;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;

/**
 * One empirical kernel to compute, whoever computes it (the kernel job, a shard of it on another machine, a Spark
 * task): the empirical NTK Θ(X1, X1) of a network on N training samples, and Θ(X2, X1) on M test samples. What it
 * leaves out is where the result goes and which machine reads the data. Immutable; build with {@link #builder()}.
 *
 * <pre>{@code
 * KernelRequest r = KernelRequest.builder().model("mlp-quickstart").dataset("mnist-subset").n(500).test(100)
 *         .perLayer(true).build();
 * try (Network net = r.network(manager)) {
 *     KernelResult k = r.ntk(net).compute(x1);
 * }
 * }</pre>
 *
 * @param model the model as given: a spec file or a name in models/
 * @param modelSpec the resolved spec, when the request was read from a plan made elsewhere; null = resolve
 *     {@code model} ({@link #spec()})
 * @param weights a weights file of a run (weights.npz); null = a fresh initialisation from {@code seed}
 * @param seed initialisation seed, also the seed of the class-balanced sample of {@link Samples#perClass()}
 * @param samples the samples of the rows and columns
 * @param features the last-layer-features kernel Θ^h instead of the NTK (Seleznova et al., Neural (Tangent Kernel)
 *     Collapse, §3: the kernel of the penultimate features)
 * @param options what the engine computes: mode, method, per-layer and factor kernels, normalisation, float64
 *     (the network in float64 too: {@link #dtype()}), memory budget, spill directory, tile
 */
public record KernelRequest(
        String model,
        ModelSpec modelSpec,
        Path weights,
        long seed,
        Samples samples,
        boolean features,
        NtkOptions options) {
    /** The default memory budget of a request, as the engine's ({@link NtkOptions#defaults()}). */
    public static final long DEFAULT_MEMORY = NtkOptions.defaults().memoryBytes();

    public KernelRequest {
        Objects.requireNonNull(samples, "samples");
        Objects.requireNonNull(options, "options");
        if (model == null && modelSpec == null) {
            throw new OptionException(KernelOption.MODEL, " is required");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this request. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.model = model;
        b.spec = modelSpec;
        b.weights = weights;
        b.seed = seed;
        b.dataset = samples.dataset();
        b.n = samples.n();
        b.perClass = samples.perClass();
        b.test = samples.test();
        b.pad = samples.pad();
        b.features = features;
        b.options(options);
        return b;
    }

    /** The network's data type: FLOAT64 when the kernel is accumulated in float64, else FLOAT32. */
    public DataType dtype() {
        return options.float64() ? DataType.FLOAT64 : DataType.FLOAT32;
    }

    /** The model spec: the one recorded, else {@code model} resolved (a spec file or a name in models/). */
    public ModelSpec spec() {
        return modelSpec != null ? modelSpec : ModelSpec.resolve(model);
    }

    /** What the kernel normalisation applied is: "mean" divides a TRACE kernel by O, any other is a "sum". */
    public String normalisation() {
        return options.meanNormalised() && options.mode() == Mode.TRACE ? "mean" : "sum";
    }

    /** The training samples read from {@code dataDir} ({@link Samples#train}). */
    public LabelledSet trainSet(Path dataDir) {
        return samples.train(dataDir, seed);
    }

    /** The test samples read from {@code dataDir} ({@link Samples#test}); null when M = 0. */
    public LabelledSet testSet(Path dataDir) {
        return samples.test(dataDir);
    }

    /** The network: built from the spec and seed, its weights loaded, cast to {@link #dtype()} (caller closes). */
    public Network network(NDManager m) {
        return network(spec(), seed, weights, dtype(), m);
    }

    /** A network built from {@code spec} and {@code seed}, the weights (if not null) loaded, cast to {@code dtype}. */
    public static Network network(ModelSpec spec, long seed, Path weights, DataType dtype, NDManager m) {
        Network net = Network.build(spec, seed, m);
        try {
            if (weights != null) {
                net.loadParameters(weights);
            }
            net.cast(dtype);
            return net;
        } catch (RuntimeException e) {
            net.close();
            throw e;
        }
    }

    /**
     * The kernel of {@code net} (its penultimate features with {@link #features()}) with the request's options; a
     * caller sets the memory and spill directory it gives the tiles.
     */
    public Ntk ntk(Network net) {
        return Ntk.of(features ? net.features() : net, options);
    }

    /**
     * Builds a {@link KernelRequest}: every setting checked by {@link #build()}, a bad one a one-line {@link
     * OptionException} naming it. Defaults: seed 0, no weights, no test samples, trace mode, the automatic method,
     * float32, sum normalisation, {@link #DEFAULT_MEMORY}; model, dataset and N are required.
     */
    public static final class Builder {
        private String model;
        private ModelSpec spec;
        private Path weights;
        private long seed;
        private String dataset;
        private int n;
        private Integer perClass;
        private int test;
        private Integer pad;
        private boolean features;
        private NtkOptions base = NtkOptions.defaults();
        private Mode mode;
        private Method method;
        private DataType dtype;
        private boolean meanNormalised;
        private long memory;
        private Long deviceMemory;
        private Path spillDir;
        private boolean perLayer;
        private boolean factorKernels;
        private Integer tile;

        private Builder() {
            options(base);
        }

        public Builder model(String m) {
            this.model = m;
            return this;
        }

        /** The resolved spec of {@code model} (else it is resolved when needed). */
        public Builder spec(ModelSpec s) {
            this.spec = s;
            return this;
        }

        public Builder weights(Path w) {
            this.weights = w;
            return this;
        }

        public Builder seed(long s) {
            this.seed = s;
            return this;
        }

        public Builder dataset(String d) {
            this.dataset = d;
            return this;
        }

        public Builder n(int samples) {
            this.n = samples;
            return this;
        }

        public Builder perClass(Integer samples) {
            this.perClass = samples;
            return this;
        }

        public Builder test(int samples) {
            this.test = samples;
            return this;
        }

        public Builder pad(Integer pixels) {
            this.pad = pixels;
            return this;
        }

        /** The samples at once. */
        public Builder samples(Samples s) {
            return dataset(s.dataset())
                    .n(s.n())
                    .perClass(s.perClass())
                    .test(s.test())
                    .pad(s.pad());
        }

        public Builder features(boolean b) {
            this.features = b;
            return this;
        }

        /** All engine options at once; the settings below refine them (those this builder has no setter for are kept). */
        public Builder options(NtkOptions o) {
            this.base = o;
            this.mode = o.mode();
            this.method = o.method();
            this.dtype = o.float64() ? DataType.FLOAT64 : DataType.FLOAT32;
            this.meanNormalised = o.meanNormalised();
            this.memory = o.memoryBytes();
            this.deviceMemory = o.deviceMemory();
            this.spillDir = o.spillDir();
            this.perLayer = o.perLayer();
            this.factorKernels = o.factorKernels();
            this.tile = o.tile();
            return this;
        }

        public Builder mode(Mode m) {
            this.mode = m;
            return this;
        }

        public Builder method(Method m) {
            this.method = m;
            return this;
        }

        /** FLOAT32, or FLOAT64: the network in float64 and the kernel accumulated in float64. */
        public Builder dtype(DataType t) {
            this.dtype = t;
            return this;
        }

        /** Divide a TRACE kernel by the number of outputs O (neural-tangents' convention) instead of summing. */
        public Builder meanNormalised(boolean b) {
            this.meanNormalised = b;
            return this;
        }

        /** The memory budget of the computation in bytes: held kernels, tiles, inputs and parameters. */
        public Builder memory(long bytes) {
            this.memory = bytes;
            return this;
        }

        /**
         * Bytes the compute device may hold: tiles and, when they fit, the output kernels; null = the device's free
         * memory less a margin (on the CPU half the physical memory).
         */
        public Builder deviceMemory(Long bytes) {
            this.deviceMemory = bytes;
            return this;
        }

        /** Where kernels too large for the memory budget are accumulated on disk; null = none given. */
        public Builder spillDir(Path dir) {
            this.spillDir = dir;
            return this;
        }

        public Builder perLayer(boolean b) {
            this.perLayer = b;
            return this;
        }

        public Builder factorKernels(boolean b) {
            this.factorKernels = b;
            return this;
        }

        /** Samples per tile, fixed (null: the largest the memory budget allows). */
        public Builder tile(Integer samples) {
            this.tile = samples;
            return this;
        }

        public KernelRequest build() {
            if (dtype != DataType.FLOAT32 && dtype != DataType.FLOAT64) {
                throw new OptionException(KernelOption.DTYPE, " must be float32 or float64 (got " + dtype + ")");
            }
            if (memory <= 0) {
                throw new OptionException(KernelOption.MEMORY, " must be a size like 512m or 4g (got " + memory + ")");
            }
            Samples s = new Samples(dataset, n, perClass, test, pad);
            if ((model == null && spec == null) || dataset == null || mode == null || method == null) {
                throw new OptionException(
                        KernelOption.MODEL,
                        ", ",
                        KernelOption.DATASET,
                        ", ",
                        KernelOption.MODE,
                        " and ",
                        KernelOption.METHOD,
                        " are required");
            }
            if (deviceMemory != null && deviceMemory <= 0) {
                throw new OptionException(
                        KernelOption.DEVICE_MEMORY, " must be a size like 512m or 40g (got " + deviceMemory + ")");
            }
            if (tile != null && tile < 1) {
                throw new OptionException(KernelOption.TILE, " must be >= 1 (got " + tile + ")");
            }
            NtkOptions o = base.toBuilder()
                    .mode(mode)
                    .method(method)
                    .float64(dtype == DataType.FLOAT64)
                    .meanNormalised(meanNormalised)
                    .memory(memory)
                    .deviceMemory(deviceMemory)
                    .spillDir(spillDir)
                    .perLayer(perLayer)
                    .factorKernels(factorKernels)
                    .tile(tile)
                    .build();
            return new KernelRequest(model, spec, weights, seed, s, features, o);
        }
    }
}
