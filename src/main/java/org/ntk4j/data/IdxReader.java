package org.ntk4j.data;

import java.io.InputStream;
import java.nio.file.Path;
import org.ntk4j.UserException;

/**
 * Reader for the IDX format of MNIST and Fashion-MNIST (LeCun et al., "THE MNIST DATABASE",
 * yann.lecun.com/exdb/mnist), plain or gzip-compressed (detected by content).
 *
 * <p>Layout, big-endian: a 4-byte magic {@code 0x000008TD} (T = 0x08 for unsigned bytes, D = number
 * of dimensions), then D 4-byte sizes, then the values. Images: magic {@code 0x00000803}, sizes
 * (n, rows, cols); labels: magic {@code 0x00000801}, size (n). Pixels are scaled to [0,1] as
 * {@code byte / 255f}; an image set has channel-first sample shape {1, rows, cols}.
 */
public final class IdxReader {
    /** Magic number of an unsigned-byte, 3-dimensional IDX file (images). */
    public static final int IMAGES_MAGIC = 0x00000803;
    /** Magic number of an unsigned-byte, 1-dimensional IDX file (labels). */
    public static final int LABELS_MAGIC = 0x00000801;

    private IdxReader() {}

    /** Images as read from an IDX file: n samples of rows×cols unsigned 8-bit pixels. */
    public record Images(byte[] bytes, int count, int rows, int cols) {
        /** Channel-first shape of one image: {1, rows, cols}. */
        public int[] sampleShape() {
            return new int[] {1, rows, cols};
        }

        /** The pixels scaled to [0,1], {@code (b & 0xFF) / 255f}, in a new array. */
        public float[] pixels() {
            return LabelledSet.unit(bytes);
        }
    }

    /** Reads an images file ({@code *-images-idx3-ubyte[.gz]}). */
    public static Images readImages(Path file) {
        return parseImages(DataFiles.readMaybeGzip(file), file.toString());
    }

    /** Reads an images file from a stream (closed afterwards); {@code what} names it in errors. */
    public static Images readImages(InputStream in, String what) {
        return parseImages(DataFiles.readMaybeGzip(in, what), what);
    }

    /** Reads a labels file ({@code *-labels-idx1-ubyte[.gz]}); values must lie in [0, numClasses). */
    public static int[] readLabels(Path file, int numClasses) {
        return parseLabels(DataFiles.readMaybeGzip(file), file.toString(), numClasses);
    }

    /** Reads a labels file from a stream (closed afterwards); {@code what} names it in errors. */
    public static int[] readLabels(InputStream in, String what, int numClasses) {
        return parseLabels(DataFiles.readMaybeGzip(in, what), what, numClasses);
    }

    /**
     * Reads an images file and its labels file into a {@link LabelledSet}, checking that they hold the
     * same number of samples and that every label lies in [0, numClasses).
     */
    public static LabelledSet read(String name, Path images, Path labels, int numClasses) {
        Images im = readImages(images);
        int[] lab = readLabels(labels, numClasses);
        return combine(name, im, images.toString(), lab, labels.toString(), numClasses);
    }

    /** Joins images and labels read separately, checking the counts agree. */
    public static LabelledSet combine(
            String name, Images im, String imagesWhat, int[] labels, String labelsWhat, int numClasses) {
        if (im.count() != labels.length) {
            throw new UserException(imagesWhat + ": holds " + im.count() + " images but " + labelsWhat + " holds "
                    + labels.length + " labels (expected equal counts)");
        }
        return LabelledSet.ofPixels(name, im.bytes(), im.sampleShape(), labels, numClasses);
    }

    /**
     * Reads images {@code [from, from + count)} of an IDX images file from a stream (closed afterwards;
     * gzip detected by its magic bytes), skipping the ones before without holding them: the row reader of
     * distributed jobs, whose executors each read their rows of a shared file. Values are those of
     * {@link #readImages(Path)} for the same rows ({@code byte / 255f}).
     */
    public static Images readImageRows(InputStream in, String what, int from, int count) {
        try (InputStream s = DataFiles.maybeGunzip(in, what)) {
            byte[] h = new byte[16];
            System.arraycopy(DataFiles.readFully(s, 4, what, "the IDX header"), 0, h, 0, 4);
            if (header(h, 0, what) != IMAGES_MAGIC) {
                parseImages(h, what); // the same one-line error as a whole read
            }
            System.arraycopy(DataFiles.readFully(s, 12, what, "the IDX header"), 0, h, 4, 12);
            int n = header(h, 4, what);
            int rows = header(h, 8, what);
            int cols = header(h, 12, what);
            if (n < 0 || rows <= 0 || cols <= 0) {
                parseImages(h, what);
            }
            checkRange(what, "images", from, count, n);
            long size = (long) rows * cols;
            DataFiles.skipFully(s, from * size, what);
            byte[] b = DataFiles.readFully(s, (int) (count * size), what, count + " images from index " + from);
            return new Images(b, count, rows, cols);
        } catch (java.io.IOException e) {
            throw new UserException(what + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    /** Reads labels {@code [from, from + count)} of an IDX labels file from a stream (closed afterwards). */
    public static int[] readLabelRows(InputStream in, String what, int from, int count, int numClasses) {
        try (InputStream s = DataFiles.maybeGunzip(in, what)) {
            byte[] h = new byte[8];
            System.arraycopy(DataFiles.readFully(s, 4, what, "the IDX header"), 0, h, 0, 4);
            if (header(h, 0, what) != LABELS_MAGIC) {
                parseLabels(h, what, numClasses); // the same one-line error as a whole read
            }
            System.arraycopy(DataFiles.readFully(s, 4, what, "the IDX header"), 0, h, 4, 4);
            int n = header(h, 4, what);
            if (n < 0) {
                parseLabels(h, what, numClasses);
            }
            checkRange(what, "labels", from, count, n);
            DataFiles.skipFully(s, from, what);
            byte[] b = DataFiles.readFully(s, count, what, count + " labels from index " + from);
            int[] labels = new int[count];
            for (int i = 0; i < count; i++) {
                int y = b[i] & 0xff;
                if (y >= numClasses) {
                    throw new UserException(what + ": label " + y + " at index " + (from + i)
                            + " is out of range (expected 0.." + (numClasses - 1) + ")");
                }
                labels[i] = y;
            }
            return labels;
        } catch (java.io.IOException e) {
            throw new UserException(what + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    /** The number of items an IDX file's header declares (its first dimension), read from a stream (closed). */
    public static int count(InputStream in, String what) {
        try (InputStream s = DataFiles.maybeGunzip(in, what)) {
            return header(DataFiles.readFully(s, 8, what, "the IDX header"), 4, what);
        } catch (java.io.IOException e) {
            throw new UserException(what + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    private static void checkRange(String what, String items, int from, int count, int n) {
        if (from < 0 || count < 0 || (long) from + count > n) {
            throw new UserException(what + ": rows " + from + ".." + ((long) from + count) + " requested but the file"
                    + " holds " + n + " " + items);
        }
    }

    static Images parseImages(byte[] b, String what) {
        int magic = header(b, 0, what);
        if (magic != IMAGES_MAGIC) {
            throw new UserException(what + ": wrong magic number " + hex(magic) + " (expected " + hex(IMAGES_MAGIC)
                    + " for an IDX images file" + (magic == LABELS_MAGIC ? "; this looks like a labels file" : "")
                    + ")");
        }
        int n = header(b, 4, what);
        int rows = header(b, 8, what);
        int cols = header(b, 12, what);
        if (n < 0 || rows <= 0 || cols <= 0) {
            throw new UserException(what + ": invalid sizes in header (n=" + n + ", rows=" + rows + ", cols=" + cols
                    + "; expected positive)");
        }
        long need = 16L + (long) n * rows * cols;
        if (b.length < need) {
            throw new UserException(what + ": truncated file: " + b.length + " bytes but the header (" + n
                    + " images of " + rows + "x" + cols + ") needs " + need);
        }
        if ((long) n * rows * cols > Integer.MAX_VALUE - 8) {
            throw new UserException(
                    what + ": " + n + " images of " + rows + "x" + cols + " are too many to hold in memory");
        }
        return new Images(java.util.Arrays.copyOfRange(b, 16, 16 + n * rows * cols), n, rows, cols);
    }

    static int[] parseLabels(byte[] b, String what, int numClasses) {
        int magic = header(b, 0, what);
        if (magic != LABELS_MAGIC) {
            throw new UserException(what + ": wrong magic number " + hex(magic) + " (expected " + hex(LABELS_MAGIC)
                    + " for an IDX labels file" + (magic == IMAGES_MAGIC ? "; this looks like an images file" : "")
                    + ")");
        }
        int n = header(b, 4, what);
        if (n < 0) {
            throw new UserException(what + ": invalid label count " + n + " in header (expected >= 0)");
        }
        long need = 8L + n;
        if (b.length < need) {
            throw new UserException(
                    what + ": truncated file: " + b.length + " bytes but the header (" + n + " labels) needs " + need);
        }
        int[] labels = new int[n];
        for (int i = 0; i < n; i++) {
            int y = b[8 + i] & 0xff;
            if (y >= numClasses) {
                throw new UserException(what + ": label " + y + " at index " + i + " is out of range (expected 0.."
                        + (numClasses - 1) + ")");
            }
            labels[i] = y;
        }
        return labels;
    }

    private static int header(byte[] b, int off, String what) {
        if (b.length < off + 4) {
            throw new UserException(what + ": truncated file: " + b.length + " bytes, too short for the IDX header");
        }
        return ((b[off] & 0xff) << 24) | ((b[off + 1] & 0xff) << 16) | ((b[off + 2] & 0xff) << 8) | (b[off + 3] & 0xff);
    }

    private static String hex(int v) {
        return String.format("0x%08X", v);
    }
}
