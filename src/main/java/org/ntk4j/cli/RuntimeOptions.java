package org.ntk4j.cli;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import java.nio.file.Path;
import org.ntk4j.data.DataPaths;
import org.ntk4j.util.Devices;
import picocli.CommandLine.Option;

/** Options every compute command shares: device, threads, data directory. */
public final class RuntimeOptions {
    @Option(names = "--device", paramLabel = "auto|cpu|gpu", defaultValue = "auto",
            description = "where to compute (default: ${DEFAULT-VALUE}: the GPU when PyTorch sees one)")
    String device;

    @Option(names = "--threads", paramLabel = "N", description = "PyTorch intra-op threads (default: the launcher's, all cores)")
    Integer threads;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "data directory (default: -Dntk4j.data, $NTK4J_DATA, ~/.ntk4j/data)")
    Path dataDir;

    /** Applies the thread count, then opens a manager on the chosen device. */
    NDManager manager() {
        Devices.threads(threads);
        Device d = Devices.select(device);
        return NDManager.newBaseManager(d);
    }

    Path dataDir() {
        return DataPaths.dataDir(dataDir);
    }
}
