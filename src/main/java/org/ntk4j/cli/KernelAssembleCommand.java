package org.ntk4j.cli;

import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.ntk4j.data.DataPaths;
import org.ntk4j.job.ApproxJob;
import org.ntk4j.shard.ShardAssembler;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ntk4j kernel assemble DIR}: checks a shard store and assembles its shards ({@link ShardAssembler}). */
@Command(
        name = "assemble",
        mixinStandardHelpOptions = true,
        description = {
            "Check the shards of the shard store DIR (every shard of its plan present, of this plan, its files"
                    + " matching their SHA-256) and assemble them into the layout of 'ntk4j kernel': entries ntk,"
                    + " ntk.<layer>, ntk_test... (Θ(X1, X1) whole: its blocks below the diagonal are the transposes of"
                    + " the shards above). Writes DIR/manifest.json: the plan, every shard's checksums, the output's.",
            "A store of Nyström blocks (planned with --approx nystrom:M) is assembled into the features NPZ and"
                    + " sidecar of 'ntk4j kernel --approx nystrom:M': features, features_test, landmarks, y1, y2 (labels"
                    + " read from the dataset in --data-dir) and the held-out error; 'ntk4j regress --kernel' reads it.",
            "Example: ntk4j kernel assemble shards/ --format npy"
        })
public final class KernelAssembleCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DIR", description = "the shard store (the --out DIR of the shards)")
    Path dir;

    @Option(
            names = "--format",
            defaultValue = "npz",
            description = "npz (one zip, DIR/kernel.npz), npy (a directory of .npy files, DIR/kernel) or store"
                    + " (check only and write the manifest: the shards stay, for lazy reading) (default"
                    + " ${DEFAULT-VALUE})")
    String format;

    @Option(
            names = "--out",
            paramLabel = "PATH",
            description = "the assembled kernel (default: DIR/kernel.npz, or DIR/kernel with --format npy)")
    Path out;

    @Option(
            names = "--keep-shards",
            description =
                    "keep the shards after assembling (default: removed once the kernel and manifest are written)")
    boolean keepShards;

    @Option(names = "--force", description = "replace an existing assembled kernel")
    boolean force;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description = "data directory, for a Nyström store's labels (default: -Dntk4j.data, $NTK4J_DATA,"
                    + " ~/.ntk4j/data)")
    Path dataDir;

    @Override
    public Integer call() {
        ShardAssembler.Layout layout = ShardAssembler.Layout.parse(format);
        ShardAssembler.Result r = ShardAssembler.assemble(
                dir,
                layout,
                out,
                keepShards,
                force,
                ApproxJob.shardWriter(DataPaths.existingDataDir(dataDir, "--data-dir"), System.out::println));
        System.out.println(String.format(
                Locale.ROOT,
                "%d shards checked%s in %.2fs; manifest %s",
                r.shards(),
                r.output() == null ? "" : ", assembled -> " + r.output(),
                r.seconds(),
                r.manifest()));
        return 0;
    }
}
