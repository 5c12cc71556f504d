package org.ntk4j.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one naming and cleaning rule of temporaries: owner in the name, the umask's permissions, and what a dead
 * process left is removed by the next writer in the folder (this host only; live owners and held locks are kept).
 */
class TempFilesTest {
    static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        return p.pid();
    }

    @Test
    void temporariesCarryTheirOwnerAndFollowTheUmask(@TempDir Path dir) throws Exception {
        Path f = TempFiles.file(dir.resolve("K.npz"));
        Path d = TempFiles.directory(dir.resolve("K"));
        String tag = ".ntk4j-pid" + ProcessHandle.current().pid() + "@" + TempFiles.host() + ".";
        assertTrue(f.getFileName().toString().startsWith(".K.npz" + tag), f.toString());
        assertTrue(d.getFileName().toString().startsWith(".K" + tag), d.toString());
        assertTrue(TempFiles.isTemporary(f.getFileName().toString()));
        // created without explicit permissions: what a plain file created here gets (the umask decides)
        Path plain = Files.createFile(dir.resolve("plain"));
        Path plainDir = Files.createDirectory(dir.resolve("plainDir"));
        assertEquals(
                PosixFilePermissions.toString(Files.getPosixFilePermissions(plain)),
                PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        assertEquals(
                PosixFilePermissions.toString(Files.getPosixFilePermissions(plainDir)),
                PosixFilePermissions.toString(Files.getPosixFilePermissions(d)));
        TempFiles.delete(f);
        TempFiles.delete(d);
        assertFalse(Files.exists(f) || Files.exists(d));
    }

    @Test
    void deadOwnersTemporariesGoLiveOnesAndOtherHostsStay(@TempDir Path dir) throws Exception {
        long dead = deadPid();
        long live = ProcessHandle.current().pid();
        String host = TempFiles.host();
        Path deadFile = dir.resolve(".K.npz.ntk4j-pid" + dead + "@" + host + ".1.tmp");
        Path deadDir = dir.resolve(".K.ntk4j-pid" + dead + "@" + host + ".2.tmp");
        Path legacy = dir.resolve(".K.npz.ntk4j-pid" + dead + ".npz"); // before the host was part of the name
        Path liveFile = dir.resolve(".L.npz.ntk4j-pid" + live + "@" + host + ".3.tmp");
        Path otherHost = dir.resolve(".M.npz.ntk4j-pid" + dead + "@another-node.4.tmp");
        Path user = dir.resolve("notes.txt");
        Files.writeString(deadFile, "stale");
        Files.createDirectories(deadDir.resolve("inner"));
        Files.writeString(deadDir.resolve("inner").resolve("ntk.npy"), "stale");
        Files.writeString(legacy, "stale");
        Files.writeString(liveFile, "in use");
        Files.writeString(otherHost, "another machine's, on a shared file system");
        Files.writeString(user, "mine");
        List<Path> removed = TempFiles.cleanStale(dir);
        assertEquals(3, removed.size(), removed.toString());
        assertFalse(Files.exists(deadFile) || Files.exists(deadDir) || Files.exists(legacy));
        assertTrue(Files.exists(liveFile) && Files.exists(otherHost) && Files.exists(user));
    }

    @Test
    void theFirstTemporaryInAFolderCleansIt(@TempDir Path dir) throws Exception {
        Path stale = dir.resolve(".x.ntk4j-pid" + deadPid() + "@" + TempFiles.host() + ".1.tmp");
        Files.writeString(stale, "stale");
        Path t = TempFiles.file(dir.resolve("y"));
        assertFalse(Files.exists(stale), "removed when this process first wrote a temporary here");
        TempFiles.delete(t);
    }

    @Test
    void unheldLockFilesAreRemovedHeldOnesKept(@TempDir Path dir) throws Exception {
        Path stale = OutputLock.lockFile(dir.resolve("old.npz"));
        Files.writeString(stale, "12345@gone 1\n");
        try (OutputLock held = OutputLock.acquire(dir.resolve("new.npz"), "--out new.npz")) {
            assertFalse(Files.exists(stale), "removed when this process first locked an output here");
            Files.writeString(stale, "12345@gone 1\n");
            List<Path> removed = TempFiles.cleanStale(dir);
            assertEquals(List.of(stale), removed);
            assertTrue(Files.exists(held.file()), "a held lock stays");
        }
    }
}
