package org.ntk4j.data;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.ntk4j.UserException;

/**
 * Reader for the standard CIFAR-10 binary format (www.cs.toronto.edu/~kriz/cifar.html, "binary
 * version"): a sequence of 3073-byte records, one label byte in 0..9 followed by 3072 pixel bytes,
 * the 1024 red values, then green, then blue, each plane row-major 32×32. That is already
 * channel-first, so sample values are {@code byte / 255f} in the same order, shape {3, 32, 32}.
 *
 * <p>Training data come from {@code data_batch_1.bin .. data_batch_5.bin} or one concatenated
 * {@code data_batch.bin}; test data from {@code test_batch.bin}.
 */
public final class CifarBinaryReader {
    /** Bytes per record: 1 label + 3·32·32 pixels. */
    public static final int RECORD = 3073;

    public static final List<String> TRAIN_FILES =
            List.of("data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin", "data_batch_5.bin");
    public static final String TRAIN_CONCATENATED = "data_batch.bin";
    public static final String TEST_FILE = "test_batch.bin";

    private CifarBinaryReader() {}

    /** True when {@code dir} holds a test file or a training file in the binary layout. */
    public static boolean present(Path dir) {
        return Files.isRegularFile(dir.resolve(TEST_FILE))
                || Files.isRegularFile(dir.resolve(TRAIN_CONCATENATED))
                || Files.isRegularFile(dir.resolve(TRAIN_FILES.get(0)));
    }

    /** The files that make up a split in {@code dir}; throws if they are missing. */
    public static List<Path> files(Path dir, Split split) {
        if (split == Split.TEST) {
            Path t = dir.resolve(TEST_FILE);
            requireFile(t, dir);
            return List.of(t);
        }
        Path cat = dir.resolve(TRAIN_CONCATENATED);
        if (Files.isRegularFile(cat)) {
            return List.of(cat);
        }
        List<Path> out = new ArrayList<>();
        for (String f : TRAIN_FILES) {
            Path p = dir.resolve(f);
            requireFile(p, dir);
            out.add(p);
        }
        return out;
    }

    /** Loads one split from a folder in the binary layout. */
    public static LabelledSet read(Path dir, Split split) {
        List<Path> files = files(dir, split);
        byte[][] parts = new byte[files.size()][];
        int[][] labs = new int[files.size()][];
        int n = 0;
        for (int i = 0; i < files.size(); i++) {
            byte[] b = DataFiles.readMaybeGzip(files.get(i));
            labs[i] = new int[b.length / RECORD];
            parts[i] = pixels(b, files.get(i).toString(), labs[i]);
            n += labs[i].length;
        }
        int[] labels = new int[n];
        int off = 0;
        for (int[] l : labs) {
            System.arraycopy(l, 0, labels, off, l.length);
            off += l.length;
        }
        return LabelledSet.ofPixels( // float features made when asked for, as for the PNG layout
                "cifar10-" + split.name().toLowerCase(),
                DataFiles.join(parts),
                CifarPngReader.SHAPE,
                labels,
                Datasets.CIFAR_CLASSES);
    }

    /**
     * Reads records {@code [from, from + count)} of one CIFAR-10 binary file from a stream (closed
     * afterwards; gzip detected by content), skipping the records before: the row reader of distributed
     * jobs. Fills {@code labels} (length count) and returns the pixels, as {@link #read} gives them.
     */
    public static float[] readRecords(java.io.InputStream in, String what, int from, int count, int[] labels) {
        try (java.io.InputStream s = DataFiles.maybeGunzip(in, what)) {
            DataFiles.skipFully(s, (long) from * RECORD, what);
            byte[] b = DataFiles.readFully(s, count * RECORD, what, count + " records from record " + from);
            if (count == 0) {
                return new float[0];
            }
            float[] px = LabelledSet.unit(pixels(b, what, labels));
            if (from > 0) {
                for (int i = 0; i < count; i++) {
                    checkLabelAt(labels[i], from + i, what);
                }
            }
            return px;
        } catch (java.io.IOException e) {
            throw new UserException(what + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    private static void checkLabelAt(int y, int record, String what) {
        if (y >= Datasets.CIFAR_CLASSES) {
            throw new UserException(what + ": label " + y + " in record " + record + " is out of range");
        }
    }

    /** Parses records; fills {@code labels} (length = bytes / RECORD) and returns the pixel bytes, 3072 per record. */
    static byte[] pixels(byte[] b, String what, int[] labels) {
        if (b.length == 0) {
            throw new UserException(what + ": empty file (expected 3073-byte CIFAR-10 records)");
        }
        if (b.length % RECORD != 0) {
            throw new UserException(what + ": " + b.length + " bytes is not a whole number of 3073-byte records"
                    + " (truncated file? the last record has " + (b.length % RECORD) + " bytes)");
        }
        int n = b.length / RECORD;
        byte[] px = new byte[n * 3072];
        for (int i = 0; i < n; i++) {
            int y = b[i * RECORD] & 0xff;
            if (y >= Datasets.CIFAR_CLASSES) {
                throw new UserException(what + ": label " + y + " in record " + i + " is out of range (expected 0.."
                        + (Datasets.CIFAR_CLASSES - 1) + ")");
            }
            labels[i] = y;
            System.arraycopy(b, i * RECORD + 1, px, i * 3072, 3072);
        }
        return px;
    }

    private static void requireFile(Path p, Path dir) {
        if (!Files.isRegularFile(p)) {
            throw new UserException(p + ": file not found (the CIFAR-10 binary layout in " + dir + " needs "
                    + String.join(", ", TRAIN_FILES) + " (or " + TRAIN_CONCATENATED + ") and " + TEST_FILE + ")");
        }
    }
}
