package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard store is readable by whoever the umask lets read the user's files (the other users of a shared file
 * system): plan.json, every shard folder, .npy file and sidecar, and the assembled kernel and manifest get the
 * permissions of a plain file or folder created here, not 0600/0700.
 */
class ShardPermissionsTest {
    @Test
    void storesFollowTheUmask(@TempDir Path dir) throws Exception {
        String file = PosixFilePermissions.toString(Files.getPosixFilePermissions(Files.createFile(dir.resolve("f"))));
        String folder =
                PosixFilePermissions.toString(Files.getPosixFilePermissions(Files.createDirectory(dir.resolve("d"))));
        Path store = dir.resolve("store");
        CliTest.Run r = CliTest.tinyShard(store);
        assertEquals(0, r.code(), r.err());
        r = CliTest.run("kernel", "assemble", store.toString(), "--keep-shards");
        assertEquals(0, r.code(), r.err());
        try (Stream<Path> s = Files.walk(store)) {
            for (Path p : s.toList()) {
                String want = Files.isDirectory(p) ? folder : file;
                assertEquals(
                        want,
                        PosixFilePermissions.toString(Files.getPosixFilePermissions(p)),
                        store.relativize(p).toString());
            }
        }
    }
}
