package org.ntk4j.natives;

import ai.djl.engine.Engine;
import java.nio.file.Files;
import java.nio.file.Path;
import org.ntk4j.cli.Main;

/**
 * Run in a child JVM by {@link NativeBuildTest}: applies the recorded native build ({@link Natives#configure()}),
 * runs an ntk4j command, then prints the engine's libtorch version and the JNI / libtorch files this
 * process really mapped (from /proc/self/maps).
 */
public final class NativeProbe {
    private NativeProbe() {}

    public static void main(String[] args) throws Exception {
        boolean configured = Natives.configure();
        int rc = Main.commandLine().execute(args);
        System.out.println("probe configured=" + configured);
        System.out.println("probe engine=" + Engine.getEngine("PyTorch").getVersion());
        Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .map(l -> l.replaceAll("^\\S+(\\s+\\S+){4}\\s*", ""))
                .filter(l -> l.contains("djl_torch") || l.contains("libtorch_cpu"))
                .distinct()
                .forEach(l -> System.out.println("probe lib=" + l));
        System.exit(rc);
    }
}
