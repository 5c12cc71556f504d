package org.ntk4j.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ntk4j.data.IdxReaderTest.assertOneLine;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;

class CifarReadersTest {
    @TempDir
    Path dir;

    private void json(String name, String text) throws Exception {
        Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
    }

    /** Checks sample i of d against {@link TestFiles#cifarValue} for image row {@code row}. */
    private static void assertImage(LabelledSet d, int i, int row) {
        float[] f = d.features();
        for (int c = 0; c < 3; c++) {
            for (int p = 0; p < 1024; p += 97) {
                assertEquals(
                        TestFiles.cifarValue(row, p, c) / 255f,
                        f[i * 3072 + c * 1024 + p],
                        0f,
                        "sample " + i + " channel " + c + " pixel " + p);
            }
        }
    }

    @Test
    void pngTestSplitIsChannelFirstInRowOrder() throws Exception {
        TestFiles.cifarPng(dir.resolve("test_batch.png"), 3, 0, 1024);
        json("test_lables.json", "[3, 8, 0]");
        LabelledSet d = Datasets.loadFrom("cifar10", Split.TEST, dir);
        assertEquals(3, d.size());
        assertArrayEquals(new int[] {3, 32, 32}, d.sampleShape());
        assertArrayEquals(new int[] {3, 8, 0}, d.labels());
        for (int i = 0; i < 3; i++) {
            assertImage(d, i, i);
        }
    }

    /**
     * The decoded copy kept beside a PNG: written by the first read, used by the next (the copy alone: the PNG is
     * then overwritten in place with its size and time kept, so only a read from the copy gives the old pixels),
     * dropped when the PNG changes, and a truncated copy is ignored.
     */
    @Test
    void pngDecodedCopyIsReusedWhileThePngIsUnchanged() throws Exception {
        Path png = TestFiles.cifarPng(dir.resolve("test_batch.png"), 3, 0, 1024);
        json("test_lables.json", "[3, 8, 0]");
        LabelledSet first = Datasets.loadFrom("cifar10", Split.TEST, dir);
        Path copy = DecodedCache.of(png);
        assertTrue(Files.isRegularFile(copy), "decoded copy written");
        assertEquals(32 + 3 * 3072, Files.size(copy));
        // the copy is read, not the PNG: a PNG of other pixels with the same size and time still gives the first's
        byte[] original = Files.readAllBytes(png);
        java.nio.file.attribute.FileTime time = Files.getLastModifiedTime(png);
        Path other = TestFiles.cifarPng(dir.resolve("other.png"), 3, 5, 1024);
        Files.write(png, java.util.Arrays.copyOf(Files.readAllBytes(other), original.length));
        Files.setLastModifiedTime(png, time);
        assertArrayEquals(
                first.features(), Datasets.loadFrom("cifar10", Split.TEST, dir).features(), 0f);
        // a changed PNG (new time) is decoded again and its copy replaced
        Files.setLastModifiedTime(png, java.nio.file.attribute.FileTime.fromMillis(time.toMillis() + 5000));
        TestFiles.cifarPng(png, 3, 5, 1024);
        LabelledSet changed = Datasets.loadFrom("cifar10", Split.TEST, dir);
        for (int i = 0; i < 3; i++) {
            assertImage(changed, i, 5 + i);
        }
        // a truncated copy is ignored (decoded again, same values)
        byte[] c = Files.readAllBytes(copy);
        Files.write(copy, java.util.Arrays.copyOf(c, c.length - 100));
        assertArrayEquals(
                changed.features(),
                Datasets.loadFrom("cifar10", Split.TEST, dir).features(),
                0f);
        assertEquals(c.length, Files.size(copy), "the truncated copy was rewritten");
    }

    @Test
    void pngTrainSplitConcatenatesFiveBatchesInOrder() throws Exception {
        for (int b = 1; b <= 5; b++) {
            TestFiles.cifarPng(dir.resolve("data_batch_" + b + ".png"), 2, 2 * (b - 1), 1024);
        }
        json("train_lables.json", "[0,1,2,3,4,5,6,7,8,9]");
        LabelledSet d = Datasets.loadFrom("cifar10", Split.TRAIN, dir);
        assertEquals(10, d.size());
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, d.labels());
        for (int i = 0; i < 10; i++) {
            assertImage(d, i, i);
        }
    }

    @Test
    void pngOfWrongWidth() throws Exception {
        TestFiles.cifarPng(dir.resolve("test_batch.png"), 2, 0, 512);
        json("test_lables.json", "[1, 2]");
        UserException e = assertThrows(UserException.class, () -> Datasets.loadFrom("cifar10", Split.TEST, dir));
        assertOneLine(e, "test_batch.png", "512 pixels wide", "expected 1024");
    }

    @Test
    void notAPng() throws Exception {
        Files.write(dir.resolve("test_batch.png"), new byte[] {1, 2, 3, 4});
        json("test_lables.json", "[1]");
        UserException e = assertThrows(UserException.class, () -> Datasets.loadFrom("cifar10", Split.TEST, dir));
        assertOneLine(e, "test_batch.png", "not a PNG");
    }

    @Test
    void labelsJsonNotAnArray() throws Exception {
        TestFiles.cifarPng(dir.resolve("test_batch.png"), 1, 0, 1024);
        json("test_lables.json", "{\"labels\": [1]}");
        assertOneLine(
                assertThrows(UserException.class, () -> Datasets.loadFrom("cifar10", Split.TEST, dir)),
                "test_lables.json",
                "not an array");
        json("test_lables.json", "[1, \"cat\"]");
        assertOneLine(
                assertThrows(UserException.class, () -> CifarPngReader.readLabels(dir.resolve("test_lables.json"), 10)),
                "test_lables.json",
                "element 1",
                "expected an int");
        json("test_lables.json", "[1, 2.5]");
        assertOneLine(
                assertThrows(UserException.class, () -> CifarPngReader.readLabels(dir.resolve("test_lables.json"), 10)),
                "element 1 is 2.5");
        json("test_lables.json", "[1, [2]]");
        assertOneLine(
                assertThrows(UserException.class, () -> CifarPngReader.readLabels(dir.resolve("test_lables.json"), 10)),
                "element 1");
        json("test_lables.json", "[1, 2");
        assertOneLine(
                assertThrows(UserException.class, () -> CifarPngReader.readLabels(dir.resolve("test_lables.json"), 10)),
                "not valid JSON");
    }

    @Test
    void pngLabelOutOfRangeAndCountMismatch() throws Exception {
        TestFiles.cifarPng(dir.resolve("test_batch.png"), 2, 0, 1024);
        json("test_lables.json", "[1, 10]");
        assertOneLine(
                assertThrows(UserException.class, () -> Datasets.loadFrom("cifar10", Split.TEST, dir)),
                "test_lables.json",
                "label 10 at index 1",
                "0..9");
        json("test_lables.json", "[1, 2, 3]");
        assertOneLine(
                assertThrows(UserException.class, () -> Datasets.loadFrom("cifar10", Split.TEST, dir)),
                "test_lables.json",
                "3 labels",
                "hold 2 images");
    }

    @Test
    void pngLayoutMissingFileListsExpectedFilesAndFetch() throws Exception {
        TestFiles.cifarPng(dir.resolve("test_batch.png"), 1, 0, 1024);
        UserException e = assertThrows(UserException.class, () -> Datasets.loadFrom("cifar10", Split.TEST, dir));
        assertOneLine(e, "test_lables.json", "missing", "ntk4j data fetch cifar10");
        UserException t = assertThrows(UserException.class, () -> Datasets.loadFrom("cifar10", Split.TRAIN, dir));
        assertOneLine(t, "data_batch_1.png", "train_lables.json", "ntk4j data fetch cifar10");
    }

    @Test
    void binaryBatchesLoadChannelFirst() throws Exception {
        int[] labels = {0, 1};
        for (int b = 1; b <= 5; b++) {
            TestFiles.write(dir.resolve("data_batch_" + b + ".bin"), TestFiles.cifarRecords(labels, 2 * (b - 1)));
        }
        TestFiles.write(dir.resolve("test_batch.bin"), TestFiles.cifarRecords(new int[] {9, 4, 5}, 0));
        LabelledSet train = Datasets.loadFrom("cifar10", Split.TRAIN, dir);
        assertEquals(10, train.size());
        for (int i = 0; i < 10; i++) {
            assertImage(train, i, i);
        }
        LabelledSet test = Datasets.loadFrom("cifar10", Split.TEST, dir);
        assertArrayEquals(new int[] {9, 4, 5}, test.labels());
        assertImage(test, 2, 2);
    }

    @Test
    void binaryConcatenatedTrainAndOfficialSubfolder() throws Exception {
        Path sub = dir.resolve("cifar-10-batches-bin");
        TestFiles.write(sub.resolve("data_batch.bin"), TestFiles.cifarRecords(new int[] {1, 2, 3, 4}, 0));
        TestFiles.write(sub.resolve("test_batch.bin"), TestFiles.cifarRecords(new int[] {7}, 0));
        LabelledSet train = Datasets.loadFrom("cifar10", Split.TRAIN, dir);
        assertArrayEquals(new int[] {1, 2, 3, 4}, train.labels());
        assertImage(train, 3, 3);
    }

    @Test
    void binaryTruncatedRecord() throws Exception {
        byte[] b = TestFiles.cifarRecords(new int[] {1, 2}, 0);
        TestFiles.write(dir.resolve("test_batch.bin"), java.util.Arrays.copyOf(b, b.length - 100));
        UserException e = assertThrows(UserException.class, () -> Datasets.loadFrom("cifar10", Split.TEST, dir));
        assertOneLine(e, "test_batch.bin", "not a whole number of 3073-byte records", "truncated");
    }

    @Test
    void binaryLabelOutOfRange() throws Exception {
        TestFiles.write(dir.resolve("test_batch.bin"), TestFiles.cifarRecords(new int[] {1, 12}, 0));
        UserException e = assertThrows(UserException.class, () -> Datasets.loadFrom("cifar10", Split.TEST, dir));
        assertOneLine(e, "test_batch.bin", "label 12 in record 1", "0..9");
    }

    @Test
    void binaryMissingTrainBatch() throws Exception {
        TestFiles.write(dir.resolve("test_batch.bin"), TestFiles.cifarRecords(new int[] {1}, 0));
        TestFiles.write(dir.resolve("data_batch_1.bin"), TestFiles.cifarRecords(new int[] {1}, 0));
        UserException e = assertThrows(UserException.class, () -> Datasets.loadFrom("cifar10", Split.TRAIN, dir));
        assertOneLine(e, "data_batch_2.bin", "not found", "data_batch_5.bin", "test_batch.bin");
    }

    @Test
    void emptyCifarFolderListsBothLayouts() throws Exception {
        UserException e = assertThrows(UserException.class, () -> Datasets.loadFrom("cifar10", Split.TEST, dir));
        assertOneLine(
                e,
                "no CIFAR-10 files",
                "data_batch_1.png",
                "test_lables.json",
                "test_batch.bin",
                "ntk4j data fetch cifar10");
    }
}
