package org.ntk4j.data;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.ntk4j.UserException;

/**
 * Loads the named datasets: {@code mnist}, {@code fashion-mnist}, {@code cifar10} from the data
 * directory (see {@link DataPaths}; {@code ntk4j data fetch NAME} puts them there) and
 * {@code mnist-subset}, which ships inside the jar.
 *
 * <p>{@code mnist-subset} is 2000 training images (200 per digit) and 500 test images (50 per
 * digit) drawn with a fixed seed from the real MNIST sets by {@link MnistSubsetGenerator}; it is
 * stored as IDX.gz classpath resources under {@value #SUBSET_RESOURCE}.
 */
public final class Datasets {
    public static final String MNIST = "mnist";
    public static final String FASHION_MNIST = "fashion-mnist";
    public static final String CIFAR10 = "cifar10";
    public static final String MNIST_SUBSET = "mnist-subset";
    /** Every name {@link #load} accepts. */
    public static final List<String> NAMES = List.of(MNIST, FASHION_MNIST, CIFAR10, MNIST_SUBSET);
    /** Names that live in the data directory (and that {@code data fetch} can obtain). */
    public static final List<String> FETCHABLE = List.of(MNIST, FASHION_MNIST, CIFAR10);

    static final int MNIST_CLASSES = 10;
    static final int CIFAR_CLASSES = 10;
    static final String SUBSET_RESOURCE = "/org/ntk4j/data/mnist-subset/";

    private Datasets() {}

    /** Loads a split of a named dataset, looking in the default data directory. */
    public static LabelledSet load(String name, Split split) {
        return load(name, split, DataPaths.dataDir());
    }

    /**
     * Loads a split of a named dataset. {@code dataDir} is the data directory (holding
     * {@code mnist/}, ...), ignored for the bundled {@code mnist-subset}.
     *
     * @throws UserException for an unknown name, missing folder or files, or bad file contents
     */
    public static LabelledSet load(String name, Split split, Path dataDir) {
        if (name != null
                && !NAMES.contains(name.trim().toLowerCase(Locale.ROOT))
                && org.ntk4j.spec.DatasetSpec.exists(name)) {
            return SyntheticDatasets.load(org.ntk4j.spec.DatasetSpec.resolve(name), split);
        }
        String n = checkName(name);
        if (n.equals(MNIST_SUBSET)) {
            return loadSubset(split);
        }
        Path dir = DataPaths.datasetDir(dataDir, n);
        return loadFrom(n, split, dir);
    }

    /**
     * The first {@code n} samples of a split ({@link #load} then {@link LabelledSet#head}, all of them when the split holds
     * fewer), reading only those rows of MNIST's and Fashion-MNIST's IDX files instead of the whole split.
     */
    public static LabelledSet loadHead(String name, Split split, Path dataDir, int n) {
        String key = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        if (!key.equals(MNIST) && !key.equals(FASHION_MNIST)) {
            return load(name, split, dataDir).head(n);
        }
        Path dir = DataPaths.datasetDir(dataDir, key);
        String prefix = split == Split.TRAIN ? "train" : "t10k";
        Path images = idxFile(key, dir, prefix + "-images-idx3-ubyte");
        Path labels = idxFile(key, dir, prefix + "-labels-idx1-ubyte");
        int[] all = IdxReader.readLabels(labels, MNIST_CLASSES);
        int m = Math.min(n, all.length);
        IdxReader.Images im;
        try {
            im = IdxReader.readImageRows(Files.newInputStream(images), images.toString(), 0, m);
        } catch (java.io.IOException e) {
            throw new UserException(images + ": cannot read (" + e.getMessage() + ")", e);
        }
        return IdxReader.combine(
                key + "-" + split.name().toLowerCase(Locale.ROOT),
                im,
                images.toString(),
                java.util.Arrays.copyOf(all, m),
                labels.toString(),
                MNIST_CLASSES);
    }

    /** Loads a split of dataset {@code name} from the folder {@code dir} itself (no sub-folder added). */
    public static LabelledSet loadFrom(String name, Split split, Path dir) {
        String n = checkName(name);
        String tag = n + "-" + split.name().toLowerCase(Locale.ROOT);
        switch (n) {
            case MNIST, FASHION_MNIST -> {
                String prefix = split == Split.TRAIN ? "train" : "t10k";
                Path images = idxFile(n, dir, prefix + "-images-idx3-ubyte");
                Path labels = idxFile(n, dir, prefix + "-labels-idx1-ubyte");
                return IdxReader.read(tag, images, labels, MNIST_CLASSES);
            }
            case CIFAR10 -> {
                requireDir(n, dir);
                if (Files.isRegularFile(dir.resolve(CifarPngReader.TEST_IMAGES))
                        || Files.isRegularFile(dir.resolve(CifarPngReader.TRAIN_IMAGES.get(0)))) {
                    List<String> need = split == Split.TRAIN
                            ? concat(CifarPngReader.TRAIN_IMAGES, CifarPngReader.TRAIN_LABELS)
                            : List.of(CifarPngReader.TEST_IMAGES, CifarPngReader.TEST_LABELS);
                    for (String f : need) {
                        if (!Files.isRegularFile(dir.resolve(f))) {
                            throw missing(n, dir, dir.resolve(f).toString(), need);
                        }
                    }
                    return CifarPngReader.read(dir, split);
                }
                Path bin = Files.isDirectory(dir.resolve("cifar-10-batches-bin"))
                        ? dir.resolve("cifar-10-batches-bin")
                        : dir;
                if (CifarBinaryReader.present(bin)) {
                    return CifarBinaryReader.read(bin, split);
                }
                throw missing(
                        n,
                        dir,
                        "no CIFAR-10 files",
                        concat(
                                concat(
                                        CifarPngReader.TRAIN_IMAGES,
                                        CifarPngReader.TRAIN_LABELS,
                                        CifarPngReader.TEST_IMAGES,
                                        CifarPngReader.TEST_LABELS),
                                "or the binary " + String.join(", ", CifarBinaryReader.TRAIN_FILES) + ", "
                                        + CifarBinaryReader.TEST_FILE));
            }
            default -> throw new IllegalStateException(n);
        }
    }

    /** Lower-cased name if it is one of {@link #NAMES}; otherwise a UserException listing them. */
    public static String checkName(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        if (!NAMES.contains(n)) {
            throw new UserException("unknown dataset '" + name + "' (expected one of: " + String.join(", ", NAMES)
                    + ", a synthetic spec in datasets/ " + org.ntk4j.spec.DatasetSpec.available()
                    + " or a spec file .json)");
        }
        return n;
    }

    /** The bundled MNIST subset (2000 train / 500 test), read from classpath resources. */
    public static LabelledSet loadSubset(Split split) {
        String prefix = split == Split.TRAIN ? "train" : "t10k";
        String img = SUBSET_RESOURCE + prefix + "-images-idx3-ubyte.gz";
        String lab = SUBSET_RESOURCE + prefix + "-labels-idx1-ubyte.gz";
        IdxReader.Images im = IdxReader.readImages(resource(img), "classpath:" + img);
        int[] labels = IdxReader.readLabels(resource(lab), "classpath:" + lab, MNIST_CLASSES);
        return IdxReader.combine(
                MNIST_SUBSET + "-" + split.name().toLowerCase(Locale.ROOT),
                im,
                "classpath:" + img,
                labels,
                "classpath:" + lab,
                MNIST_CLASSES);
    }

    private static InputStream resource(String path) {
        InputStream in = Datasets.class.getResourceAsStream(path);
        if (in == null) {
            throw new IllegalStateException(
                    "bundled resource " + path + " is missing from the classpath (broken build?)");
        }
        return in;
    }

    /** {@code dir/base} or {@code dir/base.gz}, whichever exists. */
    private static Path idxFile(String name, Path dir, String base) {
        requireDir(name, dir);
        Path plain = dir.resolve(base);
        if (Files.isRegularFile(plain)) {
            return plain;
        }
        Path gz = dir.resolve(base + ".gz");
        if (Files.isRegularFile(gz)) {
            return gz;
        }
        throw missing(
                name,
                dir,
                plain + "[.gz]",
                List.of(
                        "train-images-idx3-ubyte[.gz]",
                        "train-labels-idx1-ubyte[.gz]",
                        "t10k-images-idx3-ubyte[.gz]",
                        "t10k-labels-idx1-ubyte[.gz]"));
    }

    private static void requireDir(String name, Path dir) {
        if (!Files.isDirectory(dir)) {
            String files = name.equals(CIFAR10)
                    ? String.join(", ", CifarPngReader.TRAIN_IMAGES) + ", " + CifarPngReader.TRAIN_LABELS + ", "
                            + CifarPngReader.TEST_IMAGES + ", " + CifarPngReader.TEST_LABELS
                    : "{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]";
            throw new UserException(dir + ": dataset folder for '" + name + "' not found (expected " + files
                    + " there; run `ntk4j data fetch " + name + "`, or point --dir / -D" + DataPaths.PROPERTY + " / "
                    + DataPaths.ENV + " at the data directory)");
        }
    }

    private static UserException missing(String name, Path dir, String what, List<String> expected) {
        return new UserException(what + ": missing in " + dir + " (expected " + String.join(", ", expected)
                + "; run `ntk4j data fetch " + name + "`)");
    }

    private static List<String> concat(List<String> a, String... more) {
        List<String> out = new ArrayList<>(a);
        out.addAll(List.of(more));
        return out;
    }
}
