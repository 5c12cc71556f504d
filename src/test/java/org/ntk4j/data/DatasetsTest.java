package org.ntk4j.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.ntk4j.data.IdxReaderTest.assertOneLine;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;

class DatasetsTest {
    @TempDir
    Path dir;

    @Test
    void bundledSubsetHasBalancedCounts() {
        LabelledSet train = Datasets.load("mnist-subset", Split.TRAIN, dir);
        LabelledSet test = Datasets.load("mnist-subset", Split.TEST, dir);
        assertEquals(2000, train.size());
        assertEquals(500, test.size());
        assertArrayEquals(new int[] {1, 28, 28}, train.sampleShape());
        for (int c = 0; c < 10; c++) {
            assertEquals(200, train.classCounts()[c]);
            assertEquals(50, test.classCounts()[c]);
        }
        float min = Float.MAX_VALUE;
        float max = -Float.MAX_VALUE;
        for (float v : train.features()) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        assertEquals(0f, min);
        assertEquals(1f, max);
        // MNIST pixel statistics (mean 0.1307, std 0.3081 over the full train set); 2000 images
        // give the mean to well within 0.01.
        DatasetSummary s = DatasetSummary.of(train);
        assertEquals(0.1307, s.mean(), 0.01);
        assertEquals(0.3081, s.std(), 0.01);
    }

    /** The head of an IDX split, read alone, equals the whole split's head (plain and gzip; past the end: all). */
    @Test
    void headReadsOnlyTheFirstRowsWithTheSameValues() throws Exception {
        TestFiles.mnistLike(dir.resolve("mnist"), 30, 10, false);
        TestFiles.mnistLike(dir.resolve("fashion-mnist"), 20, 10, true);
        for (String name : new String[] {"mnist", "fashion-mnist"}) {
            for (int n : new int[] {1, 7, 20, 45}) {
                LabelledSet whole = Datasets.load(name, Split.TRAIN, dir).head(n);
                LabelledSet head = Datasets.loadHead(name, Split.TRAIN, dir, n);
                assertEquals(whole.name(), head.name());
                assertEquals(whole.size(), head.size(), name + " " + n);
                assertArrayEquals(whole.features(), head.features());
                assertArrayEquals(whole.labels(), head.labels());
                assertArrayEquals(whole.sampleShape(), head.sampleShape());
            }
        }
        assertEquals(Datasets.load("mnist-subset", Split.TEST, dir).head(9).labels().length, 9);
        assertArrayEquals(
                Datasets.load("mnist-subset", Split.TEST, dir).head(9).features(),
                Datasets.loadHead("mnist-subset", Split.TEST, dir, 9).features());
    }

    @Test
    void loadsIdxFromDataDirPlainOrGz() throws Exception {
        TestFiles.mnistLike(dir.resolve("mnist"), 30, 10, false);
        TestFiles.mnistLike(dir.resolve("fashion-mnist"), 20, 10, true);
        assertEquals(30, Datasets.load("mnist", Split.TRAIN, dir).size());
        assertEquals(10, Datasets.load("MNIST", Split.TEST, dir).size());
        assertEquals(20, Datasets.load("fashion-mnist", Split.TRAIN, dir).size());
    }

    @Test
    void unknownNameListsAllowedNames() {
        UserException e = assertThrows(UserException.class, () -> Datasets.load("svhn", Split.TRAIN, dir));
        assertOneLine(e, "unknown dataset 'svhn'", "mnist, fashion-mnist, cifar10, mnist-subset");
    }

    @Test
    void missingFolderSuggestsFetch() {
        UserException e = assertThrows(UserException.class, () -> Datasets.load("fashion-mnist", Split.TRAIN, dir));
        assertOneLine(e, dir.resolve("fashion-mnist").toString(), "not found", "ntk4j data fetch fashion-mnist");
    }

    @Test
    void missingFileListsExpectedFilesAndSuggestsFetch() throws Exception {
        TestFiles.mnistLike(dir.resolve("mnist"), 3, 3, false);
        java.nio.file.Files.delete(dir.resolve("mnist/t10k-labels-idx1-ubyte"));
        UserException e = assertThrows(UserException.class, () -> Datasets.load("mnist", Split.TEST, dir));
        assertOneLine(e, "t10k-labels-idx1-ubyte", "missing", "train-images-idx3-ubyte[.gz]", "ntk4j data fetch mnist");
    }

    @Test
    void dataPathsPrecedence() {
        String old = System.getProperty(DataPaths.PROPERTY);
        try {
            System.setProperty(DataPaths.PROPERTY, dir.resolve("prop").toString());
            assertEquals(dir.resolve("prop"), DataPaths.dataDir());
            assertEquals(dir.resolve("explicit"), DataPaths.dataDir(dir.resolve("explicit")));
            System.clearProperty(DataPaths.PROPERTY);
            Path def = DataPaths.dataDir();
            String env = System.getenv(DataPaths.ENV);
            Path expected = env != null && !env.isBlank()
                    ? Path.of(env).toAbsolutePath().normalize()
                    : Path.of(System.getProperty("user.home"), ".ntk4j", "data");
            assertEquals(expected, def);
            assertEquals(dir.resolve("cifar10"), DataPaths.datasetDir(dir, "cifar10"));
        } finally {
            if (old != null) {
                System.setProperty(DataPaths.PROPERTY, old);
            } else {
                System.clearProperty(DataPaths.PROPERTY);
            }
        }
    }
}
