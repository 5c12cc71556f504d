package org.ntk4j.spark;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.ntk4j.UserException;
import org.ntk4j.data.CifarBinaryReader;
import org.ntk4j.data.CifarPngReader;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.IdxReader;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Split;

/**
 * Rows of a dataset split read through Hadoop's {@link FileSystem} API from a shared data root
 * ({@code file://}, {@code hdfs://}, {@code s3a://}, ...), laid out as the core's data directory:
 * {@code <root>/<dataset>/} with the files {@link Datasets#loadFrom} reads. Executors read only their
 * rows: IDX (MNIST, Fashion-MNIST) and the CIFAR-10 binary layout by seeking (plain files) or
 * skipping (gzip); the CIFAR-10 PNG layout, which cannot be read by rows, is copied once per executor
 * JVM into a local folder and read whole by the core. The values are the core's exactly
 * ({@code byte / 255f}, channel-first), so a distributed kernel sees the inputs of the single-machine
 * job ({@code ntk4j kernel} takes the first N training and the first M test samples, unnormalised).
 *
 * <p>{@code mnist-subset} (bundled in the core's jar) and named synthetic dataset specs need no data root.
 */
public final class HadoopRows implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final int MNIST_CLASSES = 10;

    private final String root;
    private final String dataset;
    private final byte[] conf;

    /**
     * @param root the data root URI (holding {@code <dataset>/}); may be null for datasets needing no files
     * @param dataset the dataset name, as {@code ntk4j kernel --dataset}
     * @param conf the Hadoop configuration (the driver's, so that credentials and file system settings travel)
     */
    public HadoopRows(String root, String dataset, Configuration conf) {
        this.root = root;
        this.dataset = dataset;
        this.conf = HadoopConf.toBytes(conf);
    }

    /** Whether the dataset is read from the data root (false: bundled or synthetic, made in memory). */
    public boolean needsRoot() {
        String n = dataset == null ? "" : dataset.trim().toLowerCase(Locale.ROOT);
        return Datasets.FETCHABLE.contains(n);
    }

    /** The number of samples in a split (reads headers or file sizes only). */
    public int size(Split split) {
        if (!needsRoot()) {
            return Datasets.load(dataset, split).size();
        }
        try {
            Layout l = layout(split);
            return l.size;
        } catch (IOException e) {
            throw new UserException(dir() + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    /** Samples {@code [from, from + count)} of a split, as the core loads them. */
    public LabelledSet rows(Split split, int from, int count) {
        if (!needsRoot()) {
            LabelledSet d = Datasets.load(dataset, split);
            return range(d, from, count);
        }
        try {
            Layout l = layout(split);
            if (from < 0 || (long) from + count > l.size) {
                throw new UserException(dir() + ": rows " + from + ".." + ((long) from + count) + " of the "
                        + split.name().toLowerCase(Locale.ROOT) + " split requested but it holds " + l.size
                        + " samples");
            }
            String tag = name() + "-" + split.name().toLowerCase(Locale.ROOT);
            return switch (l.kind) {
                case IDX -> {
                    IdxReader.Images im;
                    try (InputStream in = l.fs.open(l.files.get(0))) {
                        im = IdxReader.readImageRows(in, l.files.get(0).toString(), from, count);
                    }
                    int[] labels;
                    try (InputStream in = l.fs.open(l.files.get(1))) {
                        labels = IdxReader.readLabelRows(in, l.files.get(1).toString(), from, count, MNIST_CLASSES);
                    }
                    yield new LabelledSet(tag, im.pixels(), im.sampleShape(), labels, MNIST_CLASSES);
                }
                case CIFAR_BINARY -> cifarRows(l, tag, from, count);
                case CIFAR_PNG -> range(localCopy(l, split), from, count);
            };
        } catch (IOException e) {
            throw new UserException(dir() + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    private static LabelledSet range(LabelledSet d, int from, int count) {
        if (from < 0 || (long) from + count > d.size()) {
            throw new UserException(d.name() + ": rows " + from + ".." + ((long) from + count)
                    + " requested but it holds " + d.size() + " samples");
        }
        int[] idx = new int[count];
        for (int i = 0; i < count; i++) {
            idx[i] = from + i;
        }
        return d.subset(idx);
    }

    private LabelledSet cifarRows(Layout l, String tag, int from, int count) throws IOException {
        float[] px = new float[count * 3072];
        int[] labels = new int[count];
        int start = 0; // first record of the current file
        int done = 0;
        for (int f = 0; f < l.files.size() && done < count; f++) {
            int records = l.counts.get(f);
            int a = Math.max(from + done, start) - start;
            int b = Math.min(from + count, start + records) - start;
            if (b > a) {
                int[] lab = new int[b - a];
                float[] p;
                try (InputStream in = l.fs.open(l.files.get(f))) {
                    p = CifarBinaryReader.readRecords(in, l.files.get(f).toString(), a, b - a, lab);
                }
                System.arraycopy(p, 0, px, done * 3072, p.length);
                System.arraycopy(lab, 0, labels, done, lab.length);
                done += b - a;
            }
            start += records;
        }
        return new LabelledSet(tag, px, new int[] {3, 32, 32}, labels, 10);
    }

    private static final java.util.Map<String, LabelledSet> PNG_CACHE = new java.util.concurrent.ConcurrentHashMap<>();

    /** The PNG layout, copied to a local temporary folder and read whole by the core (once per JVM and split). */
    private LabelledSet localCopy(Layout l, Split split) throws IOException {
        String key = dir() + "#" + split;
        LabelledSet cached = PNG_CACHE.get(key);
        if (cached != null) {
            return cached;
        }
        synchronized (PNG_CACHE) {
            cached = PNG_CACHE.get(key);
            if (cached != null) {
                return cached;
            }
            java.nio.file.Path tmp = Files.createTempDirectory("ntk4j-cifar-png");
            try {
                for (Path f : l.files) {
                    l.fs.copyToLocalFile(
                            false, f, new Path(tmp.resolve(f.getName()).toUri()), true);
                }
                LabelledSet d = Datasets.loadFrom(Datasets.CIFAR10, split, tmp);
                PNG_CACHE.put(key, d);
                return d;
            } finally {
                try (var s = Files.list(tmp)) {
                    for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) s::iterator) {
                        Files.deleteIfExists(p);
                    }
                }
                Files.deleteIfExists(tmp);
            }
        }
    }

    private enum Kind {
        IDX,
        CIFAR_BINARY,
        CIFAR_PNG
    }

    /** The files of a split and how many samples it holds. */
    private record Layout(FileSystem fs, Kind kind, List<Path> files, List<Integer> counts, int size) {}

    private String name() {
        return Datasets.checkName(dataset);
    }

    private Path dir() {
        if (root == null || root.isBlank()) {
            throw new UserException("--data-root is required for dataset '" + dataset
                    + "' (a URI of the folder holding " + name() + "/, e.g. hdfs:///ntk4j/data or s3a://bucket/data)");
        }
        return new Path(new Path(root), name());
    }

    private Layout layout(Split split) throws IOException {
        Path dir = dir();
        FileSystem fs;
        try {
            fs = dir.getFileSystem(HadoopConf.fromBytes(conf));
        } catch (IOException | RuntimeException e) {
            throw new UserException(dir + ": no file system for this URI (" + e.getMessage() + ")", e);
        }
        if (!exists(fs, dir)) {
            throw new UserException(dir + ": dataset folder for '" + name() + "' not found (expected the files of"
                    + " `ntk4j data fetch " + name() + "` there; --data-root names the folder holding " + name()
                    + "/)");
        }
        String n = name();
        if (n.equals(Datasets.MNIST) || n.equals(Datasets.FASHION_MNIST)) {
            return idxLayout(fs, dir, split);
        }
        // CIFAR-10: the PNG layout of `ntk4j data fetch cifar10`, or the binary layout
        if (exists(fs, new Path(dir, CifarPngReader.TEST_IMAGES))
                || exists(fs, new Path(dir, CifarPngReader.TRAIN_IMAGES.get(0)))) {
            List<String> need = new ArrayList<>();
            if (split == Split.TRAIN) {
                need.addAll(CifarPngReader.TRAIN_IMAGES);
                need.add(CifarPngReader.TRAIN_LABELS);
            } else {
                need.add(CifarPngReader.TEST_IMAGES);
                need.add(CifarPngReader.TEST_LABELS);
            }
            List<Path> files = new ArrayList<>();
            for (String f : need) {
                Path p = new Path(dir, f);
                if (!exists(fs, p)) {
                    throw new UserException(p + ": missing (expected " + String.join(", ", need) + ")");
                }
                files.add(p);
            }
            // the size of the split: its labels (a small JSON file; the PNGs are decoded by the tasks)
            return new Layout(fs, Kind.CIFAR_PNG, files, List.of(), pngLabels(fs, files.get(files.size() - 1)));
        }
        Path bin = exists(fs, new Path(dir, "cifar-10-batches-bin")) ? new Path(dir, "cifar-10-batches-bin") : dir;
        List<Path> files = new ArrayList<>();
        if (split == Split.TEST) {
            files.add(new Path(bin, CifarBinaryReader.TEST_FILE));
        } else if (exists(fs, new Path(bin, CifarBinaryReader.TRAIN_CONCATENATED))) {
            files.add(new Path(bin, CifarBinaryReader.TRAIN_CONCATENATED));
        } else {
            CifarBinaryReader.TRAIN_FILES.forEach(f -> files.add(new Path(bin, f)));
        }
        List<Integer> counts = new ArrayList<>();
        int size = 0;
        for (Path f : files) {
            long len;
            try {
                len = fs.getFileStatus(f).getLen();
            } catch (FileNotFoundException e) {
                throw new UserException(f + ": file not found (CIFAR-10 in " + dir + " needs the PNG layout of `ntk4j"
                        + " data fetch cifar10` or the binary layout "
                        + String.join(", ", CifarBinaryReader.TRAIN_FILES)
                        + " (or " + CifarBinaryReader.TRAIN_CONCATENATED + ") and " + CifarBinaryReader.TEST_FILE
                        + ")");
            }
            if (len % CifarBinaryReader.RECORD != 0 && !isGzip(fs, f)) {
                throw new UserException(f + ": " + len + " bytes is not a whole number of 3073-byte CIFAR-10 records");
            }
            int c = isGzip(fs, f) ? countGzipRecords(fs, f) : (int) (len / CifarBinaryReader.RECORD);
            counts.add(c);
            size += c;
        }
        return new Layout(fs, Kind.CIFAR_BINARY, files, counts, size);
    }

    /** The MNIST layout (IDX images and labels, gzipped or not) of {@code split}. */
    private static Layout idxLayout(FileSystem fs, Path dir, Split split) throws IOException {
        String prefix = split == Split.TRAIN ? "train" : "t10k";
        Path images = idxFile(fs, dir, prefix + "-images-idx3-ubyte");
        Path labels = idxFile(fs, dir, prefix + "-labels-idx1-ubyte");
        int ni;
        int nl;
        try (InputStream in = fs.open(images)) {
            ni = IdxReader.count(in, images.toString());
        }
        try (InputStream in = fs.open(labels)) {
            nl = IdxReader.count(in, labels.toString());
        }
        if (ni != nl) {
            throw new UserException(images + ": holds " + ni + " images but " + labels + " holds " + nl
                    + " labels (expected equal counts)");
        }
        return new Layout(fs, Kind.IDX, List.of(images, labels), List.of(ni, nl), ni);
    }

    private static int pngLabels(FileSystem fs, Path labels) throws IOException {
        java.nio.file.Path tmp = Files.createTempFile("ntk4j-cifar-labels", ".json");
        try {
            try (InputStream in = fs.open(labels)) {
                Files.copy(in, tmp, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            try {
                return CifarPngReader.readLabels(tmp, 10).length;
            } catch (UserException e) {
                throw new UserException(e.getMessage().replace(tmp.toString(), labels.toString()), e);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static boolean exists(FileSystem fs, Path p) throws IOException {
        return fs.exists(p);
    }

    private static boolean isGzip(FileSystem fs, Path p) throws IOException {
        try (InputStream in = fs.open(p)) {
            return in.read() == 0x1f && in.read() == 0x8b;
        }
    }

    private static int countGzipRecords(FileSystem fs, Path p) throws IOException {
        try (InputStream in = new java.util.zip.GZIPInputStream(fs.open(p), 1 << 16)) {
            long n = in.transferTo(java.io.OutputStream.nullOutputStream());
            return (int) (n / CifarBinaryReader.RECORD);
        }
    }

    private static Path idxFile(FileSystem fs, Path dir, String base) throws IOException {
        Path plain = new Path(dir, base);
        if (exists(fs, plain)) {
            return plain;
        }
        Path gz = new Path(dir, base + ".gz");
        if (exists(fs, gz)) {
            return gz;
        }
        throw new UserException(plain + "[.gz]: missing in " + dir
                + " (expected train-images-idx3-ubyte[.gz], train-labels-idx1-ubyte[.gz], t10k-images-idx3-ubyte[.gz],"
                + " t10k-labels-idx1-ubyte[.gz])");
    }
}
