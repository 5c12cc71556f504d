package org.ntk4j.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.ntk4j.UserException;

/**
 * One writer per output: an OS file lock on {@code .<name>.ntk4j-lock} beside the output, taken before anything is
 * checked or written and held until the output is in place, so a second run writing the same output is refused
 * whichever of the two would finish first. The lock file holds its owner ({@code pid@host}); the owner deletes it on
 * release (while still holding the lock), and a lock file left by a killed process holds no lock: the next writer
 * takes it over, and {@link TempFiles#cleanStale} removes it.
 *
 * <p>Deleting a lock file races with a process that opened it just before: that process may then lock the deleted
 * file. So a writer that got the lock checks that the path still names the file it locked (it reads back, through a
 * second descriptor kept open while it holds the lock, the token it wrote), and tries again otherwise.
 */
public final class OutputLock implements AutoCloseable {
    /** The lock file's suffix: {@code .<output name>.ntk4j-lock}. */
    public static final String SUFFIX = ".ntk4j-lock";

    /**
     * Lock files this process holds: never opened a second time here, since closing any descriptor of a file drops
     * the process's POSIX locks on it.
     */
    private static final java.util.Set<Path> HELD = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final Path file;
    private FileChannel channel;
    private FileChannel check;
    private FileLock lock;

    private OutputLock(Path file, FileChannel channel, FileChannel check, FileLock lock) {
        this.file = file;
        this.channel = channel;
        this.check = check;
        this.lock = lock;
    }

    /** The lock file of {@code output}: {@code .<name>.ntk4j-lock} in its folder. */
    public static Path lockFile(Path output) {
        Path abs = output.toAbsolutePath().normalize();
        return abs.resolveSibling("." + abs.getFileName() + SUFFIX);
    }

    /**
     * Takes the lock of {@code output} (its folder is created), or throws a one-line {@link UserException} naming
     * {@code what} (e.g. "--out K.npz") and the process that holds it.
     */
    public static OutputLock acquire(Path output, String what) {
        Path f = lockFile(output);
        try {
            Files.createDirectories(f.getParent());
        } catch (IOException e) {
            throw new UserException("cannot write " + what + ": " + IoMessages.describe(e));
        }
        if (!HELD.add(f)) {
            throw new UserException(what + " is being written by another job of this process; wait for it to finish,"
                    + " or choose another output");
        }
        try {
            return lock(f, what);
        } catch (RuntimeException e) {
            HELD.remove(f);
            throw e;
        }
    }

    /** Whether this process holds the lock file {@code f}. */
    static boolean held(Path f) {
        return HELD.contains(f.toAbsolutePath().normalize());
    }

    private static OutputLock lock(Path f, String what) {
        TempFiles.cleanOnce(f.getParent());
        String me = ProcessHandle.current().pid() + "@" + TempFiles.host();
        for (int attempt = 0; attempt < 20; attempt++) {
            FileChannel ch = null;
            try {
                ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileLock l;
                try {
                    l = ch.tryLock();
                } catch (OverlappingFileLockException e) {
                    ch.close();
                    throw new UserException(what + " is being written by another job of this process; wait for it"
                            + " to finish, or choose another output");
                }
                if (l == null) {
                    String owner = read(ch).split(" ")[0];
                    ch.close();
                    throw new UserException(what + " is being written by process "
                            + (owner.isEmpty() ? "(unknown)" : owner) + " (lock " + f
                            + "); wait for it to finish, or choose another output");
                }
                String token = me + " " + System.nanoTime() + "\n";
                ch.truncate(0);
                ch.write(ByteBuffer.wrap(token.getBytes(StandardCharsets.US_ASCII)), 0);
                ch.force(false);
                FileChannel second;
                try {
                    second = FileChannel.open(f, StandardOpenOption.READ);
                } catch (NoSuchFileException e) {
                    l.release();
                    ch.close();
                    continue; // deleted by its previous owner meanwhile
                }
                if (read(second).equals(token.strip())) {
                    TempFiles.own(f); // a SIGTERM'd writer removes its lock file with its temporaries
                    return new OutputLock(f, ch, second, l);
                }
                second.close();
                l.release();
                ch.close();
            } catch (IOException e) {
                closeQuietly(ch);
                throw new UserException("cannot lock " + what + ": " + IoMessages.describe(e));
            }
        }
        throw new UncheckedIOException(new IOException("cannot lock " + what + " (" + f + "): its lock file keeps"
                + " changing; another process is taking and releasing it"));
    }

    /** The lock file. */
    public Path file() {
        return file;
    }

    /** Releases the lock, deleting the lock file first (idempotent). */
    @Override
    public synchronized void close() {
        if (lock == null) {
            return;
        }
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // the next writer takes it over; cleanStale removes it
        }
        TempFiles.done(file);
        try {
            lock.release();
        } catch (IOException e) {
            // closing the channel drops it
        }
        closeQuietly(channel);
        closeQuietly(check);
        HELD.remove(file);
        lock = null;
        channel = null;
        check = null;
    }

    private static String read(FileChannel ch) {
        try {
            ByteBuffer b = ByteBuffer.allocate(256);
            int n = ch.read(b, 0);
            return n <= 0 ? "" : new String(b.array(), 0, n, StandardCharsets.US_ASCII).strip();
        } catch (IOException e) {
            return "";
        }
    }

    private static void closeQuietly(FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                // nothing more to release
            }
        }
    }
}
