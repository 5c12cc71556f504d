package org.ntk4j.natives;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.ntk4j.UserException;
import org.ntk4j.files.TempFiles;

/**
 * Builds DJL's JNI binding ({@code libdjl_torch.so}) against an installed PyTorch, the way DJL's own
 * build.sh does but with g++ alone: the sources of DJL's release tag (downloaded, or a folder), the
 * JNI header from {@code javac -h} on {@code PyTorchLibrary.java}, every {@code .cc} compiled with
 * {@code -std=c++17 -fPIC}, torch's C++ ABI, {@code -DUSE_CUDA} for a CUDA torch and DJL's PT_VERSION
 * define, linked to libtorch, libtorch_cpu, libc10 (and libtorch_cuda, libc10_cuda). The library is
 * installed where DJL 0.35's {@code LibUtils.findJniLibrary} looks first —
 * {@code <engine cache>/pytorch/<version>-<flavor>-<classifier>/<djl version>-libdjl_torch.so} — and
 * the environment that selects it is recorded for {@link Natives}.
 */
public final class NativeBuild {
    /** DJL release whose sources match the pytorch-engine jar on the classpath. */
    public static final String DJL_VERSION = "0.35.0";

    static final String ARCHIVE =
            "https://github.com/deepjavalibrary/djl/archive/refs/tags/v" + DJL_VERSION + ".tar.gz";
    static final String NATIVE_SRC = "engines/pytorch/pytorch-native/src/main/native";
    static final String UTILS_H = "api/src/main/native/djl/utils.h";
    static final String LIBRARY_JAVA =
            "engines/pytorch/pytorch-engine/src/main/java/ai/djl/pytorch/jni/PyTorchLibrary.java";

    private String torchSpec = "auto";
    private Path djlSource;
    private String cuda = "auto";
    private String cxx = System.getenv().getOrDefault("CXX", "g++");
    private int jobs = Math.max(1, Runtime.getRuntime().availableProcessors());
    private Path engineCache;
    private Path envFile;
    private Path workDir = Path.of(System.getProperty("user.home"), ".ntk4j", "native");
    private Consumer<String> log = s -> System.err.println("ntk4j: " + s);

    /** What a build produced. */
    public record Result(
            Torch torch,
            Path library,
            Path libraryPath,
            Path envFile,
            Properties env,
            double compileSeconds,
            int compiled) {}

    public NativeBuild torch(String spec) {
        this.torchSpec = spec;
        return this;
    }

    public NativeBuild djlSource(Path dir) {
        this.djlSource = dir;
        return this;
    }

    public NativeBuild cuda(String mode) {
        if (!List.of("auto", "on", "off").contains(mode)) {
            throw new UserException("--cuda must be auto, on or off (got " + mode + ")");
        }
        this.cuda = mode;
        return this;
    }

    /** The C++ compiler (default $CXX, else g++). */
    public NativeBuild compiler(String c) {
        this.cxx = c;
        return this;
    }

    public NativeBuild jobs(int n) {
        if (n < 1) {
            throw new UserException("--jobs must be >= 1 (got " + n + ")");
        }
        this.jobs = n;
        return this;
    }

    /** DJL's engine cache root (default: DJL's own, ENGINE_CACHE_DIR / DJL_CACHE_DIR / ~/.djl.ai). */
    public NativeBuild engineCache(Path dir) {
        this.engineCache = dir;
        return this;
    }

    public NativeBuild envFile(Path f) {
        this.envFile = f;
        return this;
    }

    /** Where sources, objects and the link folder live (default ~/.ntk4j/native). */
    public NativeBuild workDir(Path dir) {
        this.workDir = dir;
        return this;
    }

    public NativeBuild log(Consumer<String> l) {
        this.log = l;
        return this;
    }

    public Result build() {
        String cxxVersion = run(List.of(cxx, "--version"), null);
        if (cxxVersion == null) {
            throw new UserException("no C++ compiler: " + cxx + " is not installed (apt-get install g++, or set CXX)");
        }
        Torch t = Torch.find(torchSpec);
        log.accept("torch: " + t);
        boolean useCuda =
                switch (cuda) {
                    case "on" -> {
                        if (t.cuda() == null) {
                            throw new UserException("--cuda on, but " + t.origin() + " is a CPU build of PyTorch");
                        }
                        yield true;
                    }
                    case "off" -> false;
                    default -> t.cuda() != null;
                };
        List<Path> cudaIncludes = useCuda ? t.cudaIncludes() : List.of();
        if (useCuda) {
            log.accept("CUDA headers: " + cudaIncludes);
        }
        String ptDefine = t.ptVersionDefine();
        Path src = sources();
        try {
            Files.createDirectories(workDir);
            String flavor = useCuda ? t.flavor() : "cpu";
            Path build = workDir.resolve("build-" + t.version() + "-" + flavor);
            Path include = build.resolve("include");
            Path obj = build.resolve("obj");
            Files.createDirectories(obj);
            jniHeader(src, include, build.resolve("classes"));
            Path java = Path.of(System.getProperty("java.home"));
            if (!Files.exists(java.resolve("include/jni.h"))) {
                throw new UserException("no jni.h under " + java + "/include: run ntk4j with a JDK, not a JRE");
            }
            List<String> flags = compileFlags(t, useCuda, ptDefine, include, src, cudaIncludes, java);
            List<Path> ccs;
            try (Stream<Path> s = Files.list(src.resolve(NATIVE_SRC))) {
                ccs = s.filter(p -> p.toString().endsWith(".cc")).sorted().toList();
            }
            String stamp = String.join(" ", flags) + "\n" + src;
            Path stampFile = build.resolve("flags.txt");
            boolean sameFlags =
                    Files.exists(stampFile) && Files.readString(stampFile).equals(stamp);
            Files.writeString(stampFile, stamp);
            long t0 = System.nanoTime();
            int compiled = compile(ccs, obj, flags, sameFlags);
            double secs = (System.nanoTime() - t0) / 1e9;
            Path so = build.resolve("libdjl_torch.so");
            List<String> link = new ArrayList<>(List.of(cxx, "-shared", "-o", so.toString()));
            for (Path cc : ccs) {
                link.add(obj.resolve(objName(cc)).toString());
            }
            link.addAll(List.of("-L" + t.lib(), "-Wl,-rpath," + t.lib(), "-ltorch", "-ltorch_cpu", "-lc10"));
            if (useCuda) {
                link.addAll(List.of("-ltorch_cuda", "-lc10_cuda"));
            }
            exec(link, build.resolve("link.log"), "linking libdjl_torch.so");
            Path flagsSo;
            try {
                flagsSo = torchFlagsLibrary(t, flags, build);
            } catch (UserException e) { // DJL's binding is built: the TF32 switches are an extra
                log.accept("warning: ntk4j's TF32 library was not built (" + e.getMessage()
                        + "); --tf32 will leave libtorch's default");
                flagsSo = null;
            }
            secs = (System.nanoTime() - t0) / 1e9;
            log.accept(String.format(
                    Locale.ROOT,
                    "compiled %d of %d sources and linked in %.1f s (%d jobs)",
                    compiled,
                    ccs.size(),
                    secs,
                    jobs));
            Path libPath = t.systemDir() ? linkFolder(t, useCuda) : t.lib();
            Path cacheRoot = engineCache != null ? engineCache : defaultEngineCache();
            Path dest = cacheRoot
                    .resolve("pytorch")
                    .resolve(t.version() + "-" + flavor + "-" + classifier())
                    .resolve(DJL_VERSION + "-libdjl_torch.so");
            Files.createDirectories(dest.getParent());
            Path tmp = TempFiles.file(dest);
            try {
                Files.copy(so, tmp, StandardCopyOption.REPLACE_EXISTING);
                Files.move(tmp, dest, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                TempFiles.delete(tmp);
            }
            log.accept("installed " + dest);
            Path flagsDest = dest.resolveSibling("ntk4j-" + DJL_VERSION + "-libntk4j_torch.so");
            if (flagsSo != null) {
                Path ftmp = Files.createTempFile(dest.getParent(), ".libntk4j_torch", ".tmp");
                Files.copy(flagsSo, ftmp, StandardCopyOption.REPLACE_EXISTING);
                Files.move(ftmp, flagsDest, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } else {
                Files.deleteIfExists(flagsDest);
            }
            Properties env = new Properties();
            env.setProperty("PYTORCH_LIBRARY_PATH", libPath.toString());
            env.setProperty("PYTORCH_VERSION", t.version());
            env.setProperty("PYTORCH_FLAVOR", flavor);
            env.setProperty("ENGINE_CACHE_DIR", cacheRoot.toString());
            if (flagsSo != null) {
                env.setProperty(Natives.TORCH_FLAGS, flagsDest.toString());
            }
            if (useCuda) {
                Path cudart = t.cudaRuntimeLibrary();
                if (cudart == null) {
                    log.accept("warning: no libcudart found for " + t.origin() + "; DJL will count no GPU, though"
                            + " --device gpu still runs when PyTorch sees one");
                } else {
                    Path dir = cudartFolder(cudart, flavor);
                    env.setProperty(Natives.CUDART_DIR, dir.toString());
                    log.accept("DJL counts GPUs through " + cudart + " (linked from " + dir + ")");
                }
            }
            Path ef = envFile != null ? envFile : Natives.envFile();
            Files.createDirectories(ef.toAbsolutePath().getParent());
            Path etmp = TempFiles.file(ef);
            try {
                try (OutputStream os = Files.newOutputStream(etmp)) {
                    env.store(os, "ntk4j native build: " + t + "; library " + dest);
                }
                Files.move(etmp, ef, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                TempFiles.delete(etmp);
            }
            log.accept("recorded " + ef
                    + " (the ./ntk4j launcher and Natives.configure() use it; NTK4J_NATIVE=off ignores it)");
            return new Result(t, dest, libPath, ef, env, secs, compiled);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The g++ command line that compiles one of DJL's sources (file and output appended by the caller). */
    List<String> compileFlags(
            Torch t, boolean useCuda, String ptDefine, Path include, Path src, List<Path> cudaIncludes, Path java) {
        List<String> flags = new ArrayList<>(List.of(
                cxx, "-c", "-O2", "-fPIC", "-std=c++17", "-w", "-D_GLIBCXX_USE_CXX11_ABI=" + (t.cxx11Abi() ? 1 : 0)));
        if (ptDefine != null) {
            flags.add("-D" + ptDefine);
        }
        if (useCuda) {
            flags.add("-DUSE_CUDA");
        }
        List<Path> incs = new ArrayList<>(List.of(
                include,
                src.resolve("api/src/main/native"),
                t.include(),
                t.include().resolve("torch/csrc/api/include")));
        incs.addAll(cudaIncludes);
        incs.add(java.resolve("include"));
        incs.add(java.resolve("include/linux"));
        for (Path inc : incs) {
            if (inc != null && !inc.toString().equals("/usr/include")) {
                flags.add("-I" + inc);
            }
        }
        return flags;
    }

    /**
     * Compiles and links ntk4j's own small JNI library ({@link TorchFlags}: libtorch's TF32 switches)
     * with the same flags as DJL's sources.
     */
    private Path torchFlagsLibrary(Torch t, List<String> flags, Path build) throws IOException {
        Path cc = build.resolve("ntk4j_torch_flags.cc");
        try (InputStream in = NativeBuild.class.getResourceAsStream("ntk4j_torch_flags.cc")) {
            if (in == null) {
                throw new IllegalStateException("resource ntk4j_torch_flags.cc is missing from the classpath");
            }
            Files.copy(in, cc, StandardCopyOption.REPLACE_EXISTING);
        }
        Path o = build.resolve("ntk4j_torch_flags.o");
        List<String> cmd = new ArrayList<>(flags);
        cmd.addAll(List.of(cc.toString(), "-o", o.toString()));
        exec(cmd, build.resolve("ntk4j_torch_flags.log"), "compiling ntk4j_torch_flags.cc");
        Path so = build.resolve("libntk4j_torch.so");
        List<String> link = new ArrayList<>(List.of(
                cxx, "-shared", "-o", so.toString(), o.toString(), "-L" + t.lib(), "-Wl,-rpath," + t.lib(), "-lc10"));
        link.add(t.lib().resolve("libtorch_cpu.so").toFile().exists() ? "-ltorch_cpu" : "-ltorch");
        exec(link, build.resolve("ntk4j_torch_flags.link.log"), "linking libntk4j_torch.so");
        return so;
    }

    /**
     * A folder holding one link, {@code libcudart.so}, to torch's CUDA runtime: JNA's lookup of
     * "cudart" (DJL's {@code CudaUtils}) finds an unversioned name there whatever the wheel calls it.
     */
    private Path cudartFolder(Path cudart, String flavor) throws IOException {
        Path dir = workDir.resolve("cudart-" + flavor);
        Files.createDirectories(dir);
        Path link = dir.resolve("libcudart.so");
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, cudart.toAbsolutePath());
        return dir;
    }

    static String objName(Path cc) {
        String n = cc.getFileName().toString();
        return n.substring(0, n.length() - 3) + ".o";
    }

    private int compile(List<Path> ccs, Path obj, List<String> flags, boolean sameFlags) throws IOException {
        ExecutorService pool = Executors.newFixedThreadPool(jobs);
        try {
            List<Future<Boolean>> fs = new ArrayList<>();
            for (Path cc : ccs) {
                Path o = obj.resolve(objName(cc));
                if (sameFlags
                        && Files.exists(o)
                        && Files.getLastModifiedTime(o).compareTo(Files.getLastModifiedTime(cc)) > 0) {
                    continue;
                }
                fs.add(pool.submit(() -> {
                    List<String> cmd = new ArrayList<>(flags);
                    cmd.addAll(List.of(cc.toString(), "-o", o.toString()));
                    Files.deleteIfExists(o);
                    exec(cmd, obj.resolve(objName(cc) + ".log"), "compiling " + cc.getFileName());
                    return true;
                }));
            }
            for (Future<Boolean> f : fs) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    if (e.getCause() instanceof RuntimeException re) {
                        throw re;
                    }
                    throw new IllegalStateException(e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            return fs.size();
        } finally {
            pool.shutdownNow();
        }
    }

    /** Runs a build step; on failure a one-line error naming the step, its first compiler error and the log. */
    static void exec(List<String> cmd, Path logFile, String what) throws IOException {
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile())
                .start();
        int rc;
        try {
            rc = p.waitFor();
        } catch (InterruptedException e) {
            p.destroy();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + what);
        }
        if (rc != 0) {
            String first = Files.readAllLines(logFile).stream()
                    .filter(l -> l.contains("error"))
                    .findFirst()
                    .orElse("exit status " + rc);
            if (first.contains("undefined reference") && first.contains("cxx11")) {
                throw new UserException(
                        "C++ ABI mismatch while " + what + ": " + first.strip() + " (full log: " + logFile + ")");
            }
            if (first.contains("cuda") && first.contains("No such file")) {
                throw new UserException(
                        "missing CUDA headers while " + what + ": " + first.strip() + " (full log: " + logFile + ")");
            }
            throw new UserException(what + " failed: " + first.strip() + " (full log: " + logFile + ")");
        }
    }

    /** Output of a command, or null if it cannot run or fails. */
    static String run(List<String> cmd, Path dir) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.waitFor() == 0 ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** DJL's sources: the folder given, the copy unpacked by an earlier build, or the tag's archive downloaded now. */
    Path sources() {
        if (djlSource != null) {
            Path d = djlSource.toAbsolutePath().normalize();
            requireSources(d, "--djl-source " + djlSource);
            return d;
        }
        Path d = workDir.resolve("djl-v" + DJL_VERSION);
        if (hasSources(d)) {
            return d;
        }
        log.accept("downloading DJL v" + DJL_VERSION + "'s sources from " + ARCHIVE);
        try {
            Files.createDirectories(workDir);
            Path tgz = TempFiles.file(workDir.resolve("djl-v" + DJL_VERSION + ".tar.gz"));
            Path tmp = null;
            try {
                HttpClient client = HttpClient.newBuilder()
                        .followRedirects(HttpClient.Redirect.NORMAL)
                        .connectTimeout(Duration.ofSeconds(20))
                        .build();
                HttpResponse<InputStream> r = client.send(
                        HttpRequest.newBuilder(URI.create(ARCHIVE)).build(), HttpResponse.BodyHandlers.ofInputStream());
                if (r.statusCode() != 200) {
                    throw new IOException("HTTP " + r.statusCode());
                }
                try (InputStream is = r.body()) {
                    Files.copy(is, tgz, StandardCopyOption.REPLACE_EXISTING);
                }
                tmp = TempFiles.directory(d);
                String top = "djl-" + DJL_VERSION + "/";
                if (run(
                                List.of(
                                        "tar",
                                        "-xzf",
                                        tgz.toString(),
                                        "-C",
                                        tmp.toString(),
                                        "--strip-components=1",
                                        top + "engines/pytorch/pytorch-native",
                                        top + "api/src/main/native",
                                        top + LIBRARY_JAVA,
                                        top + "LICENSE"),
                                null)
                        == null) {
                    throw new IOException("tar could not unpack " + ARCHIVE);
                }
                requireSources(tmp, ARCHIVE);
                Files.move(tmp, d, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                TempFiles.delete(tgz);
                if (tmp != null) {
                    TempFiles.delete(tmp);
                }
            }
        } catch (IOException e) {
            throw new UserException("cannot download DJL's sources (" + ARCHIVE + "): " + e.getMessage()
                    + "; offline, pass --djl-source DIR (a checkout of DJL v" + DJL_VERSION + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UserException("interrupted while downloading " + ARCHIVE);
        }
        return d;
    }

    static boolean hasSources(Path d) {
        return Files.isDirectory(d.resolve(NATIVE_SRC))
                && Files.exists(d.resolve(UTILS_H))
                && Files.exists(d.resolve(LIBRARY_JAVA));
    }

    static void requireSources(Path d, String what) {
        if (!hasSources(d)) {
            throw new UserException(what + " is not DJL's source tree: it needs " + NATIVE_SRC + "/, " + UTILS_H
                    + " and " + LIBRARY_JAVA);
        }
    }

    /** {@code javac -h} on PyTorchLibrary.java, against the DJL jars this JVM runs with. */
    void jniHeader(Path src, Path include, Path classes) throws IOException {
        Files.createDirectories(include);
        Files.createDirectories(classes);
        String cp = jarOf("ai.djl.engine.Engine") + java.io.File.pathSeparator + jarOf("ai.djl.pytorch.jni.JniUtils");
        List<String> args = List.of(
                "-h",
                include.toString(),
                "-d",
                classes.toString(),
                "-cp",
                cp,
                "-nowarn",
                src.resolve(LIBRARY_JAVA).toString());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc;
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        if (javac != null) {
            rc = javac.run(null, err, err, args.toArray(new String[0]));
        } else {
            List<String> cmd = new ArrayList<>(List.of("javac"));
            cmd.addAll(args);
            rc = run(cmd, null) == null ? 1 : 0;
        }
        if (rc != 0 || !Files.exists(include.resolve("ai_djl_pytorch_jni_PyTorchLibrary.h"))) {
            throw new UserException("javac -h on " + src.resolve(LIBRARY_JAVA) + " failed (a JDK is needed): "
                    + err.toString(StandardCharsets.UTF_8).lines().findFirst().orElse(""));
        }
    }

    static String jarOf(String cls) {
        try {
            Class<?> c = Class.forName(cls, false, NativeBuild.class.getClassLoader());
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI())
                    .toString();
        } catch (ReflectiveOperationException | java.net.URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("cannot locate the jar of " + cls + " on the classpath", e);
        }
    }

    /** A folder of links to torch's libraries only: DJL loads every file in PYTORCH_LIBRARY_PATH, fine for torch's lib/, not for /usr/lib. */
    Path linkFolder(Torch t, boolean useCuda) throws IOException {
        Path dir = workDir.resolve("torch-lib-" + t.version() + "-" + (useCuda ? t.flavor() : "cpu"));
        Files.createDirectories(dir);
        List<String> libs = new ArrayList<>(List.of("libc10.so", "libtorch_cpu.so", "libtorch.so"));
        if (useCuda) {
            libs.addAll(List.of("libc10_cuda.so", "libtorch_cuda.so"));
        }
        for (String l : libs) {
            Path target = t.lib().resolve(l);
            Path link = dir.resolve(l);
            Files.deleteIfExists(link);
            Files.createSymbolicLink(link, target);
        }
        return dir;
    }

    static Path defaultEngineCache() {
        for (String k : new String[] {"ENGINE_CACHE_DIR", "DJL_CACHE_DIR"}) {
            String v = System.getProperty(k, System.getenv(k));
            if (v != null && !v.isEmpty()) {
                return Path.of(v);
            }
        }
        return Path.of(System.getProperty("user.home"), ".djl.ai");
    }

    /** DJL's platform classifier: linux-x86_64, linux-aarch64. */
    static String classifier() {
        String arch = System.getProperty("os.arch");
        arch = arch.equals("amd64") ? "x86_64" : arch;
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux")) {
            throw new UserException(
                    "ntk4j native build supports Linux only (this is " + System.getProperty("os.name") + ")");
        }
        return "linux-" + arch;
    }
}
