package org.ntk4j.natives;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

/**
 * The environment of a built JNI binding ({@code ntk4j native build}): a properties file with
 * PYTORCH_LIBRARY_PATH, PYTORCH_VERSION, PYTORCH_FLAVOR and ENGINE_CACHE_DIR (DJL 0.35 reads all four
 * through {@code Utils.getEnvOrSystemProperty}, and its {@code LibUtils} tries PYTORCH_LIBRARY_PATH
 * before the bundled natives jar), plus ntk4j's own NTK4J_TORCH_FLAGS (the {@link TorchFlags}
 * library) and, for a CUDA torch, NTK4J_CUDART_DIR (a folder with torch's libcudart, put on
 * {@code jna.library.path} so that DJL's GPU count, which loads "cudart" through JNA, sees the GPUs
 * torch sees).
 *
 * <p>{@link #configure()} applies the record as system properties before the first NDManager. It
 * runs by itself: the CLI's {@code Main} calls it, and {@link ConfiguringEngineProvider} calls it
 * when DJL's {@code Engine} class initialises, so a Java program that only makes an NDManager uses
 * the recorded build too. The launcher also exports the four DJL variables.
 */
public final class Natives {
    private Natives() {}

    static final String[] KEYS = {"PYTORCH_LIBRARY_PATH", "PYTORCH_VERSION", "PYTORCH_FLAVOR", "ENGINE_CACHE_DIR"};
    /** Record key: the {@link TorchFlags} library built with DJL's binding. */
    public static final String TORCH_FLAGS = "NTK4J_TORCH_FLAGS";
    /** Record key: a folder holding {@code libcudart.so}, a link to torch's CUDA runtime (CUDA builds only). */
    public static final String CUDART_DIR = "NTK4J_CUDART_DIR";
    /** System property {@link TorchFlags} loads its library from. */
    static final String TORCH_FLAGS_PROPERTY = "ntk4j.torch.flags";

    /** The recorded environment: -Dntk4j.native.env, else $NTK4J_NATIVE_ENV, else ~/.ntk4j/native.properties. */
    public static Path envFile() {
        String p = System.getProperty("ntk4j.native.env", System.getenv("NTK4J_NATIVE_ENV"));
        return p != null && !p.isEmpty()
                ? Path.of(p)
                : Path.of(System.getProperty("user.home"), ".ntk4j", "native.properties");
    }

    /** The recorded properties, or null when there is no recorded build. */
    public static Properties recorded() {
        Path f = envFile();
        if (!Files.isRegularFile(f)) {
            return null;
        }
        Properties p = new Properties();
        try (InputStream is = Files.newInputStream(f)) {
            p.load(is);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + f + ": " + e.getMessage(), e);
        }
        return p;
    }

    /**
     * Points DJL at the recorded build, unless NTK4J_NATIVE=off, there is no record, or the user set
     * PYTORCH_LIBRARY_PATH to another folder; returns whether the record is in effect. When the
     * launcher exported the record (PYTORCH_LIBRARY_PATH equal to the record's), only ntk4j's own keys
     * are applied. Call before the PyTorch engine loads; calling again does nothing more.
     */
    public static synchronized boolean configure() {
        if ("off".equals(System.getenv("NTK4J_NATIVE"))) {
            return false;
        }
        Properties p;
        try {
            p = recorded();
        } catch (UncheckedIOException e) {
            return false;
        }
        if (p == null
                || p.getProperty("PYTORCH_LIBRARY_PATH") == null
                || !Files.isDirectory(Path.of(p.getProperty("PYTORCH_LIBRARY_PATH")))) {
            return false;
        }
        String set = System.getProperty("PYTORCH_LIBRARY_PATH", System.getenv("PYTORCH_LIBRARY_PATH"));
        if (set != null && !Path.of(set).equals(Path.of(p.getProperty("PYTORCH_LIBRARY_PATH")))) {
            return false;
        }
        for (String k : KEYS) {
            String v = p.getProperty(k);
            if (v != null && System.getenv(k) == null && System.getProperty(k) == null) {
                System.setProperty(k, v);
            }
        }
        String flags = p.getProperty(TORCH_FLAGS);
        if (flags != null && System.getProperty(TORCH_FLAGS_PROPERTY) == null) {
            System.setProperty(TORCH_FLAGS_PROPERTY, flags);
        }
        String cudart = p.getProperty(CUDART_DIR);
        if (cudart != null) {
            String jna = System.getProperty("jna.library.path");
            if (jna == null || jna.isEmpty()) {
                System.setProperty("jna.library.path", cudart);
            } else if (!List.of(jna.split(File.pathSeparator)).contains(cudart)) {
                System.setProperty("jna.library.path", cudart + File.pathSeparator + jna);
            }
        }
        return true;
    }
}
