package org.ntk4j.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Checks on the real, fetched datasets. Each test skips itself unless the dataset is present and
 * verified (SHA-256) in the default data directory, so CI (which fetches nothing) skips them all.
 */
class FetchedDataTest {
    private static Path fetched(DataFetcher.Source src) {
        Path d = DataPaths.datasetDir(DataPaths.dataDir(), src.name());
        assumeTrue(DataFetcher.checksumsMatch(src, d), src.name() + " not fetched into " + d);
        return d;
    }

    @Test
    void mnistTestSplit() {
        Path d = fetched(DataFetcher.MNIST);
        LabelledSet test = Datasets.loadFrom("mnist", Split.TEST, d);
        assertEquals(10000, test.size());
        assertArrayEquals(new int[] {980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}, test.classCounts());
        assertEquals(7, test.labels()[0]); // the famous first test digit
    }

    @Test
    void fashionMnistTestSplit() {
        Path d = fetched(DataFetcher.FASHION_MNIST);
        LabelledSet test = Datasets.loadFrom("fashion-mnist", Split.TEST, d);
        assertEquals(10000, test.size());
        for (int c : test.classCounts()) {
            assertEquals(1000, c);
        }
    }

    @Test
    void cifarTestSplitChannelMeans() {
        Path d = fetched(DataFetcher.CIFAR10);
        LabelledSet test = Datasets.loadFrom("cifar10", Split.TEST, d);
        assertEquals(10000, test.size());
        // first labels of the official test_batch: 3 8 8 0 6 6 1 6 3 1
        assertArrayEquals(new int[] {3, 8, 8, 0, 6, 6, 1, 6, 3, 1}, java.util.Arrays.copyOf(test.labels(), 10));
        // commonly quoted CIFAR-10 test channel means (R, G, B) 0.4942, 0.4851, 0.4504 (train: 0.4914,
        // 0.4822, 0.4465): a swapped channel order or wrong scaling would miss them by far more than 2e-3
        DatasetSummary s = DatasetSummary.of(test);
        assertEquals(0.4942, s.channelMeans()[0], 2e-3);
        assertEquals(0.4851, s.channelMeans()[1], 2e-3);
        assertEquals(0.4504, s.channelMeans()[2], 2e-3);
    }
}
