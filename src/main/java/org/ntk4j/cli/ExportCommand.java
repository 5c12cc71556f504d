package org.ntk4j.cli;

import ai.djl.ndarray.NDManager;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.ntk4j.job.WeightsExport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ntk4j export}: a network's weights as safetensors (or NPZ). */
@Command(
        name = "export",
        mixinStandardHelpOptions = true,
        description = {
            "Write a network's weights as safetensors (Python's safetensors / Hugging Face; the model spec in its"
                    + " metadata as ntk4j.spec) or as NPZ, by the --out extension.",
            "Examples: ntk4j export runs/mlp --out mlp.safetensors",
            "          ntk4j export runs/mlp --weights ntk-step000032.npz --out step32.safetensors",
            "          ntk4j export weights.npz --model mlp-relu --out mlp-relu.safetensors"
        })
public final class ExportCommand implements Callable<Integer> {
    @Parameters(
            paramLabel = "RUN|FILE",
            description = "a run folder (its weights.npz and args.json), or a weights file (NPZ or safetensors)"
                    + " with --model")
    Path source;

    @Option(
            names = "--out",
            required = true,
            paramLabel = "FILE",
            description = "the file to write: NAME.safetensors or NAME.npz")
    Path out;

    @Option(
            names = "--weights",
            paramLabel = "NAME",
            description = "in a run folder: the file to export (default weights.npz; e.g. weights-init.npz,"
                    + " ntk-step000032.npz)")
    String weights;

    @Option(
            names = "--model",
            paramLabel = "SPEC|NAME",
            description = "the model spec of a weights file (default for a run folder: the run's own)")
    String model;

    @Mixin
    RuntimeOptions runtime;

    @Override
    public Integer call() {
        runtime.dataDir(); // export reads no data, but a --data-dir given must still name a folder
        try (NDManager m = runtime.manager()) {
            System.out.println(
                    "wrote " + WeightsExport.run(source, weights, model, out, m).toAbsolutePath());
        }
        return 0;
    }
}
