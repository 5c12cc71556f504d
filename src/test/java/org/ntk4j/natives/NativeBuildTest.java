package org.ntk4j.natives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;

/**
 * {@code ntk4j native build} end to end on the CPU: DJL v0.35.0's JNI sources (the offline stand-in
 * under shared/vendor, or -Dntk4j.djl.source) compiled against the installed torch (Debian's
 * libtorch-dev 1.13 in CI), then a child JVM that picks the build up through the recorded environment
 * alone computes a full NTK, which must equal the one computed on the bundled natives (libtorch 2.7.1)
 * to float32 rounding; the child must have mapped the built library. Skipped when there is no g++,
 * no torch with headers or no DJL sources.
 */
@Tag("native")
class NativeBuildTest {
    static Path djlSource() {
        String p = System.getProperty("ntk4j.djl.source", System.getenv("NTK4J_DJL_SOURCE"));
        if (p != null) {
            return Path.of(p);
        }
        Path root = Path.of(System.getProperty("ntk4j.root", "."));
        return root.toAbsolutePath()
                .resolve("../shared/vendor/djl-v" + NativeBuild.DJL_VERSION)
                .normalize();
    }

    @Test
    void buildsAgainstTheInstalledTorchAndDjlRunsOnIt(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(NativeBuild.run(List.of("g++", "--version"), null) != null, "no g++");
        Torch torch;
        try {
            torch = Torch.find("auto");
        } catch (UserException e) {
            Assumptions.abort("no PyTorch with headers: " + e.getMessage());
            return;
        }
        Path src = djlSource();
        if (!NativeBuild.hasSources(src)) { // no offline copy: the tag's archive, as a user's build would get it
            try {
                src = new NativeBuild().workDir(dir.resolve("work")).sources();
            } catch (UserException e) {
                Assumptions.abort("no DJL sources at " + djlSource() + " and no download: " + e.getMessage());
            }
        }
        long t0 = System.nanoTime();
        NativeBuild.Result r = new NativeBuild()
                .djlSource(src)
                .engineCache(dir.resolve("cache"))
                .envFile(dir.resolve("native.properties"))
                .workDir(dir.resolve("work"))
                .cuda("off")
                .build();
        System.out.printf(
                "native build: %s, %d sources compiled and linked in %.1f s on %d cores (%.1f s in all)%n",
                torch,
                r.compiled(),
                r.compileSeconds(),
                Runtime.getRuntime().availableProcessors(),
                (System.nanoTime() - t0) / 1e9);
        assertTrue(Files.size(r.library()) > 100_000);
        assertEquals(
                dir.resolve("cache/pytorch/" + torch.version() + "-cpu-linux-x86_64/0.35.0-libdjl_torch.so"),
                r.library());

        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String noCpuNatives = Arrays.stream(cp.split(File.pathSeparator))
                .filter(s -> !s.contains("pytorch-native-cpu"))
                .collect(Collectors.joining(File.pathSeparator));
        Path built = dir.resolve("built.npz");
        Path bundled = dir.resolve("bundled.npz");
        String a = probe(noCpuNatives, r.envFile(), built);
        String b = probe(cp, dir.resolve("no-such.properties"), bundled);
        assertTrue(a.contains("probe configured=true"), a);
        assertTrue(a.contains("probe engine=" + torch.version()), a);
        assertTrue(a.contains("probe lib=" + r.library()), a);
        // ntk4j's TF32 switches, built beside DJL's binding: set on, libtorch reports cuDNN and cuBLAS TF32
        // allowed (bits 1 | 2); set off, neither
        Path flags = Path.of(r.env().getProperty(Natives.TORCH_FLAGS));
        assertTrue(Files.isRegularFile(flags), flags.toString());
        assertTrue(a.contains("probe tf32=3,0"), a);
        assertTrue(a.contains("probe lib=" + flags), a);
        assertTrue(
                b.contains("probe configured=false") && !b.contains(r.library().toString()), b);
        assertTrue(b.contains("probe tf32=-1,-1"), "no flags library without a native build: " + b);
        // a Java program that only opens an NDManager (no Natives.configure(), no Main) gets the recorded build
        // through ntk4j's engine provider
        String api = probe(noCpuNatives, r.envFile(), null);
        assertTrue(api.contains("probe sum=3.0"), api);
        assertTrue(api.contains("probe engine=" + torch.version()), api);
        assertTrue(api.contains("probe lib=" + r.library()), api);
        try (NDManager m = NDManager.newBaseManager();
                InputStream ia = Files.newInputStream(built);
                InputStream ib = Files.newInputStream(bundled)) {
            NDArray ka = NDList.decode(m, ia).get("ntk");
            NDArray kb = NDList.decode(m, ib).get("ntk");
            assertEquals(kb.getShape(), ka.getShape());
            double rel = ka.sub(kb).abs().max().getFloat() / kb.abs().max().getFloat();
            System.out.println(
                    "native build: full NTK 16x16x10x10, built vs bundled libtorch, max relative difference " + rel);
            assertTrue(rel < 1e-5, "kernels differ: " + rel);
        }
    }

    /**
     * A child JVM running NativeProbe with only the recorded environment file to find the build: an ntk4j
     * kernel written to {@code out}, or with {@code out} null the Java-API probe.
     */
    static String probe(String classpath, Path envFile, Path out) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dntk4j.native.env=" + envFile,
                "-Dai.djl.offline=true",
                "-Dai.djl.pytorch.num_threads=1",
                "-Dai.djl.pytorch.num_interop_threads=1",
                "-Djava.awt.headless=true",
                "-Dntk4j.root=" + System.getProperty("ntk4j.root", "."),
                "-cp",
                classpath,
                NativeProbe.class.getName()));
        if (out == null) {
            cmd.add("--api");
        } else {
            cmd.addAll(List.of(
                    "kernel",
                    "--model",
                    "mlp-quickstart",
                    "--dataset",
                    "mnist-subset",
                    "--n",
                    "16",
                    "--mode",
                    "full",
                    "--out",
                    out.toString()));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        for (String k : Natives.KEYS) {
            env.remove(k);
        }
        env.remove("NTK4J_NATIVE");
        env.remove("NTK4J_NATIVE_ENV");
        Process p = pb.start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), text);
        return text;
    }

    @Test
    void userMistakesAreOneLineErrors(@TempDir Path dir) throws Exception {
        UserException e = assertThrows(UserException.class, () -> new NativeBuild()
                .compiler(dir.resolve("no-g++").toString())
                .build());
        assertTrue(e.getMessage().startsWith("no C++ compiler"), e.getMessage());
        e = assertThrows(
                UserException.class, () -> Torch.find(dir.resolve("missing").toString()));
        assertTrue(e.getMessage().contains("is not a folder"), e.getMessage());
        Files.createDirectories(dir.resolve("t/lib"));
        Files.writeString(dir.resolve("t/lib/libtorch.so"), "");
        e = assertThrows(UserException.class, () -> Torch.find(dir.resolve("t").toString()));
        assertTrue(e.getMessage().contains("has no C++ headers"), e.getMessage());
        Files.createDirectories(dir.resolve("empty"));
        e = assertThrows(
                UserException.class, () -> Torch.find(dir.resolve("empty").toString()));
        assertTrue(e.getMessage().contains("holds no lib/libtorch.so"), e.getMessage());
        e = assertThrows(
                UserException.class,
                () -> new NativeBuild().djlSource(dir.resolve("empty")).sources());
        assertTrue(e.getMessage().contains("is not DJL's source tree"), e.getMessage());
        e = assertThrows(UserException.class, () -> new NativeBuild().cuda("maybe"));
        assertTrue(e.getMessage().startsWith("--cuda must be"), e.getMessage());
        // a torch whose CMake config and libc10 disagree on the C++ ABI
        Path abi = dir.resolve("abi");
        Files.createDirectories(abi.resolve("include/torch/csrc/api/include/torch"));
        Files.writeString(abi.resolve("include/torch/script.h"), "");
        Files.writeString(
                abi.resolve("include/torch/csrc/api/include/torch/version.h"),
                "#define TORCH_VERSION_MAJOR 2\n#define TORCH_VERSION_MINOR 7\n#define TORCH_VERSION_PATCH 1\n");
        Files.createDirectories(abi.resolve("lib"));
        Files.writeString(abi.resolve("lib/libtorch.so"), "");
        Files.writeString(abi.resolve("lib/libc10.so"), "_ZNSt7__cxx1112basic_string");
        Files.createDirectories(abi.resolve("share/cmake/Torch"));
        Files.writeString(
                abi.resolve("share/cmake/Torch/TorchConfig.cmake"),
                "set(TORCH_CXX_FLAGS \"-D_GLIBCXX_USE_CXX11_ABI=0\")");
        e = assertThrows(UserException.class, () -> Torch.find(abi.toString()));
        assertTrue(e.getMessage().startsWith("C++ ABI mismatch"), e.getMessage());
        // a CUDA torch without the CUDA runtime headers
        Files.writeString(
                abi.resolve("share/cmake/Torch/TorchConfig.cmake"),
                "set(TORCH_CXX_FLAGS \"-D_GLIBCXX_USE_CXX11_ABI=1\")");
        Files.writeString(abi.resolve("lib/libtorch_cuda.so"), "");
        Torch t = Torch.find(abi.toString());
        assertEquals("cu128", t.flavor());
        if (t.cudaInclude() == null) {
            e = assertThrows(
                    UserException.class,
                    () -> new NativeBuild().torch(abi.toString()).build());
            assertTrue(e.getMessage().startsWith("missing CUDA headers"), e.getMessage());
        }
    }
}
