package org.ntk4j.natives;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The environment of a built JNI binding ({@code ntk4j native build}): a properties file with
 * PYTORCH_LIBRARY_PATH, PYTORCH_VERSION, PYTORCH_FLAVOR and ENGINE_CACHE_DIR. The launcher exports
 * it; Java callers call {@link #configure()} before the first NDManager, which sets them as system
 * properties — DJL 0.35 reads all four through {@code Utils.getEnvOrSystemProperty}, and its
 * {@code LibUtils} tries PYTORCH_LIBRARY_PATH before the bundled natives jar.
 */
public final class Natives {
    private Natives() {}

    static final String[] KEYS = {"PYTORCH_LIBRARY_PATH", "PYTORCH_VERSION", "PYTORCH_FLAVOR", "ENGINE_CACHE_DIR"};

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
     * Points DJL at the recorded build, unless the user set PYTORCH_LIBRARY_PATH already or
     * NTK4J_NATIVE=off; returns whether it did. Call before the PyTorch engine loads.
     */
    public static boolean configure() {
        if ("off".equals(System.getenv("NTK4J_NATIVE"))
                || System.getenv("PYTORCH_LIBRARY_PATH") != null
                || System.getProperty("PYTORCH_LIBRARY_PATH") != null) {
            return false;
        }
        Properties p = recorded();
        if (p == null
                || p.getProperty("PYTORCH_LIBRARY_PATH") == null
                || !Files.isDirectory(Path.of(p.getProperty("PYTORCH_LIBRARY_PATH")))) {
            return false;
        }
        for (String k : KEYS) {
            String v = p.getProperty(k);
            if (v != null && System.getenv(k) == null && System.getProperty(k) == null) {
                System.setProperty(k, v);
            }
        }
        return true;
    }
}
