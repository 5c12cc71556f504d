package org.ntk4j.data;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Builds the bundled {@code mnist-subset} from the real MNIST files (run once; its output is
 * committed under {@code src/main/resources/org/ntk4j/data/mnist-subset/}):
 * 200 images per digit from the training set (2000) and 50 per digit from the test set (500),
 * chosen by {@link Preprocess#balancedIndices} with seeds {@value #TRAIN_SEED} and
 * {@value #TEST_SEED}, kept in their original file order, written as IDX.gz.
 *
 * <pre>java -cp target/ntk4j.jar:$(cat target/classpath.txt) org.ntk4j.data.MnistSubsetGenerator \
 *     ~/.ntk4j/data/mnist src/main/resources/org/ntk4j/data/mnist-subset</pre>
 */
public final class MnistSubsetGenerator {
    public static final int TRAIN_PER_CLASS = 200;
    public static final int TEST_PER_CLASS = 50;
    public static final long TRAIN_SEED = 20240601L;
    public static final long TEST_SEED = 20240602L;

    private MnistSubsetGenerator() {}

    /** Writes the four subset files into {@code outDir}. */
    public static void generate(Path mnistDir, Path outDir) throws java.io.IOException {
        Files.createDirectories(outDir);
        LabelledSet train = Datasets.loadFrom(Datasets.MNIST, Split.TRAIN, mnistDir);
        LabelledSet test = Datasets.loadFrom(Datasets.MNIST, Split.TEST, mnistDir);
        write(Preprocess.balancedSample(train, TRAIN_PER_CLASS, TRAIN_SEED), outDir, "train");
        write(Preprocess.balancedSample(test, TEST_PER_CLASS, TEST_SEED), outDir, "t10k");
    }

    private static void write(LabelledSet d, Path outDir, String prefix) {
        IdxWriter.writeImages(d, outDir.resolve(prefix + "-images-idx3-ubyte.gz"));
        IdxWriter.writeLabels(d.labels(), outDir.resolve(prefix + "-labels-idx1-ubyte.gz"));
    }

    /** Arguments: MNIST folder (with the four IDX files), output folder. */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: MnistSubsetGenerator MNIST_DIR OUT_DIR");
            System.exit(2);
        }
        generate(Path.of(args[0]), Path.of(args[1]));
        System.out.println("wrote mnist-subset to " + args[1]);
    }
}
