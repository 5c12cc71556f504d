package org.ntk4j.job;

import ai.djl.ndarray.NDManager;
import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.ntk4j.UserException;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.train.TrainLoop;

/**
 * The first run, offline: a ReLU MLP 784-256-256-10 (models/mlp-quickstart.json) trained on the bundled MNIST subset
 * with SGD (lr 0.05, momentum 0.9, batch 64, cross-entropy, seed 0), with the NTK, neural-collapse and feature-ansatz
 * probes at initialisation and every epoch end, and the numbers {@code ntk4j quickstart} prints ({@link Summary}).
 */
public final class Quickstart {
    private Quickstart() {}

    /** The quickstart's run of {@code epochs} epochs. */
    public static TrainJobConfig config(int epochs) {
        TrainSpec.Builder t = TrainSpec.builder();
        t.optimizer = "sgd";
        t.lr = 0.05;
        t.momentum = 0.9;
        t.batchSize = 64;
        t.epochs = epochs;
        t.loss = "ce";
        t.seed = 0;
        return TrainJobConfig.builder(ModelSpec.resolve("mlp-quickstart"), t.validate("quickstart"), "mnist-subset")
                .probes(ProbeKind.NTK, ProbeKind.NC, ProbeKind.NFA)
                .build();
    }

    /**
     * What the quickstart shows: the run's final metrics, then first and last values of the NTK–target alignment
     * (plain and centred) on the probe set, the NFC of the first dense layer, the NTK's kernel distance from
     * initialisation at the end, and neural collapse NC1 (Papyan's) and NC4.
     */
    public record Summary(
            TrainLoop.Result result,
            double[] alignment,
            double[] centredAlignment,
            double[] nfcDense1,
            double kernelDistance,
            double[] nc1,
            double[] nc4) {}

    /**
     * Runs the quickstart into {@code out}, replacing an earlier quickstart there; any other content is replaced only
     * when {@code force}.
     */
    public static Summary run(Path out, boolean force, int epochs, Path dataDir, Supplier<NDManager> manager) {
        if (RunFolder.hasContent(out) && !force && !isQuickstart(out)) {
            throw new UserException(out + " is not empty and holds no earlier quickstart; use --force to replace it,"
                    + " or another --out");
        }
        TrainJob.Outcome o = TrainRun.start(config(epochs), out, true, null, dataDir, manager, false);
        List<Map<String, Object>> ntk = o.records(ProbeKind.NTK);
        List<Map<String, Object>> nc = o.records(ProbeKind.NC);
        List<Map<String, Object>> nfa = o.records(ProbeKind.NFA);
        return new Summary(
                o.result(),
                firstLast(ntk, "alignment"),
                firstLast(ntk, "centered_alignment"),
                firstLast(nfa, "nfc.dense1"),
                firstLast(ntk, "kernel_distance_from_init")[1],
                firstLast(nc, "nc1_papyan"),
                firstLast(nc, "nc4"));
    }

    private static double[] firstLast(List<Map<String, Object>> records, String key) {
        return new double[] {
            ((Number) records.get(0).get(key)).doubleValue(),
            ((Number) records.get(records.size() - 1).get(key)).doubleValue()
        };
    }

    /** Whether {@code dir} holds an earlier quickstart run (its args.json names mlp-quickstart on mnist-subset). */
    public static boolean isQuickstart(Path dir) {
        Path a = dir.resolve("args.json");
        if (!Files.isRegularFile(a)) {
            return false;
        }
        try {
            JsonObject o =
                    com.google.gson.JsonParser.parseString(Files.readString(a)).getAsJsonObject();
            return "mnist-subset".equals(o.get("dataset").getAsString())
                    && "mlp-quickstart"
                            .equals(o.getAsJsonObject("model").get("name").getAsString())
                    && "ntk,nc,nfa".equals(o.get("probe").getAsString());
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        }
    }
}
