package org.ntk4j.natives;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import org.ntk4j.cli.Main;

/**
 * Run in a child JVM by {@link NativeBuildTest}: runs an ntk4j command (whose {@code Main} applies the
 * recorded native build), or with {@code --api} only opens an NDManager as a Java program would (the
 * engine provider applies the record), then prints the engine's libtorch version, libtorch's TF32
 * switches set on and off through {@link TorchFlags}, and the JNI / libtorch files this process really
 * mapped (from /proc/self/maps).
 */
public final class NativeProbe {
    private NativeProbe() {}

    public static void main(String[] args) throws Exception {
        int rc = 0;
        if (args.length > 0 && args[0].equals("--api")) {
            try (NDManager m = NDManager.newBaseManager()) {
                System.out.println("probe sum="
                        + m.ones(new ai.djl.ndarray.types.Shape(3)).sum().getFloat());
            }
        } else {
            rc = Main.commandLine().execute(args);
        }
        System.out.println("probe configured=" + (System.getProperty("PYTORCH_LIBRARY_PATH") != null));
        System.out.println("probe engine=" + Engine.getEngine("PyTorch").getVersion());
        System.out.println("probe tf32=" + TorchFlags.set(true) + "," + TorchFlags.set(false));
        Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .map(l -> l.replaceAll("^\\S+(\\s+\\S+){4}\\s*", ""))
                .filter(l -> l.contains("djl_torch") || l.contains("libtorch_cpu") || l.contains("ntk4j_torch"))
                .distinct()
                .forEach(l -> System.out.println("probe lib=" + l));
        System.exit(rc);
    }
}
