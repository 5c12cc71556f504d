package org.ntk4j.natives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;

/**
 * The CUDA side of {@code ntk4j native build}, on the CPU: the include folders of the CUDA 12 wheel
 * layout (one nvidia/&lt;library&gt;/include per library) and of the merged CUDA 13 layout
 * (nvidia/cu13/include), the one-line error naming missing headers, the compile line, the libcudart
 * that {@code ldd} resolves, and DJL's GPU count through the recorded libcudart folder (a stub libcudart
 * compiled here that reports one device, loaded by DJL's own {@code CudaUtils} in a child JVM).
 */
class CudaLayoutTest {
    /** A fake pip install: site-packages/torch/include (torch's headers) and site-packages/nvidia/... */
    static Torch wheel(Path site, Map<String, List<String>> nvidia) throws Exception {
        Path include = site.resolve("torch/include");
        Files.createDirectories(include.resolve("torch/csrc/api/include"));
        for (Map.Entry<String, List<String>> e : nvidia.entrySet()) {
            Path inc = site.resolve("nvidia").resolve(e.getKey()).resolve("include");
            Files.createDirectories(inc);
            for (String h : e.getValue()) {
                Files.createDirectories(inc.resolve(h).getParent());
                Files.writeString(inc.resolve(h), "");
            }
        }
        return new Torch(include, site.resolve("torch/lib"), "2.11.0", true, "13.0", false, "test torch");
    }

    @Test
    void cuda12WheelsGiveOneIncludeFolderPerLibrary(@TempDir Path dir) throws Exception {
        Torch t = wheel(
                dir,
                Map.of(
                        "cuda_runtime", List.of("cuda_runtime_api.h", "crt/host_defines.h"),
                        "cublas", List.of("cublas_v2.h"),
                        "cusparse", List.of("cusparse.h"),
                        "cusolver", List.of("cusolverDn.h"),
                        "nccl", List.of("nccl.h")));
        Path nv = dir.resolve("nvidia");
        assertEquals(
                List.of(
                        nv.resolve("cuda_runtime/include"),
                        nv.resolve("cublas/include"),
                        nv.resolve("cusparse/include"),
                        nv.resolve("cusolver/include")),
                t.cudaIncludes());
        assertEquals(nv.resolve("cuda_runtime/include"), t.cudaInclude());
        List<String> flags = new NativeBuild()
                .compileFlags(
                        t, true, null, dir.resolve("hdr"), dir.resolve("djl"), t.cudaIncludes(), dir.resolve("jdk"));
        assertTrue(flags.contains("-DUSE_CUDA"), flags.toString());
        for (String lib : new String[] {"cuda_runtime", "cublas", "cusparse", "cusolver"}) {
            assertTrue(flags.contains("-I" + nv.resolve(lib).resolve("include")), lib + " missing from " + flags);
        }
        assertTrue(flags.contains("-I" + dir.resolve("jdk/include/linux")), flags.toString());
    }

    @Test
    void theMergedCuda13LayoutIsOneFolderAndItsCccl(@TempDir Path dir) throws Exception {
        Torch t = wheel(
                dir,
                Map.of(
                        "cu13",
                        List.of(
                                "cuda_runtime_api.h",
                                "crt/host_defines.h",
                                "cublas_v2.h",
                                "cusparse.h",
                                "cusolverDn.h"),
                        "cudnn",
                        List.of("cudnn.h")));
        Files.createDirectories(dir.resolve("nvidia/cu13/include/cccl"));
        assertEquals(
                List.of(dir.resolve("nvidia/cu13/include"), dir.resolve("nvidia/cu13/include/cccl")), t.cudaIncludes());
    }

    @Test
    void aCuda13WheelWithoutCrtTakesTheRuntimeHeadersFromElsewhere(@TempDir Path dir) throws Exception {
        // torch 2.11.0+cu130's nvidia/cu13/include has cuda_runtime_api.h but no crt/ (2026-11-26, H200 image)
        Torch t = wheel(
                dir,
                Map.of(
                        "cu13", List.of("cuda_runtime_api.h", "cublas_v2.h", "cusparse.h", "cusolverDn.h"),
                        "cuda_crt", List.of("crt/host_defines.h")));
        List<Path> inc = t.cudaIncludes();
        assertEquals(dir.resolve("nvidia/cu13/include"), inc.get(0), inc.toString());
        assertTrue(inc.contains(dir.resolve("nvidia/cuda_crt/include")), inc.toString());
    }

    @Test
    void missingHeadersAreNamedInOneLine(@TempDir Path dir) throws Exception {
        Torch t = wheel(
                dir,
                Map.of(
                        "cuda_runtime", List.of("cuda_runtime_api.h", "crt/host_defines.h"),
                        "cublas", List.of("cublas_v2.h")));
        Assumptions.assumeTrue(
                !Files.exists(Path.of("/usr/local/cuda/include/cusparse.h"))
                        && !Files.exists(Path.of("/usr/include/cusparse.h"))
                        && System.getenv("CUDA_HOME") == null,
                "a CUDA toolkit on this machine supplies the headers");
        UserException e = assertThrows(UserException.class, t::cudaIncludes);
        assertTrue(
                e.getMessage()
                        .startsWith("missing CUDA headers: test torch is a CUDA build but cusparse.h,"
                                + " cusolverDn.h are in none of"),
                e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void lddOutputNamesTorchsCudaRuntime() {
        String ldd = "\tlinux-vdso.so.1 (0x00007ffd)\n"
                + "\tlibc10_cuda.so => /site/torch/lib/libc10_cuda.so (0x00007f01)\n"
                + "\tlibcudart.so.13 => /site/torch/lib/../../nvidia/cu13/lib/libcudart.so.13 (0x00007f02)\n"
                + "\tlibcublas.so.13 => not found\n";
        assertEquals(
                Path.of("/site/torch/lib/../../nvidia/cu13/lib/libcudart.so.13"), Torch.lddLibrary(ldd, "libcudart"));
        assertNull(Torch.lddLibrary(ldd, "libcudnn"));
        assertNull(Torch.lddLibrary("\tlibcudart.so.12 => not found\n", "libcudart"));
        assertNull(Torch.lddLibrary(null, "libcudart"));
    }

    /**
     * DJL counts GPUs with JNA's {@code Native.load("cudart")}: with the recorded NTK4J_CUDART_DIR it
     * loads the library there (here a stub reporting one device) and counts 1; without, it finds none.
     */
    @Test
    void djlCountsGpusThroughTheRecordedCudaRuntime(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(NativeBuild.run(List.of("gcc", "--version"), null) != null, "no gcc");
        Path src = dir.resolve("cudart.c");
        Files.writeString(
                src,
                "int cudaGetDeviceCount(int* n) { *n = 1; return 0; }\n"
                        + "const char* cudaGetErrorString(int e) { return \"stub\"; }\n"
                        + "int cudaRuntimeGetVersion(int* v) { *v = 13000; return 0; }\n");
        Path stubDir = dir.resolve("nvidia/cu13/lib");
        Files.createDirectories(stubDir);
        Path stub = stubDir.resolve("libcudart.so.13");
        assertEquals(
                0,
                new ProcessBuilder("gcc", "-shared", "-fPIC", "-o", stub.toString(), src.toString())
                        .inheritIO()
                        .start()
                        .waitFor());
        Path linkDir = dir.resolve("cudart-cu130");
        Files.createDirectories(linkDir);
        Files.createSymbolicLink(linkDir.resolve("libcudart.so"), stub);
        Files.createDirectories(dir.resolve("torch-lib"));
        Properties p = new Properties();
        p.setProperty("PYTORCH_LIBRARY_PATH", dir.resolve("torch-lib").toString());
        p.setProperty("PYTORCH_VERSION", "2.11.0");
        p.setProperty("PYTORCH_FLAVOR", "cu130");
        p.setProperty(Natives.CUDART_DIR, linkDir.toString());
        Path with = dir.resolve("with.properties");
        try (var os = Files.newOutputStream(with)) {
            p.store(os, null);
        }
        p.remove(Natives.CUDART_DIR);
        Path without = dir.resolve("without.properties");
        try (var os = Files.newOutputStream(without)) {
            p.store(os, null);
        }
        String a = count(with);
        assertTrue(a.contains("configured=true gpus=1 jna=" + linkDir), a);
        String b = count(without);
        assertTrue(b.contains("configured=true gpus=0"), b);
    }

    /** A child JVM: Natives.configure() from the record, then DJL's CudaUtils.getGpuCount(). */
    static String count(Path record) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dntk4j.native.env=" + record,
                "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                GpuCountProbe.class.getName()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        for (String k : Natives.KEYS) {
            pb.environment().remove(k);
        }
        pb.environment().remove("NTK4J_NATIVE");
        pb.environment().remove("LD_LIBRARY_PATH");
        Process proc = pb.start();
        String text = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, proc.waitFor(), text);
        return text;
    }
}
