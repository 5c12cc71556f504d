package org.ntk4j.data;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where datasets live: one data directory, with one sub-folder per dataset name
 * ({@code mnist/}, {@code fashion-mnist/}, {@code cifar10/}).
 *
 * <p>The directory is, in order of precedence:
 * <ol>
 *   <li>the {@code --dir} option of a command (passed here as {@code explicit});</li>
 *   <li>the system property {@value #PROPERTY};</li>
 *   <li>the environment variable {@value #ENV};</li>
 *   <li>{@code ~/.ntk4j/data}.</li>
 * </ol>
 */
public final class DataPaths {
    public static final String PROPERTY = "ntk4j.data";
    public static final String ENV = "NTK4J_DATA";

    private DataPaths() {}

    /** The data directory (absolute); {@code explicit} (may be null) wins over everything else. */
    public static Path dataDir(Path explicit) {
        if (explicit != null) {
            return explicit.toAbsolutePath().normalize();
        }
        String p = System.getProperty(PROPERTY);
        if (p != null && !p.isBlank()) {
            return Path.of(p).toAbsolutePath().normalize();
        }
        String e = System.getenv(ENV);
        if (e != null && !e.isBlank()) {
            return Path.of(e).toAbsolutePath().normalize();
        }
        return Path.of(System.getProperty("user.home"), ".ntk4j", "data")
                .toAbsolutePath()
                .normalize();
    }

    /**
     * As {@link #dataDir(Path)} for a command that reads data: a folder given explicitly ({@code option}, e.g.
     * --data-dir) must exist, else it is a mistake (a typo would otherwise pass unnoticed for the bundled sets).
     */
    public static Path existingDataDir(Path explicit, String option) {
        if (explicit != null && !Files.isDirectory(explicit)) {
            throw new org.ntk4j.UserException(option + " " + explicit + " is not a folder");
        }
        return dataDir(explicit);
    }

    /** The data directory by the default precedence (no {@code --dir}). */
    public static Path dataDir() {
        return dataDir(null);
    }

    /** The folder of one dataset, e.g. {@code <dataDir>/mnist}. */
    public static Path datasetDir(Path dataDir, String name) {
        return dataDir.resolve(name);
    }
}
