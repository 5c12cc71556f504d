package org.ntk4j.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.ntk4j.data.IdxReaderTest.assertOneLine;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;

/** Row-range reads from streams (the distributed jobs' readers) against the whole-file readers. */
class RowReadersTest {
    @TempDir
    Path dir;

    private static InputStream open(Path p) throws Exception {
        return Files.newInputStream(p);
    }

    @Test
    void idxRowsEqualTheRowsOfAWholeRead() throws Exception {
        for (boolean gz : new boolean[] {false, true}) {
            Path d = dir.resolve(gz ? "gz" : "plain");
            TestFiles.mnistLike(d, 23, 4, gz);
            LabelledSet whole = Datasets.loadFrom("mnist", Split.TRAIN, d);
            String s = gz ? ".gz" : "";
            Path im = d.resolve("train-images-idx3-ubyte" + s);
            Path lb = d.resolve("train-labels-idx1-ubyte" + s);
            assertEquals(23, IdxReader.count(open(im), "im"));
            for (int[] r : new int[][] {{0, 23}, {5, 7}, {22, 1}, {9, 0}}) {
                IdxReader.Images rows = IdxReader.readImageRows(open(im), "im", r[0], r[1]);
                assertEquals(r[1], rows.count());
                assertArrayEquals(Arrays.copyOfRange(whole.features(), r[0] * 784, (r[0] + r[1]) * 784), rows.pixels());
                assertArrayEquals(
                        Arrays.copyOfRange(whole.labels(), r[0], r[0] + r[1]),
                        IdxReader.readLabelRows(open(lb), "lb", r[0], r[1], 10));
            }
        }
    }

    @Test
    void idxRowsPastTheEndOrWrongFileAreOneLineErrors() throws Exception {
        TestFiles.mnistLike(dir, 5, 2, false);
        Path im = dir.resolve("train-images-idx3-ubyte");
        Path lb = dir.resolve("train-labels-idx1-ubyte");
        UserException e = assertThrows(UserException.class, () -> IdxReader.readImageRows(open(im), "im", 3, 3));
        assertOneLine(e, "im", "rows 3..6", "holds 5 images");
        UserException e2 = assertThrows(UserException.class, () -> IdxReader.readImageRows(open(lb), "lb", 0, 1));
        assertOneLine(e2, "lb", "wrong magic number 0x00000801");
        UserException e3 = assertThrows(UserException.class, () -> IdxReader.readLabelRows(open(im), "im", 0, 1, 10));
        assertOneLine(e3, "im", "wrong magic number 0x00000803");
        // a header that promises more images than the file holds
        Path shortFile = TestFiles.write(dir.resolve("short"), TestFiles.idxImages(0x803, 3, 2, 2, new byte[10]));
        UserException e4 =
                assertThrows(UserException.class, () -> IdxReader.readImageRows(open(shortFile), "short", 2, 1));
        assertOneLine(e4, "short", "truncated");
    }

    @Test
    void cifarRecordsEqualTheRecordsOfAWholeRead() throws Exception {
        int[] labels = {3, 1, 4, 1, 5, 9, 2};
        Path f = TestFiles.write(dir.resolve("test_batch.bin"), TestFiles.cifarRecords(labels, 0));
        LabelledSet whole = CifarBinaryReader.read(dir, Split.TEST);
        int[] got = new int[3];
        float[] px = CifarBinaryReader.readRecords(open(f), "t", 2, 3, got);
        assertArrayEquals(new int[] {4, 1, 5}, got);
        assertArrayEquals(Arrays.copyOfRange(whole.features(), 2 * 3072, 5 * 3072), px);
        Path gz = TestFiles.write(dir.resolve("gz.bin"), TestFiles.gzip(Files.readAllBytes(f)));
        assertArrayEquals(px, CifarBinaryReader.readRecords(open(gz), "g", 2, 3, new int[3]));
        UserException e =
                assertThrows(UserException.class, () -> CifarBinaryReader.readRecords(open(f), "t", 5, 3, new int[3]));
        assertOneLine(e, "t", "truncated");
    }
}
