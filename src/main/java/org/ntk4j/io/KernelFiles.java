package org.ntk4j.io;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.ntk4j.OptionException;
import org.ntk4j.OptionKey;
import org.ntk4j.UserException;
import org.ntk4j.files.IoMessages;
import org.ntk4j.files.OutputLock;
import org.ntk4j.files.TempFiles;

/**
 * The files of one kernel job: the output NPZ, its JSON sidecar, their temporaries and the spill
 * directory, all owned by this process.
 *
 * <ul>
 *   <li>Nothing is clobbered: an existing output or sidecar is an error without {@code force}, and a
 *       {@code <stem>.json} that is not an ntk4j kernel sidecar is never replaced, even with it.</li>
 *   <li>The output directory is checked writable before any work.</li>
 *   <li>One writer per output: an {@link OutputLock} on the sidecar's name is taken before anything is checked,
 *       so a second run on the same output is refused whichever would finish first.</li>
 *   <li>Every temporary and spill file follows {@link TempFiles}' rule ({@code .ntk4j-pid<PID>@<host>.} in its
 *       name): deleted on every exit path (normal, exception, SIGINT/SIGTERM through a shutdown hook), and a
 *       later run deletes those of processes no longer alive (SIGKILL, power loss).</li>
 *   <li>The NPZ and the sidecar are written to temporaries and published together: the old sidecar is
 *       removed first, the NPZ moved into place, the sidecar (carrying the NPZ's SHA-256) last. A run
 *       killed in between leaves an NPZ without sidecar, never a sidecar describing another NPZ; the
 *       NPZ also holds its own sidecar as the entry {@code meta.json}.</li>
 * </ul>
 */
public final class KernelFiles {
    /** The settings the checks name ({@link OptionException}). */
    public enum Option implements OptionKey {
        OUT,
        FORCE,
        SPILL_DIR
    }

    /** The {@code format} field that marks a kernel sidecar. */
    public static final String FORMAT = "ntk4j-kernel";

    private final Path out;
    private final Path sidecar;
    private final Path dir;
    private final Path spillRoot;
    private final String tag;
    private final List<Path> owned = new ArrayList<>();
    private OutputLock lock;

    private KernelFiles(Path out, Path spillRoot) {
        this.out = out.toAbsolutePath().normalize();
        this.dir = this.out.getParent();
        String name = this.out.getFileName().toString();
        this.sidecar = dir.resolve((name.endsWith(".npz") ? name.substring(0, name.length() - 4) : name) + ".json");
        this.spillRoot = (spillRoot == null ? dir : spillRoot.toAbsolutePath().normalize());
        this.tag = TempFiles.tag();
    }

    /**
     * Checks, before any work, that {@code out} and its sidecar may be written: refuses to replace them
     * without {@code force} and refuses a foreign {@code <stem>.json} always; creates the output (and
     * spill) directory and checks it is writable; removes stale temporaries of dead processes there.
     */
    public static KernelFiles prepare(Path out, boolean force, Path spillDir) {
        return prepare(out, force, spillDir, false);
    }

    /**
     * As {@link #prepare(Path, boolean, Path)}; with {@code directory} the output is a directory of
     * .npy files (its sidecar {@code DIR.json}), which may exist only with {@code force}.
     */
    public static KernelFiles prepare(Path out, boolean force, Path spillDir, boolean directory) {
        KernelFiles f = new KernelFiles(out, spillDir);
        // one writer per output, whichever finishes first: taken before anything is checked
        f.lock = OutputLock.acquire(f.sidecar, "--out " + out);
        try {
            return f.check(out, force, spillDir, directory);
        } catch (RuntimeException e) {
            f.close();
            throw e;
        }
    }

    private KernelFiles check(Path out, boolean force, Path spillDir, boolean directory) {
        KernelFiles f = this;
        if (!directory && Files.isDirectory(f.out)) {
            throw new OptionException(Option.OUT, " " + out + " is a directory; name a .npz file");
        }
        if (Files.exists(f.sidecar) && !isKernelSidecar(f.sidecar)) {
            throw new OptionException(
                    f.sidecar + " exists and is not an ntk4j kernel sidecar; ntk4j kernel will not replace it"
                            + " (even with ",
                    Option.FORCE,
                    "): choose another ",
                    Option.OUT);
        }
        if (!force) {
            for (Path p : List.of(f.out, f.sidecar)) {
                if (Files.exists(p)) {
                    throw new OptionException(
                            p + " exists; pass ", Option.FORCE, " to replace it, or choose another ", Option.OUT);
                }
            }
        }
        checkWritable(f.dir, Option.OUT, out);
        if (!f.spillRoot.equals(f.dir)) {
            checkWritable(f.spillRoot, Option.SPILL_DIR, spillDir);
        }
        cleanStale(f.dir);
        if (!f.spillRoot.equals(f.dir)) {
            cleanStale(f.spillRoot);
        }
        return f;
    }

    public Path out() {
        return out;
    }

    public Path sidecar() {
        return sidecar;
    }

    /** This process's spill directory (created on first use, deleted by {@link #close()}). */
    public Path spillDir() {
        Path d = spillRoot.resolve(tag + "spill");
        own(d);
        return d;
    }

    /** The temporary the NPZ is written to before publishing. */
    public Path npzTemp() {
        return own(dir.resolve("." + out.getFileName() + tag + "npz"));
    }

    /** The temporary the sidecar is written to before publishing. */
    public Path sidecarTemp() {
        return own(dir.resolve("." + sidecar.getFileName() + tag + "json"));
    }

    private Path own(Path p) {
        if (!owned.contains(p)) {
            owned.add(p);
            TempFiles.own(p);
        }
        return p;
    }

    /** Publishes the written temporaries: old sidecar out, NPZ in, new sidecar in (last). */
    public void publish(Path npzTmp, Path jsonTmp) {
        try {
            Files.deleteIfExists(sidecar);
            Files.move(npzTmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Files.move(jsonTmp, sidecar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UserException("cannot write " + out + ": " + e.getMessage());
        }
    }

    /**
     * Publishes a directory output (NPY): the old sidecar goes first, then {@code writeDirectory} puts
     * the directory in place (Npz.write replaces it from a finished temporary), then the new sidecar,
     * written by {@code sidecarJson} once the directory exists (it may hash it), moves in last.
     */
    public void publishDirectory(Runnable writeDirectory, java.util.function.Supplier<String> sidecarJson) {
        try {
            Files.deleteIfExists(sidecar);
            writeDirectory.run();
            Path jsonTmp = sidecarTemp();
            Files.writeString(jsonTmp, sidecarJson.get(), StandardCharsets.UTF_8);
            Files.move(jsonTmp, sidecar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UserException("cannot write " + out + ": " + e.getMessage());
        }
    }

    /** SHA-256 of each file of a directory, by file name, hex. */
    public static java.util.SortedMap<String, String> sha256Dir(Path dir) {
        java.util.SortedMap<String, String> m = new java.util.TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                m.put(p.getFileName().toString(), sha256(p));
            }
        } catch (IOException e) {
            throw new UserException("cannot read " + dir + ": " + e.getMessage());
        }
        return m;
    }

    /** Deletes every temporary and spill file of this job and releases its output (idempotent). */
    public void close() {
        for (Path p : owned) {
            deleteQuietly(p);
            TempFiles.done(p);
        }
        owned.clear();
        if (lock != null) {
            lock.close();
            lock = null;
        }
    }

    /** Whether {@code p} is a JSON sidecar written by {@code ntk4j kernel} (this version or an earlier one). */
    static boolean isKernelSidecar(Path p) {
        try {
            if (!Files.isRegularFile(p) || Files.size(p) > (64 << 20)) {
                return false;
            }
            String s = Files.readString(p, StandardCharsets.UTF_8);
            if (s.contains("\"format\": \"" + FORMAT + "\"") || s.contains("\"format\":\"" + FORMAT + "\"")) {
                return true;
            }
            // sidecars written before the format field: the kernel job's own keys
            return s.contains("\"kernel\"") && s.contains("\"mode\"") && s.contains("\"seconds_train_kernel\"");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** SHA-256 of a file, hex. */
    public static String sha256(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            for (int r; (r = in.read(buf)) > 0; ) {
                md.update(buf, 0, r);
            }
            StringBuilder hex = new StringBuilder();
            for (byte b : md.digest()) {
                hex.append(String.format("%02x", b));
            }
            return hex.toString();
        } catch (IOException e) {
            throw new UserException("cannot read " + file + ": " + e.getMessage());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Deletes the ntk4j temporaries and spill files in {@code dir} whose owner process is no longer alive
     * ({@link TempFiles#cleanStale}).
     */
    public static List<Path> cleanStale(Path dir) {
        return TempFiles.cleanStale(dir);
    }

    private static void checkWritable(Path d, Option option, Path given) {
        try {
            Files.createDirectories(d);
            Path probe = Files.createTempFile(d, TempFiles.tag(), ".probe");
            Files.delete(probe);
        } catch (IOException e) {
            throw new OptionException("cannot write ", option, " " + given + " (" + d + "): " + IoMessages.describe(e));
        } catch (SecurityException e) {
            throw new OptionException("cannot write ", option, " " + given + " (" + d + "): permission denied");
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                try (Stream<Path> s = Files.walk(p)) {
                    for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(q);
                    }
                }
            } else {
                Files.deleteIfExists(p);
            }
            // Npz.write's own atomic temporary beside a temp of ours (".<temp>*.tmp")
            Path parent = p.getParent();
            if (parent != null && Files.isDirectory(parent)) {
                try (DirectoryStream<Path> ds = Files.newDirectoryStream(parent, "." + p.getFileName() + "*.tmp")) {
                    for (Path q : ds) {
                        Files.deleteIfExists(q);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // best effort: a later run removes what is left (its owner pid is dead)
        }
    }
}
