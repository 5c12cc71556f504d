package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.ntk4j.UserException;
import org.ntk4j.spec.Arch;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;

/**
 * A built network: its module tree, the spec it came from, and the manager that owns its
 * parameters. f(x) = κ·root(x) with κ the spec's output scale. Usable from Java without the CLI:
 * {@code Network.build(spec, seed, manager)}.
 */
public final class Network implements AutoCloseable {
    private final ModelSpec spec;
    private final Module root;
    private final NDManager manager;
    private final long seed;
    private final Shape inputShape;
    private final int outputs;
    private DataType dataType;
    private boolean view;

    private Network(
            ModelSpec spec, Module root, NDManager manager, long seed, Shape inputShape, int outputs, DataType type) {
        this.spec = spec;
        this.root = root;
        this.manager = manager;
        this.seed = seed;
        this.inputShape = inputShape;
        this.outputs = outputs;
        this.dataType = type;
    }

    /** Builds and initialises the network of {@code spec} with parameters drawn from {@code seed}. */
    public static Network build(ModelSpec spec, long seed, NDManager parent, DataType type) {
        Module root = Models.root(spec);
        NDManager m = parent.newSubManager();
        Shape in =
                new Shape(java.util.Arrays.stream(spec.input()).asLongStream().toArray());
        Shape out = root.initialize(m, type, in, new Random(seed));
        if (out.dimension() != 1 || out.get(0) != spec.outputs()) {
            m.close();
            throw new IllegalStateException("network output shape " + out + " != outputs " + spec.outputs());
        }
        return new Network(spec, root, m, seed, in, spec.outputs(), type);
    }

    public static Network build(ModelSpec spec, long seed, NDManager parent) {
        return build(spec, seed, parent, DataType.FLOAT32);
    }

    /**
     * A network from ntk4j modules: {@code root} is initialised for per-sample input {@code inputShape}
     * with parameters drawn from {@code seed} in a sub-manager of {@code parent} (closed with the
     * network), and must output a vector per sample.
     */
    public static Network of(String name, Module root, Shape inputShape, long seed, NDManager parent, DataType type) {
        NDManager m = parent.newSubManager();
        Shape out = root.initialize(m, type, inputShape, new Random(seed));
        if (out.dimension() != 1) {
            m.close();
            throw new UserException(
                    "model " + name + " outputs per-sample shape " + out + "; expected a vector of outputs");
        }
        ModelSpec spec = ModelSpec.builder()
                .name(name)
                .arch(Arch.CUSTOM)
                .input(java.util.Arrays.stream(inputShape.getShape())
                        .mapToInt(Math::toIntExact)
                        .toArray())
                .outputs((int) out.get(0))
                .build();
        return new Network(spec, root, m, seed, inputShape, spec.outputs(), type);
    }

    /**
     * Wraps an initialised DJL block (e.g. from {@code ai.djl.basicmodelzoo}) so the NTK engine can
     * measure it. {@code SequentialBlock}s are walked, and DJL's {@code Linear}, {@code Conv2d} and
     * {@code BatchNorm} (eval mode) become tappable layers that take their tangent rules (the
     * structured path); any other block with parameters is measured through the generic Jacobian
     * path. The block keeps ownership of its parameters: closing the returned network frees nothing.
     *
     * @param inputShape per-sample input shape
     */
    public static Network ofBlock(ai.djl.nn.Block block, Shape inputShape, NDManager manager) {
        requireGradients(block);
        Module root = DjlBlocks.convert(block, "", new ai.djl.training.ParameterStore(manager, false));
        Shape out = root.initialize(manager, DataType.FLOAT32, inputShape, null);
        if (out.dimension() != 1) {
            throw new UserException("DJL block " + block.getClass().getSimpleName() + " outputs per-sample shape " + out
                    + "; expected a vector of outputs");
        }
        ModelSpec spec = ModelSpec.builder()
                .name(block.getClass().getSimpleName())
                .arch(Arch.DJL)
                .input(java.util.Arrays.stream(inputShape.getShape())
                        .mapToInt(Math::toIntExact)
                        .toArray())
                .outputs((int) out.get(0))
                .build();
        List<Param> ps = new ArrayList<>();
        collect(root, ps);
        DataType type = ps.isEmpty() ? DataType.FLOAT32 : ps.get(0).value().getDataType();
        Network n = new Network(spec, root, manager, 0, inputShape, spec.outputs(), type);
        n.view = true;
        return n;
    }

    /**
     * A DJL {@link ai.djl.Model} (its block and manager) as a network, e.g. one restored from a
     * {@code .params} file by {@code model.load(dir)}; see {@link #ofBlock}. The model keeps ownership
     * of its parameters: closing the returned network frees nothing, closing the model invalidates it.
     *
     * @param inputShape per-sample input shape
     */
    public static Network ofModel(ai.djl.Model model, Shape inputShape) {
        if (model.getBlock() == null) {
            throw new UserException("DJL model " + model.getName() + " has no block");
        }
        return ofBlock(model.getBlock(), inputShape, model.getNDManager());
    }

    /**
     * Marks the arrays of a DJL block's trainable parameters as requiring gradients. DJL sets the
     * flag only in {@code Parameter.initialize}; arrays restored by {@code Model.load} ({@code .params})
     * are plain leaves, and the Jacobian's backward pass then fails with "element 0 of tensors does not
     * require grad". They are leaves, so setting the flag is safe.
     */
    private static void requireGradients(ai.djl.nn.Block block) {
        for (var e : block.getParameters()) {
            ai.djl.nn.Parameter p = e.getValue();
            if (p.requiresGradient() && p.isInitialized() && !p.getArray().hasGradient()) {
                p.getArray().setRequiresGradient(true);
            }
        }
    }

    /**
     * The penultimate features h(x) — the input of the final dense classifier ({@link #classifier()}) — as a
     * network of its own that shares this one's modules and parameters (closing it frees nothing). Its NTK is the
     * last-layer-features kernel Θ^h of Seleznova et al., Neural (Tangent Kernel) Collapse: gradients of h w.r.t. every
     * parameter before the classifier. Works on spec-built networks and on DJL blocks ({@link #ofBlock}) whose last
     * layer is a {@code Linear} on flat input, also inside nested sequential blocks.
     */
    public Network features() {
        TangentLayer last = classifier();
        if (!(root instanceof Sequential)) {
            throw new UserException("model " + spec.name() + " is a single layer; no penultimate features");
        }
        Module body = withoutLast(root);
        int width = (int) last.weight().value().getShape().get(1);
        ModelSpec fs = spec.toBuilder()
                .name(spec.name() + "-features")
                .outputs(width)
                .outputScale(1.0)
                .build();
        Network v = new Network(fs, body, manager, seed, inputShape, width, dataType);
        v.view = true;
        return v;
    }

    /**
     * The network g(x) = (1/√O) Σ_o f_o(x) of one output, sharing this one's modules and parameters (closing it frees
     * nothing): its NTK is the pseudo-NTK (1/O) J_Σ J_Σᵀ of Mohamadi, Bae &amp; Sutherland ("A Fast, Well-Founded
     * Approximation to the Empirical Neural Tangent Kernel", ICML 2023), computed with one output instead of O.
     */
    public Network summedOutputs() {
        Sequential body = new Sequential(root.name());
        body.add(root);
        body.add(new SummedOutputs("sum", outputs));
        ModelSpec ss = spec.toBuilder().name(spec.name() + "-pntk").outputs(1).build();
        Network v = new Network(ss, body, manager, seed, inputShape, 1, dataType);
        v.view = true;
        return v;
    }

    /**
     * The final dense layer, logits = W h + b: the last module of the (possibly nested) sequential root, an ntk4j
     * {@link Dense} or a DJL {@code Linear} on flat input ({@link DjlLinear}).
     *
     * @throws UserException when the network does not end in one
     */
    public TangentLayer classifier() {
        Module m = root;
        while (m instanceof Sequential s && !s.children().isEmpty()) {
            m = s.children().get(s.children().size() - 1);
        }
        if (m instanceof Dense d) {
            return d;
        }
        if (m instanceof DjlLinear l && l.flatInput()) {
            return l;
        }
        throw new UserException("model " + spec.name() + " does not end in a dense classifier (its last layer is "
                + (m == root ? root.getClass().getSimpleName() : m.name())
                + "); no penultimate features");
    }

    /** A sequential view of {@code m} without its last leaf module (recursing into a trailing sequential). */
    private static Module withoutLast(Module m) {
        Sequential seq = (Sequential) m;
        List<Module> children = seq.children();
        Sequential body = new Sequential(seq.name());
        for (Module c : children.subList(0, children.size() - 1)) {
            body.add(c);
        }
        Module last = children.get(children.size() - 1);
        if (last instanceof Sequential) {
            body.add(withoutLast(last));
        }
        return body;
    }

    /** f(x) for a batch x of shape (N, inputShape...). */
    public NDArray forward(NDArray x, Forward ctx) {
        NDArray y = root.forward(x, ctx);
        return spec.outputScale() == 1.0 ? y : y.mul(ctx.scalar(spec.outputScale(), y));
    }

    public ModelSpec spec() {
        return spec;
    }

    public long seed() {
        return seed;
    }

    public Shape inputShape() {
        return inputShape;
    }

    public int outputs() {
        return outputs;
    }

    public DataType dataType() {
        return dataType;
    }

    public NDManager manager() {
        return manager;
    }

    public Module root() {
        return root;
    }

    /** All parameters (trainable and buffers) in forward order. */
    public List<Param> params() {
        List<Param> out = new ArrayList<>();
        collect(root, out);
        return out;
    }

    /** Trainable parameters in forward order. */
    public List<Param> trainableParams() {
        return params().stream().filter(Param::trainable).toList();
    }

    private static void collect(Module m, List<Param> out) {
        out.addAll(m.ownParams());
        for (Module c : m.children()) {
            collect(c, out);
        }
    }

    /** Modules that own trainable parameters, in forward order: the layers l = 1..L of the papers. */
    public List<Module> parameterLayers() {
        List<Module> out = new ArrayList<>();
        layers(root, out);
        return out;
    }

    private static void layers(Module m, List<Module> out) {
        if (m.ownParams().stream().anyMatch(Param::trainable)) {
            out.add(m);
        }
        for (Module c : m.children()) {
            layers(c, out);
        }
    }

    public long parameterCount() {
        return root.parameterCount();
    }

    /** Re-casts every parameter to {@code type} (e.g. float64 for kernel checks). */
    public void cast(DataType type) {
        for (Param p : params()) {
            p.cast(type);
        }
        dataType = type;
    }

    /** Parameters by name, copied to host float arrays. */
    public Map<String, NDArray> state() {
        Map<String, NDArray> s = new LinkedHashMap<>();
        for (Param p : params()) {
            s.put(p.name(), p.value());
        }
        return s;
    }

    /**
     * Writes every parameter (trainable and buffers, named as in {@link #params()}, in the network's
     * data type) as safetensors, readable by Python's {@code safetensors}, with metadata
     * {@code format = pt} and {@code ntk4j.spec} = the model spec as JSON.
     */
    public void saveSafetensors(Path file) throws IOException {
        Map<String, NDArray> tensors = new LinkedHashMap<>();
        for (Param p : params()) {
            tensors.put(p.name(), p.value());
        }
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put("format", "pt");
        meta.put("ntk4j.spec", Specs.GSON.toJsonTree(spec()).toString());
        org.ntk4j.io.Safetensors.write(tensors, meta, file);
    }

    /**
     * Writes every parameter as NPZ (name → array, named as in {@link #params()}: for a DJL block the qualified names
     * such as {@code 01Linear.weight}, never DJL's bare {@code weight}), atomically.
     */
    public void saveParameters(Path file) throws IOException {
        List<String> names = new ArrayList<>();
        List<NDArray> values = new ArrayList<>();
        for (Param p : params()) {
            names.add(p.name()); // the NPZ entry's name; a DJL block's own array is named e.g. "weight"
            values.add(p.value());
        }
        org.ntk4j.io.Weights.write(file, names, values);
    }

    /**
     * Loads parameters written by {@link #saveParameters} (NPZ), or a {@code .safetensors} file
     * ({@link org.ntk4j.io.Safetensors}); names and shapes must match.
     */
    public void loadParameters(Path file) {
        loadParameters(file, false);
    }

    /**
     * Like {@link #loadParameters(Path)}, from an NPZ that also holds other arrays (a probe's
     * {@code ntk-step*.npz}, the kernel command's NPZ) when {@code others}: arrays that name no
     * parameter of this network are skipped; every parameter must still be there.
     */
    public void loadParameters(Path file, boolean others) {
        NDList list = org.ntk4j.io.Weights.read(file, manager);
        Map<String, NDArray> byName = new LinkedHashMap<>();
        for (NDArray a : list) {
            byName.put(a.getName(), a);
        }
        for (Param p : params()) {
            NDArray a = byName.remove(p.name());
            if (a == null) {
                throw new UserException(file + ": missing parameter '" + p.name() + "' for model " + spec.name());
            }
            if (!a.getShape().equals(p.value().getShape())) {
                throw new UserException(file + ": parameter '" + p.name() + "' has shape " + a.getShape() + ", model "
                        + spec.name() + " expects " + p.value().getShape());
            }
            if (!a.getDataType().isFloating()) {
                throw new UserException(file + ": parameter '" + p.name() + "' is " + a.getDataType()
                        + "; expected float16, float32 or float64");
            }
            long bad = nonFinite(a);
            if (bad > 0) {
                throw new UserException(file + ": parameter '" + p.name() + "' holds " + bad + " non-finite value"
                        + (bad == 1 ? "" : "s") + " (NaN or ±Infinity) of " + a.size());
            }
            p.set(a.toType(dataType, false).duplicate());
            a.close();
        }
        byName.values().forEach(NDArray::close);
        if (!others && !byName.isEmpty()) {
            throw new UserException(file + ": unexpected parameters " + byName.keySet() + " for model " + spec.name());
        }
    }

    /** The number of NaN or ±Infinity values of a floating-point array. */
    private static long nonFinite(NDArray a) {
        try (NDManager m = a.getManager().newSubManager()) {
            NDArray t = a.duplicate();
            t.attach(m);
            NDArray bad = t.isNaN().logicalOr(t.isInfinite());
            return bad.toType(DataType.INT64, false).sum().getLong();
        }
    }

    @Override
    public void close() {
        if (!view) {
            manager.close();
        }
    }
}
