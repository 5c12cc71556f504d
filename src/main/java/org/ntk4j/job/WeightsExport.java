package org.ntk4j.job;

import ai.djl.ndarray.NDManager;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.ntk4j.UserException;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;

/**
 * A network's weights in another format ({@code ntk4j export}): the weights of a run folder ({@code weights.npz}, or
 * any NPZ it keeps: {@code weights-init.npz}, a probe's {@code ntk-step<k>.npz}) or of a weights file with its model
 * spec, written as safetensors (with the model spec in its metadata, {@link Network#saveSafetensors}) or as NPZ, by
 * the output's extension. Every parameter is checked against the spec (names and shapes) on the way.
 */
public final class WeightsExport {
    private WeightsExport() {}

    /**
     * @param source a run folder, or a weights file (NPZ or safetensors) when {@code model} is given
     * @param weights in a run folder, the file to export (default {@code weights.npz}); null for the default
     * @param model a model spec file or name for a weights file; null for a run folder (its args.json or model.json)
     * @param out the file to write: {@code .safetensors} or {@code .npz}
     * @return the file written
     */
    public static Path run(Path source, String weights, String model, Path out, NDManager manager) {
        String name = out.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        boolean safetensors = name.endsWith(".safetensors");
        if (!safetensors && !name.endsWith(".npz")) {
            throw new UserException("--out " + out + ": expected a .safetensors or .npz file name");
        }
        Path file;
        ModelSpec spec;
        if (Files.isDirectory(source)) {
            file = source.resolve(weights == null ? "weights.npz" : weights);
            spec = model != null ? ModelSpec.resolve(model) : runSpec(source);
        } else {
            if (model == null) {
                throw new UserException(source + " is a weights file: give its model spec with --model SPEC|NAME");
            }
            if (weights != null) {
                throw new UserException("--weights names a file inside a run folder; " + source + " is a file");
            }
            file = source;
            spec = ModelSpec.resolve(model);
        }
        if (!Files.isRegularFile(file)) {
            throw new UserException(file + ": no such weights file");
        }
        try (NDManager m = manager.newSubManager();
                Network net = Network.build(spec, 0, m)) {
            net.loadParameters(file, true); // a probe's NPZ also holds kernels: only the parameters are taken
            if (safetensors) {
                net.saveSafetensors(out);
            } else {
                net.saveParameters(out);
            }
        } catch (IOException e) {
            throw new UserException(out + ": cannot write (" + e.getMessage() + ")");
        }
        return out;
    }

    /** The model spec a run folder was trained with. */
    static ModelSpec runSpec(Path run) {
        if (Files.isRegularFile(run.resolve("args.json"))) {
            return TrainJob.load(run).model();
        }
        Path m = run.resolve("model.json");
        if (Files.isRegularFile(m)) {
            return ModelSpec.resolve(m.toString());
        }
        throw new UserException(run + ": not a run folder (no args.json or model.json); give --model SPEC|NAME");
    }
}
