package org.ntk4j.model;

import ai.djl.MalformedModelException;
import ai.djl.Model;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.ntk4j.UserException;

/**
 * ntk4j networks and DJL's {@code .params} files. A {@code .params} file is the serialised state of a
 * DJL {@link Block} tree (each block writes its own metadata, then its parameters, then its
 * children), so reading or writing one needs a block of the same structure: the parameters are
 * matched by position, ntk4j's {@link Network#params()} (forward order, batch-norm running statistics
 * included) against DJL's {@link Block#getParameters()} (each block's own, then its children's),
 * and every shape must agree.
 *
 * <pre>{@code
 * // export: a DJL block of the same architecture (e.g. Linear/ReLU for an mlp spec)
 * try (Model model = Model.newInstance("mlp")) {
 *     model.setBlock(block);
 *     DjlParams.save(net, model, dir);           // dir/mlp-0000.params
 * }
 * // any DJL program: Model.newInstance("mlp").setBlock(block2).load(dir)
 *
 * // import into an ntk4j network built from its spec
 * try (Model model = Model.newInstance("mlp")) {
 *     model.setBlock(block);
 *     DjlParams.load(model, dir, net);
 * }
 * // or measure the DJL model itself: Ntk.of(Network.ofModel(model, new Shape(784))).compute(x)
 * }</pre>
 *
 * <p>The file holds the raw tensors. ntk4j's NTK parameterisation multiplies them by σ_w/√fan_in
 * in its forward pass, which DJL's {@code Linear} does not: a DJL block computes the same function
 * only for {@code "parameterization": "standard"} networks.
 */
public final class DjlParams {
    private DjlParams() {}

    /**
     * Writes {@code net}'s parameters as {@code dir/<model name>-0000.params} through {@code model}'s
     * block (initialised here on the model's manager, in the network's data type, when it is not yet),
     * whose parameter values are replaced by the network's.
     *
     * @return the file written
     */
    public static Path save(Network net, Model model, Path dir) throws IOException {
        Block block = requireBlock(model);
        if (!block.isInitialized()) {
            block.initialize(model.getNDManager(), net.dataType(), new Shape(1).addAll(net.inputShape()));
        }
        copy(net, block, model.getNDManager());
        if (model.getProperty("Epoch") == null) {
            model.setProperty("Epoch", "0");
        }
        model.save(dir, model.getName());
        return dir.resolve(String.format(
                Locale.ROOT, "%s-%04d.params", model.getName(), Integer.parseInt(model.getProperty("Epoch"))));
    }

    /**
     * Loads the {@code .params} file of {@code model}'s name in {@code dir} into {@code model}'s block
     * ({@code model.load(dir)}), then copies its parameters into {@code net} (in the network's data
     * type).
     */
    public static void load(Model model, Path dir, Network net) throws IOException {
        requireBlock(model);
        try {
            model.load(dir, model.getName());
        } catch (MalformedModelException e) {
            throw new UserException(
                    dir + ": cannot load DJL parameters for " + model.getName() + " (" + e.getMessage() + ")");
        }
        copy(model.getBlock(), net);
    }

    /** Copies the values of an initialised DJL block's parameters into {@code net} (by position; shapes must agree). */
    public static void copy(Block block, Network net) {
        List<Parameter> theirs = parameters(block);
        List<Param> mine = net.params();
        check(mine, theirs, net);
        for (int i = 0; i < mine.size(); i++) {
            NDArray a = theirs.get(i).getArray();
            NDArray t = a.getDataType() == net.dataType() ? a : a.toType(net.dataType(), false);
            NDArray c = t.duplicate(); // a real copy, owned by the network's manager
            c.attach(net.manager());
            if (t != a) {
                t.close();
            }
            mine.get(i).set(c);
        }
    }

    /**
     * Replaces the arrays of an initialised DJL block's parameters by copies of {@code net}'s (in the
     * block's data type), created on {@code manager}; the block's old arrays are closed, as
     * {@code Model.load} does. Trainable parameters require gradients afterwards.
     */
    public static void copy(Network net, Block block, NDManager manager) {
        List<Parameter> theirs = parameters(block);
        List<Param> mine = net.params();
        check(mine, theirs, net);
        for (int i = 0; i < mine.size(); i++) {
            Parameter p = theirs.get(i);
            DataType type = p.getArray().getDataType();
            NDArray src = mine.get(i).value();
            NDArray v = src.getDataType() == type ? src : src.toType(type, false);
            replace(p, v, manager);
            if (v != src) {
                v.close();
            }
        }
    }

    /**
     * DJL's {@code Parameter} takes a new array only through {@link Parameter#load}: this feeds it the
     * same record a {@code .params} file holds for it ('P', version 1, name, encoded array).
     */
    private static void replace(Parameter p, NDArray value, NDManager manager) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream dos = new DataOutputStream(bytes)) {
                dos.writeChar('P');
                dos.writeByte(1);
                dos.writeUTF(p.getName());
                dos.write(value.encode());
            }
            p.close();
            p.load(manager, new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        } catch (IOException | MalformedModelException e) {
            throw new IllegalStateException("cannot set DJL parameter " + p.getName(), e);
        }
        if (p.requiresGradient()) {
            p.getArray().setRequiresGradient(true);
        }
    }

    private static List<Parameter> parameters(Block block) {
        if (!block.isInitialized()) {
            throw new UserException("DJL block " + block.getClass().getSimpleName() + " is not initialised");
        }
        List<Parameter> out = new ArrayList<>();
        for (var e : block.getParameters()) {
            out.add(e.getValue());
        }
        return out;
    }

    private static void check(List<Param> mine, List<Parameter> theirs, Network net) {
        if (mine.size() != theirs.size()) {
            throw new UserException(
                    "model " + net.spec().name() + " has " + mine.size() + " parameter arrays, the DJL block "
                            + theirs.size() + "; the block must have the network's architecture");
        }
        for (int i = 0; i < mine.size(); i++) {
            Shape a = mine.get(i).value().getShape();
            Shape b = theirs.get(i).getArray().getShape();
            if (!a.equals(b)) {
                throw new UserException("parameter " + i + ": '" + mine.get(i).name() + "' " + a + " in model "
                        + net.spec().name() + " but '" + theirs.get(i).getName() + "' " + b + " in the DJL block");
            }
        }
    }

    private static Block requireBlock(Model model) {
        if (model.getBlock() == null) {
            throw new UserException(
                    "DJL model " + model.getName() + " has no block; set one of the network's architecture");
        }
        return model.getBlock();
    }
}
