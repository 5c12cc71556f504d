package org.ntk4j.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The one naming and cleaning rule for every temporary file or folder ntk4j writes (atomic writes, NPZ and .npy
 * folders being written, spilled kernels, checkpoints being written, downloads being unpacked).
 *
 * <ul>
 *   <li><b>Name.</b> A temporary carries its owner in its name: {@code .<name>.ntk4j-pid<PID>@<host>.<k><suffix>}
 *       (hidden, beside the file it becomes), e.g. {@code .K.npz.ntk4j-pid4242@node7.1.tmp}.</li>
 *   <li><b>Permissions.</b> It is created without explicit permissions, so the umask decides, as for any file the
 *       user creates (the file moved into place keeps them).</li>
 *   <li><b>Normal exit, error, SIGINT, SIGTERM.</b> The writer deletes it, or moves it into place; a shutdown hook
 *       deletes those still pending.</li>
 *   <li><b>SIGKILL, power loss.</b> The first time a later ntk4j process creates a temporary in a folder, it deletes
 *       the temporaries there whose owner process is gone (same host, pid no longer alive), and the lock files
 *       ({@link OutputLock}) that no process holds. Temporaries of other hosts (a shared file system) are left to
 *       their own host.</li>
 * </ul>
 */
public final class TempFiles {
    /** What every temporary's name holds: {@code .ntk4j-pid<PID>@<host>.}, matched by {@link #OWNER}. */
    static final Pattern OWNER = Pattern.compile("\\.ntk4j-pid(\\d+)(?:@([A-Za-z0-9-]+))?\\.");

    private static final String HOST = host();
    private static final String TAG = ".ntk4j-pid" + ProcessHandle.current().pid() + "@" + HOST + ".";
    private static final AtomicLong COUNTER = new AtomicLong();
    private static final Set<Path> PENDING = ConcurrentHashMap.newKeySet();
    private static final Set<Path> CLEANED = ConcurrentHashMap.newKeySet();

    /**
     * Test hook: with {@code -Dntk4j.test.holdTemp=TEXT}, a process that creates a temporary whose name contains
     * TEXT prints {@code ntk4j-temp <path>} on stderr and stops there, so that a test can kill it at that moment.
     */
    private static final String HOLD = System.getProperty("ntk4j.test.holdTemp");

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(() -> PENDING.forEach(TempFiles::deleteQuietly), "ntk4j-temp-cleanup"));
    }

    private TempFiles() {}

    /** This process's tag, {@code .ntk4j-pid<PID>@<host>.}, for names built by hand (see {@link #path}). */
    public static String tag() {
        return TAG;
    }

    /**
     * A new, empty temporary file beside {@code target} (its folder is created), named by the rule and registered
     * for deletion on exit; {@link #done} it once moved into place or deleted.
     */
    public static Path file(Path target) {
        Path p = path(target, ".tmp");
        try {
            Files.createFile(p);
        } catch (IOException e) {
            PENDING.remove(p);
            throw new UncheckedIOException("cannot write " + target + ": " + IoMessages.describe(e), e);
        }
        hold(p);
        return p;
    }

    /** A new, empty temporary folder beside {@code target}, as {@link #file}. */
    public static Path directory(Path target) {
        Path p = path(target, ".tmp");
        try {
            Files.createDirectory(p);
        } catch (IOException e) {
            PENDING.remove(p);
            throw new UncheckedIOException("cannot write " + target + ": " + IoMessages.describe(e), e);
        }
        hold(p);
        return p;
    }

    /**
     * The name of a temporary beside {@code target} ending in {@code suffix}, not created yet: registered for
     * deletion on exit, its folder created and cleaned of dead processes' temporaries (once per folder and process).
     */
    public static Path path(Path target, String suffix) {
        Path abs = target.toAbsolutePath().normalize();
        Path dir = abs.getParent();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target + ": " + IoMessages.describe(e), e);
        }
        cleanOnce(dir);
        Path p = dir.resolve("." + abs.getFileName() + TAG + COUNTER.incrementAndGet() + suffix);
        PENDING.add(p);
        return p;
    }

    /** Registers a temporary named by hand with {@link #tag()} for deletion on exit. */
    public static Path own(Path p) {
        cleanOnce(p.toAbsolutePath().normalize().getParent());
        PENDING.add(p);
        return p;
    }

    /** The temporary was moved into place (or deleted): no longer deleted on exit. */
    public static void done(Path p) {
        PENDING.remove(p);
    }

    /** Deletes a temporary (a folder with its contents) now, quietly, and forgets it. */
    public static void delete(Path p) {
        deleteQuietly(p);
        PENDING.remove(p);
    }

    /** Whether {@code name} is a temporary of this rule. */
    public static boolean isTemporary(String name) {
        return OWNER.matcher(name).find();
    }

    /** Runs {@link #cleanStale} on {@code dir} the first time this process writes a temporary there. */
    static void cleanOnce(Path dir) {
        if (dir != null && CLEANED.add(dir)) {
            cleanStale(dir);
        }
    }

    /**
     * Deletes the temporaries in {@code dir} whose owner process is gone (this host, pid not alive), and the lock
     * files of {@link OutputLock} that no process holds; returns what was deleted. Temporaries of other hosts, and of
     * live processes, are left alone.
     */
    public static List<Path> cleanStale(Path dir) {
        List<Path> removed = new ArrayList<>();
        if (dir == null || !Files.isDirectory(dir)) {
            return removed;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                if (name.endsWith(OutputLock.SUFFIX)) {
                    if (!OutputLock.held(p) && unheldLockRemoved(p)) {
                        removed.add(p);
                    }
                    continue;
                }
                Matcher m = OWNER.matcher(name);
                if (!m.find() || m.group(2) != null && !m.group(2).equals(HOST)) {
                    continue;
                }
                long pid;
                try {
                    pid = Long.parseLong(m.group(1));
                } catch (NumberFormatException e) {
                    continue;
                }
                if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    deleteQuietly(p);
                    removed.add(p);
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // an unreadable folder: nothing to clean
        }
        return removed;
    }

    /** Deletes a lock file that no process holds (deleted while holding its lock, as {@link OutputLock} releases). */
    private static boolean unheldLockRemoved(Path p) {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
            FileLock l = ch.tryLock();
            if (l == null) {
                return false;
            }
            try {
                Files.deleteIfExists(p);
                return true;
            } finally {
                l.release();
            }
        } catch (IOException | OverlappingFileLockException e) {
            return false;
        }
    }

    private static void hold(Path p) {
        if (HOLD != null && !HOLD.isEmpty() && p.getFileName().toString().contains(HOLD)) {
            System.err.println("ntk4j-temp " + p);
            System.err.flush();
            while (true) {
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    static void deleteQuietly(Path p) {
        try {
            if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                try (Stream<Path> s = Files.walk(p)) {
                    for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(q);
                    }
                }
            } else {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            // best effort: a later run removes what is left (its owner is gone)
        }
    }

    /** This host's short name (up to the first dot), letters, digits and '-' only: part of every temporary's name. */
    static String host() {
        String h;
        try {
            h = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (IOException | RuntimeException e) {
            try {
                h = java.net.InetAddress.getLocalHost().getHostName();
            } catch (IOException ex) {
                h = "localhost";
            }
        }
        int dot = h.indexOf('.');
        String s = (dot > 0 ? h.substring(0, dot) : h).replaceAll("[^A-Za-z0-9-]", "-");
        s = s.length() > 40 ? s.substring(0, 40) : s;
        return s.isEmpty() ? "localhost" : s.toLowerCase(Locale.ROOT);
    }
}
