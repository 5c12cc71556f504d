package org.ntk4j.natives;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.ntk4j.UserException;

/**
 * An installed PyTorch to build DJL's JNI binding against: its C++ headers, its libraries, its
 * version, C++ ABI and CUDA version. Found in a Python install ({@code import torch}), a libtorch
 * folder (include/ and lib/), or Debian's libtorch-dev (/usr/include, /usr/lib/&lt;triplet&gt;).
 *
 * @param include the folder holding {@code torch/script.h}
 * @param lib the folder holding libtorch.so
 * @param version x.y.z
 * @param cxx11Abi whether torch was built with {@code _GLIBCXX_USE_CXX11_ABI=1}
 * @param cuda the CUDA version torch was built with (e.g. "13.0"), or null for a CPU build
 * @param systemDir whether {@code lib} is a shared system folder (DJL then gets a folder of links)
 * @param origin where it was found, for messages
 */
public record Torch(
        Path include, Path lib, String version, boolean cxx11Abi, String cuda, boolean systemDir, String origin) {
    static final String[] DEBIAN_LIBS = {
        "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"
    };

    /** DJL's flavor: cpu, or cu + the CUDA version's digits (13.0 → cu130). */
    public String flavor() {
        return cuda == null ? "cpu" : "cu" + cuda.replace(".", "");
    }

    /** Finds torch: {@code spec} is "auto" (python3, then Debian's libtorch-dev) or a folder. */
    public static Torch find(String spec) {
        if (spec == null || spec.equals("auto")) {
            Torch t = fromPython();
            if (t != null) {
                return t;
            }
            for (String d : DEBIAN_LIBS) {
                if (Files.exists(Path.of(d, "libtorch.so"))) {
                    return fromFolders(Path.of("/usr/include"), Path.of(d), true, "Debian's libtorch (" + d + ")");
                }
            }
            throw new UserException("no PyTorch found: install one (pip install torch, or apt-get install libtorch-dev)"
                    + " or pass --torch DIR (a libtorch folder with include/ and lib/)");
        }
        Path dir = Path.of(spec).toAbsolutePath().normalize();
        if (!Files.isDirectory(dir)) {
            throw new UserException("--torch " + spec + " is not a folder");
        }
        if (Files.exists(dir.resolve("lib/libtorch.so"))) {
            return fromFolders(dir.resolve("include"), dir.resolve("lib"), false, dir.toString());
        }
        for (String d : DEBIAN_LIBS) {
            Path lib = dir.resolve(d.substring("/usr/".length()));
            if (dir.getFileName() != null && Files.exists(lib.resolve("libtorch.so"))) {
                return fromFolders(dir.resolve("include"), lib, true, dir.toString());
            }
        }
        throw new UserException(
                "--torch " + spec + " holds no lib/libtorch.so: give a libtorch folder (include/ and lib/)"
                        + " or the torch package folder of a Python install");
    }

    /** torch of python3, or null when there is no python3 or it cannot import torch. */
    static Torch fromPython() {
        String out;
        try {
            Process p = new ProcessBuilder(
                            "python3",
                            "-c",
                            "import torch; print(torch.__path__[0]); print(torch.__version__);"
                                    + " print(int(torch.compiled_with_cxx11_abi())); print(torch.version.cuda)")
                    .redirectErrorStream(false)
                    .start();
            p.getOutputStream().close();
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return null;
            }
        } catch (IOException | InterruptedException e) {
            return null;
        }
        String[] l = out.strip().split("\n");
        if (l.length < 4) {
            return null;
        }
        Path dir = Path.of(l[0].strip());
        String version = l[1].strip().replaceAll("[+].*", "");
        boolean abi = "1".equals(l[2].strip());
        String cuda = "None".equals(l[3].strip()) ? null : l[3].strip();
        Path include = dir.resolve("include");
        requireHeaders(include, "python3's torch " + l[1].strip() + " at " + dir);
        Boolean symAbi = libraryAbi(dir.resolve("lib"));
        if (symAbi != null && symAbi != abi) {
            throw new UserException("C++ ABI mismatch: python3's torch " + l[1].strip()
                    + " reports compiled_with_cxx11_abi=" + abi + " but " + dir.resolve("lib/libc10.so")
                    + " was built with " + (symAbi ? 1 : 0) + "; reinstall torch");
        }
        return new Torch(
                include,
                dir.resolve("lib"),
                version,
                abi,
                cuda,
                false,
                "python3's torch " + l[1].strip() + " (" + dir + ")");
    }

    /** A torch known by its folders: version from the headers, ABI from the CMake config or the library's symbols. */
    static Torch fromFolders(Path include, Path lib, boolean systemDir, String origin) {
        requireHeaders(include, "PyTorch at " + origin);
        String version = headerVersion(include);
        Boolean abi = cmakeAbi(lib);
        Boolean symAbi = libraryAbi(lib);
        if (abi == null) {
            abi = symAbi == null ? Boolean.TRUE : symAbi;
        } else if (symAbi != null && !abi.equals(symAbi)) {
            throw new UserException("C++ ABI mismatch in " + origin + ": its CMake config says _GLIBCXX_USE_CXX11_ABI="
                    + (abi ? 1 : 0) + " but libc10.so was built with " + (symAbi ? 1 : 0) + "; reinstall torch");
        }
        String cuda = null;
        if (Files.exists(lib.resolve("libtorch_cuda.so"))) {
            cuda = cudaVersion(include);
        }
        return new Torch(include, lib, version, abi, cuda, systemDir, origin);
    }

    static void requireHeaders(Path include, String what) {
        if (!Files.exists(include.resolve("torch/script.h"))
                || !Files.isDirectory(include.resolve("torch/csrc/api/include"))) {
            throw new UserException(
                    what + " has no C++ headers (" + include.resolve("torch/script.h") + "): install a torch"
                            + " with headers (the pip wheel, a libtorch zip, or apt-get install libtorch-dev)");
        }
    }

    static String headerVersion(Path include) {
        Path h = include.resolve("torch/csrc/api/include/torch/version.h");
        try {
            String s = Files.readString(h);
            return define(s, "TORCH_VERSION_MAJOR") + "." + define(s, "TORCH_VERSION_MINOR") + "."
                    + define(s, "TORCH_VERSION_PATCH");
        } catch (IOException | IllegalStateException e) {
            throw new UserException("cannot read the PyTorch version from " + h + ": " + e.getMessage());
        }
    }

    private static String define(String s, String name) {
        Matcher m = Pattern.compile("#define\\s+" + name + "\\s+(\\d+)").matcher(s);
        if (!m.find()) {
            throw new IllegalStateException("no " + name);
        }
        return m.group(1);
    }

    /** _GLIBCXX_USE_CXX11_ABI from TorchConfig.cmake beside the libraries (libtorch zips, Debian), or null. */
    static Boolean cmakeAbi(Path lib) {
        for (Path c : new Path[] {
            lib.resolve("cmake/Torch/TorchConfig.cmake"),
            lib.resolveSibling("share/cmake/Torch/TorchConfig.cmake"),
            lib.resolve("../share/cmake/Torch/TorchConfig.cmake")
        }) {
            try {
                if (Files.exists(c)) {
                    Matcher m = Pattern.compile("_GLIBCXX_USE_CXX11_ABI=(\\d)").matcher(Files.readString(c));
                    if (m.find()) {
                        return "1".equals(m.group(1));
                    }
                }
            } catch (IOException e) {
                // fall through to the symbols
            }
        }
        return null;
    }

    /** Whether libc10.so's symbols use the C++11 std::string (St7__cxx11), or null if it cannot be read. */
    static Boolean libraryAbi(Path lib) {
        Path c10 = lib.resolve("libc10.so");
        try {
            byte[] b = Files.readAllBytes(c10.toRealPath());
            byte[] needle = "St7__cxx11".getBytes(StandardCharsets.US_ASCII);
            outer:
            for (int i = 0; i + needle.length <= b.length; i++) {
                for (int j = 0; j < needle.length; j++) {
                    if (b[i + j] != needle[j]) {
                        continue outer;
                    }
                }
                return true;
            }
            return false;
        } catch (IOException | OutOfMemoryError e) {
            return null;
        }
    }

    /** CUDA version a libtorch folder was built for, from its headers (c10/cuda/impl/cuda_cmake_macros.h has none), or "unknown". */
    static String cudaVersion(Path include) {
        Path v = include.resolveSibling("build-version");
        try {
            if (Files.exists(v)) { // libtorch zips: "2.7.1+cu128"
                Matcher m = Pattern.compile("\\+cu(\\d+)(\\d)").matcher(Files.readString(v));
                if (m.find()) {
                    return m.group(1) + "." + m.group(2);
                }
            }
        } catch (IOException e) {
            // unknown
        }
        return System.getenv().getOrDefault("NTK4J_CUDA_VERSION", "12.8");
    }

    /**
     * The CUDA headers that torch's CUDA context header includes when DJL's sources are compiled with
     * {@code -DUSE_CUDA}: the runtime's (with the {@code crt/} folder its headers include, which the
     * CUDA 13 wheel {@code nvidia/cu13} lacks: seen on 2026-11-26 with torch 2.11.0+cu130, where the
     * image's /usr/local/cuda-13.0 held them), cuBLAS's, cuSPARSE's and cuSOLVER's.
     */
    static final List<String> CUDA_HEADERS =
            List.of("cuda_runtime_api.h", "crt/host_defines.h", "cublas_v2.h", "cusparse.h", "cusolverDn.h");

    /** The folder holding cuda_runtime_api.h for a CUDA build, or null if none is found. */
    public Path cudaInclude() {
        for (Path p : cudaIncludeCandidates()) {
            if (Files.exists(p.resolve("cuda_runtime_api.h"))) {
                return p;
            }
        }
        return null;
    }

    /**
     * The include folders a {@code -DUSE_CUDA} build needs, one per header of {@link #CUDA_HEADERS}
     * (and a {@code cccl} folder beside them when there is one). A CUDA toolkit or the merged
     * {@code nvidia/cu13} wheel layout holds them all in one folder; CUDA 12 wheels keep each library's
     * headers in its own {@code site-packages/nvidia/<library>/include}. The wheels beside torch come
     * first (they match the CUDA torch was built with), then CUDA_HOME, CUDA_PATH and /usr/local/cuda.
     *
     * @throws UserException naming the headers that no candidate folder holds
     */
    public List<Path> cudaIncludes() {
        List<Path> candidates = cudaIncludeCandidates();
        for (Path p : candidates) { // one folder with everything: a toolkit, or nvidia/cu13
            if (CUDA_HEADERS.stream().allMatch(h -> Files.exists(p.resolve(h)))) {
                return withCccl(List.of(p));
            }
        }
        List<Path> out = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (String h : CUDA_HEADERS) {
            Path found = candidates.stream()
                    .filter(p -> Files.exists(p.resolve(h)))
                    .findFirst()
                    .orElse(null);
            if (found == null) {
                missing.add(h);
            } else if (!out.contains(found)) {
                out.add(found);
            }
        }
        if (!missing.isEmpty()) {
            throw new UserException("missing CUDA headers: " + origin + " is a CUDA build but "
                    + String.join(", ", missing) + " " + (missing.size() == 1 ? "is" : "are")
                    + " in none of " + candidates
                    + " (pip install the nvidia-cuda-runtime, nvidia-cublas, nvidia-cusparse and nvidia-cusolver"
                    + " wheels of torch's CUDA, set CUDA_HOME to a CUDA toolkit, or pass --cuda off)");
        }
        return withCccl(out);
    }

    private static List<Path> withCccl(List<Path> dirs) {
        List<Path> out = new ArrayList<>(dirs);
        for (Path d : dirs) {
            if (Files.isDirectory(d.resolve("cccl")) && !out.contains(d.resolve("cccl"))) {
                out.add(d.resolve("cccl"));
            }
        }
        return out;
    }

    /** Where CUDA headers may be, in order: the nvidia wheels beside torch, CUDA_HOME, CUDA_PATH, /usr/local/cuda, /usr/include. */
    List<Path> cudaIncludeCandidates() {
        List<Path> c = new ArrayList<>();
        // pip's nvidia-* packages, beside the torch package (site-packages/nvidia/...)
        Path site = include.getParent() == null ? null : include.getParent().getParent();
        if (site != null && Files.isDirectory(site.resolve("nvidia"))) {
            for (String merged : new String[] {"cu13", "cu12"}) {
                c.add(site.resolve("nvidia").resolve(merged).resolve("include"));
            }
            for (String lib : new String[] {"cuda_runtime", "cublas", "cusparse", "cusolver"}) {
                c.add(site.resolve("nvidia").resolve(lib).resolve("include"));
            }
            try (java.util.stream.Stream<Path> s = Files.list(site.resolve("nvidia"))) {
                s.sorted()
                        .map(p -> p.resolve("include"))
                        .filter(p -> !c.contains(p))
                        .forEach(c::add);
            } catch (IOException e) {
                // the fixed names above remain
            }
        }
        for (String env : new String[] {"CUDA_HOME", "CUDA_PATH"}) {
            String h = System.getenv(env);
            if (h != null) {
                c.add(Path.of(h, "include"));
            }
        }
        c.add(Path.of("/usr/local/cuda/include"));
        c.add(Path.of("/usr/local/cuda/targets/x86_64-linux/include"));
        c.add(Path.of("/usr/include"));
        if (site != null) { // triton's copy of the CUDA runtime headers (crt/ included), a last resort
            c.add(site.resolve("triton/backends/nvidia/include"));
        }
        return c.stream().filter(Files::isDirectory).distinct().toList();
    }

    /**
     * The CUDA runtime library (libcudart.so.N) torch's CUDA library links to, as the dynamic loader
     * resolves it ({@code ldd libtorch_cuda.so}, which follows the wheel's rpath into
     * {@code nvidia/cu13/lib} or {@code nvidia/cuda_runtime/lib}), else the first libcudart.so* in
     * torch's lib folder, the nvidia wheels, CUDA_HOME or /usr/local/cuda; null for a CPU build or when
     * none is found. DJL counts GPUs through this library ({@code CudaUtils}, loaded by JNA as "cudart").
     */
    public Path cudaRuntimeLibrary() {
        if (cuda == null) {
            return null;
        }
        String ldd =
                NativeBuild.run(List.of("ldd", lib.resolve("libtorch_cuda.so").toString()), null);
        Path viaLdd = lddLibrary(ldd, "libcudart");
        if (viaLdd != null) {
            return viaLdd;
        }
        List<Path> dirs = new ArrayList<>(List.of(lib));
        Path site = include.getParent() == null ? null : include.getParent().getParent();
        if (site != null) {
            for (String d : new String[] {"nvidia/cu13/lib", "nvidia/cu12/lib", "nvidia/cuda_runtime/lib"}) {
                dirs.add(site.resolve(d));
            }
        }
        String home = System.getenv("CUDA_HOME");
        if (home != null) {
            dirs.add(Path.of(home, "lib64"));
        }
        dirs.add(Path.of("/usr/local/cuda/lib64"));
        for (Path d : dirs) {
            if (!Files.isDirectory(d)) {
                continue;
            }
            try (java.util.stream.Stream<Path> s = Files.list(d)) {
                Path f = s.filter(p -> p.getFileName().toString().startsWith("libcudart")
                                && p.getFileName().toString().contains(".so"))
                        .sorted()
                        .findFirst()
                        .orElse(null);
                if (f != null) {
                    return f;
                }
            } catch (IOException e) {
                // next folder
            }
        }
        return null;
    }

    /** The resolved path of the first library named {@code prefix}* in {@code ldd} output, or null. */
    static Path lddLibrary(String lddOutput, String prefix) {
        if (lddOutput == null) {
            return null;
        }
        Matcher m = Pattern.compile("(?m)^\\s*(" + Pattern.quote(prefix) + "\\S*)\\s+=>\\s+(/\\S+)")
                .matcher(lddOutput);
        return m.find() ? Path.of(m.group(2)) : null;
    }

    /** DJL's PT_VERSION define for these sources: V1_13_X for 1.13 – 2.1 (as DJL's build.sh), none after. */
    public String ptVersionDefine() {
        String[] v = version.split("\\.");
        int major = Integer.parseInt(v[0]);
        int minor = Integer.parseInt(v[1]);
        if (major == 1 && minor < 13) {
            throw new UserException("PyTorch " + version + " (" + origin
                    + ") is older than 1.13, the oldest DJL 0.35's sources build against");
        }
        return major == 1 || (major == 2 && minor <= 1) ? "V1_13_X" : null;
    }

    @Override
    public String toString() {
        return String.format(
                Locale.ROOT,
                "PyTorch %s (%s, CXX11 ABI %d, %s) at %s",
                version,
                flavor(),
                cxx11Abi ? 1 : 0,
                cuda == null ? "no CUDA" : "CUDA " + cuda,
                origin);
    }
}
