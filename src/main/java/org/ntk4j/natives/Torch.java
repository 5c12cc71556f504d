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

    /** The folder holding cuda_runtime_api.h for a CUDA build, or null if none is found. */
    public Path cudaInclude() {
        List<Path> c = new ArrayList<>();
        for (String env : new String[] {"CUDA_HOME", "CUDA_PATH"}) {
            String h = System.getenv(env);
            if (h != null) {
                c.add(Path.of(h, "include"));
            }
        }
        c.add(Path.of("/usr/local/cuda/include"));
        c.add(Path.of("/usr/include"));
        // pip's nvidia-cuda-runtime packages, beside the torch package (site-packages/nvidia/...)
        Path site = include.getParent() == null ? null : include.getParent().getParent();
        if (site != null) {
            for (String s :
                    new String[] {"nvidia/cuda_runtime/include", "nvidia/cu13/include", "nvidia/cu12/include"}) {
                c.add(site.resolve(s));
            }
        }
        for (Path p : c) {
            if (Files.exists(p.resolve("cuda_runtime_api.h"))) {
                return p;
            }
        }
        return null;
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
