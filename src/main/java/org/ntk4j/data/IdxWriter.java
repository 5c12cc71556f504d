package org.ntk4j.data;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.ntk4j.UserException;

/**
 * Writes images and labels in the IDX format that {@link IdxReader} reads (magic 0x00000803 /
 * 0x00000801, big-endian sizes, unsigned bytes), gzip-compressed when the file name ends in
 * {@code .gz}. Pixels in [0,1] are stored as {@code round(255·x)}, which inverts the reader's
 * {@code byte/255} exactly for data that came from IDX.
 */
public final class IdxWriter {
    private IdxWriter() {}

    /** Writes the images of a dataset whose sample shape is {1, rows, cols}. */
    public static void writeImages(LabelledSet data, Path file) {
        int[] s = data.sampleShape();
        if (s.length != 3 || s[0] != 1) {
            throw new IllegalArgumentException(
                    "IDX images need sample shape {1, rows, cols}, got " + java.util.Arrays.toString(s));
        }
        float[] f = data.features();
        try (DataOutputStream out = open(file)) {
            out.writeInt(IdxReader.IMAGES_MAGIC);
            out.writeInt(data.size());
            out.writeInt(s[1]);
            out.writeInt(s[2]);
            for (float v : f) {
                out.write(Math.max(0, Math.min(255, Math.round(v * 255f))));
            }
        } catch (IOException e) {
            throw new UserException(file + ": cannot write (" + e.getMessage() + ")", e);
        }
    }

    /** Writes labels (each in 0..255). */
    public static void writeLabels(int[] labels, Path file) {
        try (DataOutputStream out = open(file)) {
            out.writeInt(IdxReader.LABELS_MAGIC);
            out.writeInt(labels.length);
            for (int y : labels) {
                out.write(y);
            }
        } catch (IOException e) {
            throw new UserException(file + ": cannot write (" + e.getMessage() + ")", e);
        }
    }

    private static DataOutputStream open(Path file) throws IOException {
        OutputStream os = Files.newOutputStream(file);
        if (file.getFileName().toString().endsWith(".gz")) {
            os = new GZIPOutputStream(os, 1 << 16);
        }
        return new DataOutputStream(new BufferedOutputStream(os, 1 << 16));
    }
}
