package org.ntk4j.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;

class IdxReaderTest {
    @TempDir
    Path dir;

    @Test
    void readsPlainImagesScaledToUnitInterval() throws Exception {
        byte[] px = {0, (byte) 255, (byte) 128, 1, 2, 3};
        Path f = TestFiles.write(dir.resolve("im"), TestFiles.idxImages(0x803, 1, 2, 3, px));
        IdxReader.Images im = IdxReader.readImages(f);
        assertEquals(1, im.count());
        assertArrayEquals(new int[] {1, 2, 3}, im.sampleShape());
        assertArrayEquals(new float[] {0f, 1f, 128 / 255f, 1 / 255f, 2 / 255f, 3 / 255f}, im.pixels());
    }

    @Test
    void readsGzipDetectedByContent() throws Exception {
        byte[] raw = TestFiles.idxImages(0x803, 2, 2, 2, TestFiles.ramp(8));
        Path gz = TestFiles.write(dir.resolve("images-without-gz-suffix"), TestFiles.gzip(raw));
        Path plain = TestFiles.write(dir.resolve("plain"), raw);
        assertArrayEquals(
                IdxReader.readImages(plain).pixels(), IdxReader.readImages(gz).pixels());
    }

    @Test
    void readsImagesAndLabelsIntoDataset() throws Exception {
        TestFiles.mnistLike(dir, 12, 5, true);
        LabelledSet d = IdxReader.read(
                "t", dir.resolve("train-images-idx3-ubyte.gz"), dir.resolve("train-labels-idx1-ubyte.gz"), 10);
        assertEquals(12, d.size());
        assertArrayEquals(new int[] {1, 28, 28}, d.sampleShape());
        assertEquals(3, d.labels()[3]);
    }

    @Test
    void writerRoundTripsExactly() throws Exception {
        TestFiles.mnistLike(dir, 20, 3, false);
        LabelledSet d = Datasets.loadFrom("mnist", Split.TRAIN, dir);
        Path out = dir.resolve("out");
        java.nio.file.Files.createDirectories(out);
        IdxWriter.writeImages(d, out.resolve("x-images.gz"));
        IdxWriter.writeLabels(d.labels(), out.resolve("x-labels.gz"));
        LabelledSet back = IdxReader.read("b", out.resolve("x-images.gz"), out.resolve("x-labels.gz"), 10);
        assertArrayEquals(d.features(), back.features());
        assertArrayEquals(d.labels(), back.labels());
        // every byte value survives byte/255 -> round(255 x)
        for (int b = 0; b < 256; b++) {
            assertEquals(b, Math.round((b / 255f) * 255f));
        }
    }

    @Test
    void wrongMagicNamesFileAndExpectedValue() throws Exception {
        Path f = TestFiles.write(dir.resolve("bad-images"), TestFiles.idxLabels(0x801, 1, new byte[] {1}));
        UserException e = assertThrows(UserException.class, () -> IdxReader.readImages(f));
        assertOneLine(e, "bad-images", "wrong magic number 0x00000801", "0x00000803");
        Path g = TestFiles.write(dir.resolve("bad-labels"), TestFiles.idxImages(0x0802, 1, 1, 1, new byte[] {1}));
        UserException e2 = assertThrows(UserException.class, () -> IdxReader.readLabels(g, 10));
        assertOneLine(e2, "bad-labels", "wrong magic number 0x00000802", "0x00000801");
    }

    @Test
    void truncatedImagesSayHowManyBytesWereNeeded() throws Exception {
        // header says 3 images of 2x2 (12 pixel bytes) but only 10 follow
        Path f = TestFiles.write(dir.resolve("short"), TestFiles.idxImages(0x803, 3, 2, 2, new byte[10]));
        UserException e = assertThrows(UserException.class, () -> IdxReader.readImages(f));
        assertOneLine(e, "short", "truncated", "26 bytes", "needs 28");
    }

    @Test
    void truncatedLabelsAndHeader() throws Exception {
        Path f = TestFiles.write(dir.resolve("lab"), TestFiles.idxLabels(0x801, 5, new byte[] {1, 2}));
        assertOneLine(
                assertThrows(UserException.class, () -> IdxReader.readLabels(f, 10)), "lab", "truncated", "needs 13");
        Path h = TestFiles.write(dir.resolve("tiny"), new byte[] {0, 0, 8});
        assertOneLine(assertThrows(UserException.class, () -> IdxReader.readImages(h)), "tiny", "truncated", "header");
    }

    @Test
    void truncatedGzipIsReported() throws Exception {
        byte[] gz = TestFiles.gzip(TestFiles.idxImages(0x803, 4, 28, 28, TestFiles.ramp(4 * 784)));
        Path f = TestFiles.write(dir.resolve("cut.gz"), Arrays.copyOf(gz, gz.length / 2));
        assertOneLine(assertThrows(UserException.class, () -> IdxReader.readImages(f)), "cut.gz", "gzip");
    }

    @Test
    void imageLabelCountMismatch() throws Exception {
        Path im = TestFiles.write(dir.resolve("im"), TestFiles.idxImages(0x803, 2, 1, 1, new byte[] {1, 2}));
        Path lab = TestFiles.write(dir.resolve("lab"), TestFiles.idxLabels(0x801, 3, new byte[] {1, 2, 3}));
        UserException e = assertThrows(UserException.class, () -> IdxReader.read("t", im, lab, 10));
        assertOneLine(e, "im", "2 images", "lab", "3 labels");
    }

    @Test
    void labelOutOfRangeNamesIndexAndValue() throws Exception {
        Path lab = TestFiles.write(dir.resolve("lab"), TestFiles.idxLabels(0x801, 3, new byte[] {1, 10, 3}));
        UserException e = assertThrows(UserException.class, () -> IdxReader.readLabels(lab, 10));
        assertOneLine(e, "lab", "label 10 at index 1", "0..9");
    }

    @Test
    void missingFile() {
        UserException e = assertThrows(UserException.class, () -> IdxReader.readImages(dir.resolve("nope")));
        assertOneLine(e, "nope", "not found");
    }

    /** The message is one line and contains every fragment. */
    static void assertOneLine(UserException e, String... fragments) {
        String m = e.getMessage();
        assertTrue(!m.contains("\n"), "message must be one line: " + m);
        for (String f : fragments) {
            assertTrue(m.contains(f), "message '" + m + "' should contain '" + f + "'");
        }
    }
}
