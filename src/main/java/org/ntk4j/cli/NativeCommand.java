package org.ntk4j.cli;

import ai.djl.engine.Engine;
import ai.djl.engine.StandardCapabilities;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.ntk4j.natives.NativeBuild;
import org.ntk4j.natives.Natives;
import org.ntk4j.natives.TorchFlags;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ntk4j native}: build DJL's JNI binding against an installed PyTorch (a CUDA torch for GPUs), and show what is recorded. */
@Command(
        name = "native",
        mixinStandardHelpOptions = true,
        description =
                "Build DJL's PyTorch JNI binding (libdjl_torch.so) against an installed PyTorch and record it for ./ntk4j.",
        subcommands = {NativeCommand.Build.class, NativeCommand.Status.class})
public final class NativeCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        new picocli.CommandLine(this).usage(System.out);
        return 0;
    }

    @Command(
            name = "build",
            mixinStandardHelpOptions = true,
            description = {
                "Compile DJL v" + NativeBuild.DJL_VERSION
                        + "'s JNI sources with g++ against an installed torch (python3's,"
                        + " a libtorch folder, or Debian's libtorch-dev), install the library into DJL's cache and record"
                        + " PYTORCH_LIBRARY_PATH, PYTORCH_VERSION and PYTORCH_FLAVOR in ~/.ntk4j/native.properties, which ./ntk4j then uses.",
                "Example: ntk4j native build --torch auto --djl-source ~/src/djl --jobs 16"
            })
    static final class Build implements Callable<Integer> {
        @Option(
                names = "--torch",
                defaultValue = "auto",
                paramLabel = "auto|DIR",
                description =
                        "auto (python3's torch, then Debian's libtorch-dev) or a libtorch folder (default ${DEFAULT-VALUE})")
        String torch;

        @Option(
                names = "--djl-source",
                paramLabel = "DIR",
                description = "a DJL v" + NativeBuild.DJL_VERSION
                        + " source tree (default: the tag's archive from GitHub, downloaded once)")
        Path djlSource;

        @Option(
                names = "--cuda",
                defaultValue = "auto",
                description =
                        "auto, on or off: compile with -DUSE_CUDA (default ${DEFAULT-VALUE}: when torch has CUDA)")
        String cuda;

        @Option(names = "--jobs", description = "parallel compiler processes (default: all cores)")
        Integer jobs;

        @Option(
                names = "--djl-cache",
                paramLabel = "DIR",
                description = "DJL's engine cache (default ENGINE_CACHE_DIR, DJL_CACHE_DIR or ~/.djl.ai)")
        Path djlCache;

        @Option(
                names = "--env-file",
                paramLabel = "FILE",
                description = "where to record the environment (default ~/.ntk4j/native.properties)")
        Path envFile;

        @Option(
                names = "--work-dir",
                paramLabel = "DIR",
                description = "sources, objects and logs (default ~/.ntk4j/native)")
        Path workDir;

        @Override
        public Integer call() {
            NativeBuild b = new NativeBuild()
                    .torch(torch)
                    .djlSource(djlSource)
                    .cuda(cuda)
                    .engineCache(djlCache)
                    .envFile(envFile);
            if (jobs != null) {
                b.jobs(
                        jobs < 1
                                ? jobs
                                : org.ntk4j.util.MachineBudget.threads(
                                        jobs,
                                        Runtime.getRuntime().availableProcessors(),
                                        "--jobs",
                                        System.err::println));
            }
            // the folders it writes, before the minutes of compiling
            creatable("--djl-cache", djlCache);
            creatable("--work-dir", workDir);
            creatable(
                    "--env-file",
                    envFile == null ? null : envFile.toAbsolutePath().getParent());
            if (workDir != null) {
                b.workDir(workDir);
            }
            NativeBuild.Result r = b.build();
            System.out.println("built " + r.library() + " for " + r.torch());
            r.env().stringPropertyNames().stream()
                    .sorted()
                    .forEach(k -> System.out.println(k + "=" + r.env().getProperty(k)));
            return 0;
        }
    }

    /** Creates a folder an option names, or throws a one-line error naming the option. */
    static void creatable(String option, Path dir) {
        if (dir == null) {
            return;
        }
        try {
            java.nio.file.Files.createDirectories(dir);
        } catch (java.io.IOException | RuntimeException e) {
            throw new org.ntk4j.UserException(option + " " + dir + ": cannot create it ("
                    + (e instanceof java.io.IOException io ? org.ntk4j.files.IoMessages.describe(io) : "invalid path")
                    + ")");
        }
    }

    @Command(
            name = "status",
            mixinStandardHelpOptions = true,
            description = {
                "Print the recorded native build, if any, then load the engine and say what it sees: libtorch's"
                        + " version, whether PyTorch sees a CUDA device, how many GPUs DJL counts (through"
                        + " libcudart), and the TF32 switches.",
                "Exit status 1 when the engine cannot load."
            })
    static final class Status implements Callable<Integer> {
        @Override
        public Integer call() {
            Properties p = Natives.recorded();
            if (p == null) {
                System.out.println("no native build recorded (" + Natives.envFile()
                        + "): the bundled PyTorch CPU natives are used");
            } else {
                System.out.println("recorded in " + Natives.envFile()
                        + ("off".equals(System.getenv("NTK4J_NATIVE")) ? " (ignored: NTK4J_NATIVE=off)" : ""));
                p.stringPropertyNames().stream().sorted().forEach(k -> System.out.println(k + "=" + p.getProperty(k)));
            }
            boolean applied = Natives.configure();
            Engine e;
            try {
                e = Engine.getInstance();
                e.getVersion();
            } catch (RuntimeException | UnsatisfiedLinkError ex) {
                System.out.println("engine: failed to load: " + ex.getClass().getSimpleName() + ": "
                        + String.valueOf(ex.getMessage()).lines().findFirst().orElse(""));
                return 1;
            }
            System.out.println("engine: libtorch " + e.getVersion() + " ("
                    + (applied
                            ? "the recorded build"
                            : System.getProperty("PYTORCH_LIBRARY_PATH", System.getenv("PYTORCH_LIBRARY_PATH")) != null
                                    ? "PYTORCH_LIBRARY_PATH"
                                    : "bundled natives")
                    + ")");
            boolean torchCuda = e.hasCapability(StandardCapabilities.CUDA);
            int djl = e.getGpuCount();
            System.out.println("PyTorch sees a CUDA device: " + (torchCuda ? "yes" : "no"));
            System.out.println("DJL counts GPUs: " + djl + " (libcudart through JNA, jna.library.path="
                    + System.getProperty("jna.library.path") + ")");
            if (torchCuda && djl == 0) {
                System.out.println("note: DJL's count is 0 while PyTorch sees a GPU: --device gpu and auto still use"
                        + " gpu(0); rerun 'ntk4j native build' to record torch's libcudart for DJL");
            }
            int bits = TorchFlags.get();
            System.out.println("TF32 (ntk4j flags library): "
                    + (bits < 0
                            ? "not available (no native build)"
                            : "cuDNN " + ((bits & TorchFlags.CUDNN) != 0 ? "allowed" : "disabled") + ", cuBLAS "
                                    + ((bits & TorchFlags.CUBLAS) != 0 ? "allowed" : "disabled")
                                    + " (libtorch's defaults; commands set them with --tf32, default off)"));
            return 0;
        }
    }
}
